"""The local OHLCV store: Parquet files under the orrery cache dir, queried with DuckDB.

Layout of `<cache>/orrery/markets/`: `prices/<batch>.parquet` (symbol, date, open, high, low, close,
adj_close, volume) and `symbols/<batch>.parquet` (symbol, name, kind, exchange, source). The shipped
batch is built at first use from packaged data: bokeh-sampledata 2026.1 (AAPL, IBM, MSFT, GOOG, FB daily,
2000-2013, public domain; open/high/low/close unadjusted, adj_close split- and dividend-adjusted) and
arch's S&P 500 and NASDAQ Composite (1999-2018). Each `import_files` call (and each online fetch, see
provider.py) writes one new batch file (temp file + rename) through `Store.add`, so an import is all or
nothing and never touches an existing batch. Writers of one store (imports, fetches, `remove`, the first
fill) take `<root>/.lock` (a file lock, across processes) and re-read the catalog under it, so two imports
of one new symbol at once add it once and refuse the second.

Dates are calendar days: a timestamp with a UTC offset counts on the day written in its own offset (the
exchange's local day, as providers write it; 2024-01-02T20:00-05:00 is 2024-01-02, not the 3rd in UTC);
a file with times of day is intraday and its rows are aggregated per day (open of the first, high max,
low min, close and adj_close of the last, volume summed); integer dates are read as YYYYMMDD (anything
else numeric is refused).
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
from filelock import FileLock, Timeout

from orrery.errors import DataError
from orrery.files import cache_dir, input_file, write_atomic

COLUMNS = ["symbol", "date", "open", "high", "low", "close", "adj_close", "volume"]
SHIPPED = "shipped-bokeh2026.1-arch"  # the batch name changes whenever the shipped data changes
MAX_LISTED = 10  # bad rows named in an import error
MAX_IMPORT_BYTES = 256 * 2**20  # per import file; `orrery markets import --max-mb` raises it
LOCK_WAIT = 120.0  # seconds a writer waits for another import/fetch/remove of the same store

# Names people use for the shipped symbols (lower case). Tickers themselves always resolve.
SHIPPED_SYMBOLS = pd.DataFrame(
    [
        ("AAPL", "Apple Inc.", "stock", "NASDAQ", "apple|apple inc"),
        ("IBM", "International Business Machines", "stock", "NYSE", "ibm|international business machines"),
        ("MSFT", "Microsoft Corp.", "stock", "NASDAQ", "microsoft|microsoft corp"),
        ("GOOG", "Google (Alphabet) class A, pre-2014 history", "stock", "NASDAQ", "google|alphabet|googl"),
        ("FB", "Facebook (Meta Platforms)", "stock", "NASDAQ", "facebook|meta|meta platforms"),
        ("SPX", "S&P 500 index", "index", "INDEX", "s&p 500|s&p500|s&p|sp500|sp 500|standard & poor's 500|^gspc"),
        ("COMP", "NASDAQ Composite index", "index", "INDEX", "nasdaq composite|nasdaq index|^ixic|ixic"),
    ],
    columns=["symbol", "name", "kind", "exchange", "aliases"],
)

_SYMBOL = re.compile(r"^[A-Z0-9][A-Z0-9.\-^]{0,11}$")
_BATCH = re.compile(r"(import|fetch)-\d{8}-\d{6}-\d+-\d+")
_ALIASES = {
    "ticker": "symbol",
    "adj close": "adj_close",
    "adjclose": "adj_close",
    "adjusted close": "adj_close",
    "timestamp": "date",
    "day": "date",
}


@dataclass(frozen=True)
class Symbol:
    symbol: str
    name: str
    kind: str  # stock | index | etf | crypto
    exchange: str
    source: str
    first: str  # first and last date in the data, YYYY-MM-DD
    last: str
    rows: int


def default_root() -> Path:
    return cache_dir() / "markets"


class Store:
    """`Store()` opens (and on first use fills) the store; `prices("AAPL")` is one symbol's daily rows."""

    def __init__(self, root: str | Path | None = None):
        self.root = Path(root) if root is not None else default_root()
        self._lock = threading.Lock()
        self._frames: dict[str, pd.DataFrame] = {}
        if not (self.root / "prices" / f"{SHIPPED}.parquet").exists():
            with self.writing():
                if not (self.root / "prices" / f"{SHIPPED}.parquet").exists():
                    self._write_batch(SHIPPED, shipped_prices(), SHIPPED_SYMBOLS.assign(source=SHIPPED))
        self._load_catalog()

    @contextmanager
    def writing(self) -> Iterator[None]:
        """The store's write lock, held across processes (a second importer waits, then sees the first's data)."""
        self.root.mkdir(parents=True, exist_ok=True)
        try:
            with FileLock(self.root / ".lock", timeout=LOCK_WAIT):
                yield
        except Timeout:
            raise DataError(
                f"another import is still writing to {self.root} after {LOCK_WAIT:g} s; try again when "
                "it has finished. Nothing was changed."
            ) from None

    # -- reading ---------------------------------------------------------------------------------
    def _query(self, sql: str, params: Sequence[object] = ()) -> pd.DataFrame:
        with self._lock, duckdb.connect() as con:
            return con.execute(sql, list(params)).df()

    def _load_catalog(self) -> None:
        prices = f"read_parquet('{self.root / 'prices' / '*.parquet'}')"
        syms = f"read_parquet('{self.root / 'symbols' / '*.parquet'}', union_by_name=true)"
        table = self._query(
            f"SELECT s.symbol, s.name, s.kind, s.exchange, s.source, s.aliases, min(p.date) AS first, "
            f"max(p.date) AS last, count(*) AS rows FROM {syms} s JOIN {prices} p USING (symbol) "
            f"GROUP BY ALL ORDER BY s.kind DESC, s.symbol"
        )
        self.symbols: dict[str, Symbol] = {
            r.symbol: Symbol(
                r.symbol, r.name, r.kind, r.exchange, r.source, f"{r.first:%Y-%m-%d}", f"{r.last:%Y-%m-%d}", int(r.rows)
            )
            for r in table.itertuples()
        }
        self.aliases: dict[str, str] = {r.symbol.lower(): r.symbol for r in table.itertuples()}
        for r in table.itertuples():
            for a in str(r.aliases or "").split("|"):
                if a:
                    self.aliases[a.strip().lower()] = r.symbol
        self._frames.clear()

    def prices(self, symbol: str) -> pd.DataFrame:
        """Daily rows of `symbol` indexed by date (open, high, low, close, adj_close, volume)."""
        sym = self.resolve(symbol)
        if sym not in self._frames:
            df = self._query(
                f"SELECT * FROM read_parquet('{self.root / 'prices' / '*.parquet'}') WHERE symbol = ? ORDER BY date",
                [sym],
            )
            self._frames[sym] = df.drop(columns="symbol").set_index("date").astype(float)
        return self._frames[sym]

    def resolve(self, name: str) -> str:
        """A ticker or a name ("Apple", "aapl", "S&P 500") -> the store's symbol; DataError if absent."""
        found = self.lookup(name)
        if found is None:
            raise DataError(
                f"{name!r} is not in the data; symbols available: {', '.join(self.symbols)} "
                f"(add more with `orrery markets import FILE`)"
            )
        return found

    def lookup(self, name: str) -> str | None:
        key = name.strip().strip(".,;:!?'\"").lstrip("$").lower()
        return self.aliases.get(key) or self.aliases.get(re.sub(r"\s+(inc|corp|co|plc)\.?$", "", key))

    def find_in_text(self, text: str) -> list[str]:
        """Symbols named in free text, by ticker (as a word, any case for 3+ letters) or by name/alias."""
        low = f" {text.lower()} "
        hits: list[tuple[int, str]] = []
        for alias, sym in self.aliases.items():
            short_ticker = alias == sym.lower() and len(alias) <= 2  # "FB" counts only in capitals
            source, word = (f" {text} ", sym) if short_ticker else (low, alias)
            hits += [(m.start(), sym) for m in re.finditer(rf"(?<![\w&^]){re.escape(word)}(?![\w&])", source)]
        # A bare "NASDAQ" names the exchange in "stocks on NASDAQ" and the index otherwise.
        for m in re.finditer(r"(?<![\w])nasdaq(?!\s+composite|\s+index|[\w-])", low):
            before, after = low[max(0, m.start() - 12) : m.start()], low[m.end() : m.end() + 10]
            if (
                "COMP" in self.symbols
                and not re.search(r"\b(on|in|at|listed)\s+$", before)
                and not re.match(r"\s*(stocks?|shares|listed|exchange|-)", after)
            ):
                hits.append((m.start(), "COMP"))
        return list(dict.fromkeys(sym for _, sym in sorted(hits)))

    # -- writing ---------------------------------------------------------------------------------
    def import_files(
        self,
        paths: Iterable[str | Path],
        *,
        kind: str = "stock",
        exchange: str = "OTHER",
        max_bytes: int = MAX_IMPORT_BYTES,
    ) -> list[str]:
        """Add the symbols in CSV/Parquet files as one new batch. Every file is checked first (a file over
        `max_bytes` before it is read); any bad row refuses the whole import (rows named), and a symbol
        already in the store is refused."""
        frames = [read_user_file(Path(p), max_bytes=max_bytes) for p in paths]
        if not frames:
            raise DataError("no files given: pass one or more CSV or Parquet files (symbol, date, OHLCV)")
        return self.add(pd.concat(frames, ignore_index=True), kind=kind, exchange=exchange, origin="import")

    def add(
        self, data: pd.DataFrame, *, kind: str = "stock", exchange: str = "OTHER", origin: str = "import"
    ) -> list[str]:
        """Rows already through `checked_rows` (new symbols only) as one new batch named `<origin>-...`:
        the one write path of `import_files` and the online provider, all or nothing."""
        dup = data[data.duplicated(["symbol", "date"], keep=False)]
        if len(dup):
            first = dup.iloc[0]
            raise DataError(
                f"{len(dup)} rows repeat a (symbol, date) across the files, e.g. {first.symbol} "
                f"{first.date:%Y-%m-%d}; keep one row per symbol and date. Nothing was imported."
            )
        with self.writing():
            self._load_catalog()  # another process may have added these symbols since this store opened
            new = self.refuse_known(data["symbol"].unique())
            meta = pd.DataFrame({"symbol": new, "name": new, "kind": kind, "exchange": exchange, "aliases": ""})
            batch = f"{origin}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{abs(hash(tuple(new))) % 10**6}"
            self._write_batch(batch, data, meta.assign(source=batch))
            self._load_catalog()
        return new

    def remove(self, symbol: str) -> Symbol:
        """Take an imported or fetched symbol out of the store (its batch is rewritten without it, or deleted
        when it held nothing else). The shipped symbols are refused: they are rebuilt from the packages."""
        with self.writing():
            self._load_catalog()
            sym = self.symbols.get(symbol.strip().upper())
            if sym is None:
                raise DataError(f"{symbol!r} is not in the store; symbols: {', '.join(self.symbols)}")
            if sym.source == SHIPPED:
                raise DataError(
                    f"{sym.symbol} is shipped with orrery (from {SHIPPED}) and is not removed; only "
                    "symbols added with `orrery markets import` or `fetch` can be"
                )
            self._drop_from_batch(sym.source, sym.symbol)
            self._load_catalog()
        return sym

    def _drop_from_batch(self, batch: str, symbol: str) -> None:
        """Prices first: the catalog joins prices to symbols, so the symbol is gone as soon as its prices are."""
        if not _BATCH.fullmatch(batch):  # read from a file: checked before it names a path
            raise DataError(f"{symbol}'s batch name {batch!r} is not one orrery writes; the store is damaged")
        frames = {sub: pd.read_parquet(self.root / sub / f"{batch}.parquet") for sub in ("prices", "symbols")}
        keep = {sub: f[f["symbol"] != symbol] for sub, f in frames.items()}
        if keep["symbols"].empty:
            for sub in ("prices", "symbols"):
                (self.root / sub / f"{batch}.parquet").unlink()
            return
        for sub in ("prices", "symbols"):
            self._write_file(sub, batch, keep[sub])

    def refuse_known(self, symbols: Iterable[str]) -> list[str]:
        """`symbols` sorted, or DataError when any is already in the store (it never overwrites data)."""
        clash = sorted(set(symbols) & set(self.symbols))
        if clash:
            raise DataError(
                f"{', '.join(clash)} already in the store; rename the symbol in your file (the store "
                f"never overwrites data). Nothing was imported."
            )
        return sorted(set(symbols))

    def _write_batch(self, batch: str, prices: pd.DataFrame, meta: pd.DataFrame) -> None:
        """Symbols first, prices last: the catalog joins the two, so a batch appears only once both exist."""
        for sub, frame in (("symbols", meta), ("prices", prices[COLUMNS])):
            self._write_file(sub, batch, frame)

    def _write_file(self, sub: str, batch: str, frame: pd.DataFrame) -> None:
        write_atomic(self.root / sub / f"{batch}.parquet", lambda tmp: frame.to_parquet(tmp, index=False))


def shipped_prices() -> pd.DataFrame:
    """The packaged data in the store's columns."""
    from arch.data import nasdaq, sp500
    from bokeh_sampledata.stocks import data as stocks

    frames = [stocks.rename(columns={"ticker": "symbol"})]
    for sym, mod in (("SPX", sp500), ("COMP", nasdaq)):
        df = mod.load().rename(columns=lambda c: c.lower().replace(" ", "_")).rename_axis("date").reset_index()
        frames.append(df.assign(symbol=sym))
    out = pd.concat(frames, ignore_index=True)[COLUMNS]
    out["date"] = pd.to_datetime(out["date"])
    out["volume"] = out["volume"].astype(float)
    return out


def read_user_file(path: Path, *, max_bytes: int = MAX_IMPORT_BYTES) -> pd.DataFrame:
    """A user's CSV/Parquet in the store's columns, or DataError naming the bad rows (or the file, when it is
    too large, empty, binary or not the format its name says)."""
    import pyarrow as pa

    suffix = path.suffix.lower()
    if suffix not in (".parquet", ".csv", ".txt"):
        raise DataError(
            f"{path}: use a .csv or .parquet file with columns symbol, date, open, high, low, close, volume"
        )
    path = input_file(path, what="import file", max_bytes=max_bytes)  # refused by size before any read
    if path.stat().st_size == 0:
        raise DataError(f"{path} is empty; export it with a header row (symbol, date, open, high, low, close, volume)")
    try:
        if suffix == ".parquet":
            raw, first_row, unit = pd.read_parquet(path), 1, "row"
        else:
            raw, first_row, unit = pd.read_csv(path, dtype=str, keep_default_na=False), 2, "line"  # line 1: header
    except UnicodeDecodeError as exc:
        raise DataError(
            f"{path} is not UTF-8 text (bad byte at offset {exc.start}); export it as a UTF-8 CSV"
        ) from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, pa.ArrowException, OSError, ValueError) as exc:
        reason = " ".join(str(exc).split())[:160] or type(exc).__name__
        raise DataError(
            f"{path} is not a readable {'Parquet' if suffix == '.parquet' else 'CSV'} file ({reason}); re-export it"
        ) from None
    return checked_rows(raw, str(path), first_row=first_row, unit=unit)


def checked_rows(raw: pd.DataFrame, source: str, *, first_row: int = 1, unit: str = "row") -> pd.DataFrame:
    """Rows in any usual column spelling -> the store's columns, or DataError naming the bad rows as
    `<unit> <index + first_row>` (CSV line numbers count the header)."""
    raw = raw.rename(columns=lambda c: _ALIASES.get(str(c).strip().lower(), str(c).strip().lower()))
    missing = [c for c in COLUMNS if c not in raw.columns and c != "adj_close"]
    if missing:
        raise DataError(
            f"{source}: missing column(s) {', '.join(missing)} (found: {', '.join(map(str, raw.columns))}); "
            "the columns are symbol, date, open, high, low, close, volume and optionally adj_close"
        )
    if "adj_close" not in raw.columns:
        raw["adj_close"] = raw["close"]
    out = pd.DataFrame(
        {"symbol": raw["symbol"].astype(str).str.strip().str.upper(), "date": calendar_days(raw["date"])}
    )
    for col in COLUMNS[2:]:
        out[col] = pd.to_numeric(raw[col], errors="coerce")
    problems = _row_problems(out)
    if problems:
        listed = "; ".join(f"{unit} {i + first_row}: {why}" for i, why in problems[:MAX_LISTED])
        more = f" (and {len(problems) - MAX_LISTED} more)" if len(problems) > MAX_LISTED else ""
        raise DataError(
            f"{source}: {len(problems)} bad row(s), nothing was imported: {listed}{more}. Fix them and import again."
        )
    if out.empty:
        raise DataError(f"{source}: no rows to import")
    return daily(out)


_OFFSET = re.compile(r"(\d:\d{2}(?::\d{2}(?:\.\d+)?)?)\s*(?:Z|UTC|GMT|[+-]\d{2}:?\d{2})$", re.IGNORECASE)


def calendar_days(column: pd.Series) -> pd.Series:
    """Dates or timestamps as naive wall-clock times on the day they were written for (see the module
    docstring); unparseable values are NaT, for `_row_problems` to name."""
    if pd.api.types.is_datetime64_any_dtype(column):
        return column.dt.tz_localize(None) if column.dt.tz is not None else column
    if pd.api.types.is_bool_dtype(column):
        return pd.Series(pd.NaT, index=column.index, dtype="datetime64[ns]")
    if pd.api.types.is_numeric_dtype(column):  # 20240102, never nanoseconds or seconds since 1970
        text = column.map(lambda v: f"{int(v)}" if pd.notna(v) and float(v).is_integer() else "")
        return pd.to_datetime(text.where(text.str.fullmatch(r"(19|20)\d{6}"), None), format="%Y%m%d", errors="coerce")
    values = column.map(lambda v: v if isinstance(v, str) else str(v) if hasattr(v, "isoformat") else None)
    stripped = values.str.strip().str.replace(_OFFSET, r"\1", regex=True)
    return pd.to_datetime(stripped, errors="coerce", format="mixed")


def daily(rows: pd.DataFrame) -> pd.DataFrame:
    """Checked rows -> one row per symbol and calendar day: intraday rows (any time of day) are aggregated."""
    if (rows["date"] == rows["date"].dt.normalize()).all():
        return rows
    rows = rows.sort_values(["symbol", "date"], kind="stable").assign(date=rows["date"].dt.normalize())
    out = rows.groupby(["symbol", "date"], as_index=False, sort=False).agg(
        open=("open", "first"),
        high=("high", "max"),
        low=("low", "min"),
        close=("close", "last"),
        adj_close=("adj_close", "last"),
        volume=("volume", "sum"),
    )
    return out[COLUMNS].reset_index(drop=True)


def _row_problems(df: pd.DataFrame) -> list[tuple[int, str]]:
    """(row index, why) for each unusable row, checked column by column with vectorized masks."""
    prices = df[["open", "high", "low", "close", "adj_close"]]
    checks = [
        (~df["symbol"].str.match(_SYMBOL), "symbol must be 1-12 letters/digits (e.g. TSLA)"),
        (df["date"].isna(), "date is not a date (use YYYY-MM-DD)"),
        (prices.isna().any(axis=1) | df["volume"].isna(), "a price or the volume is not a number"),
        (~np.isfinite(prices).all(axis=1) | (prices <= 0).any(axis=1), "prices must be positive numbers"),
        (df["volume"] < 0, "volume must be >= 0"),
        (
            (df["high"] < df[["open", "close", "low"]].max(axis=1)) | (df["low"] > df[["open", "close"]].min(axis=1)),
            "high must be the highest and low the lowest of open/high/low/close",
        ),
        (df.duplicated(["symbol", "date"], keep="first"), "repeats an earlier (symbol, date)"),
    ]
    found: dict[int, str] = {}
    for mask, why in checks:
        for i in np.flatnonzero(mask.fillna(True).to_numpy(dtype=bool)):
            found.setdefault(int(i), why)
    return sorted(found.items())
