"""The local OHLCV store: Parquet files under the orrery cache dir, queried with DuckDB.

Layout of `<cache>/orrery/markets/`: `prices/<batch>.parquet` (symbol, date, open, high, low, close,
adj_close, volume) and `symbols/<batch>.parquet` (symbol, name, kind, exchange, source). The shipped
batch is built at first use from packaged data: bokeh-sampledata 2026.1 (AAPL, IBM, MSFT, GOOG, FB daily,
2000-2013, public domain; open/high/low/close unadjusted, adj_close split- and dividend-adjusted) and
arch's S&P 500 and NASDAQ Composite (1999-2018). Each `import_files` call (and each online fetch, see
provider.py) writes one new batch file (temp file + rename) through `Store.add`, so an import is all or
nothing and never touches an existing batch.
"""

from __future__ import annotations

import os
import re
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

from orrery.errors import DataError
from orrery.files import cache_dir

COLUMNS = ["symbol", "date", "open", "high", "low", "close", "adj_close", "volume"]
SHIPPED = "shipped-bokeh2026.1-arch"  # the batch name changes whenever the shipped data changes
MAX_LISTED = 10  # bad rows named in an import error

# Names people use for the shipped symbols (lower case). Tickers themselves always resolve.
SHIPPED_SYMBOLS = pd.DataFrame([
    ("AAPL", "Apple Inc.", "stock", "NASDAQ", "apple|apple inc"),
    ("IBM", "International Business Machines", "stock", "NYSE", "ibm|international business machines"),
    ("MSFT", "Microsoft Corp.", "stock", "NASDAQ", "microsoft|microsoft corp"),
    ("GOOG", "Google (Alphabet) class A, pre-2014 history", "stock", "NASDAQ", "google|alphabet|googl"),
    ("FB", "Facebook (Meta Platforms)", "stock", "NASDAQ", "facebook|meta|meta platforms"),
    ("SPX", "S&P 500 index", "index", "INDEX", "s&p 500|s&p500|s&p|sp500|sp 500|standard & poor's 500|^gspc"),
    ("COMP", "NASDAQ Composite index", "index", "INDEX", "nasdaq composite|nasdaq index|^ixic|ixic"),
], columns=["symbol", "name", "kind", "exchange", "aliases"])

_SYMBOL = re.compile(r"^[A-Z0-9][A-Z0-9.\-^]{0,11}$")
_ALIASES = {"ticker": "symbol", "adj close": "adj_close", "adjclose": "adj_close", "adjusted close": "adj_close",
            "timestamp": "date", "day": "date"}


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
            self._write_batch(SHIPPED, shipped_prices(), SHIPPED_SYMBOLS.assign(source=SHIPPED))
        self._load_catalog()

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
            f"GROUP BY ALL ORDER BY s.kind DESC, s.symbol")
        self.symbols: dict[str, Symbol] = {
            r.symbol: Symbol(r.symbol, r.name, r.kind, r.exchange, r.source, f"{r.first:%Y-%m-%d}",
                             f"{r.last:%Y-%m-%d}", int(r.rows)) for r in table.itertuples()}
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
            df = self._query(f"SELECT * FROM read_parquet('{self.root / 'prices' / '*.parquet'}') "
                             "WHERE symbol = ? ORDER BY date", [sym])
            self._frames[sym] = df.drop(columns="symbol").set_index("date").astype(float)
        return self._frames[sym]

    def resolve(self, name: str) -> str:
        """A ticker or a name ("Apple", "aapl", "S&P 500") -> the store's symbol; DataError if absent."""
        found = self.lookup(name)
        if found is None:
            raise DataError(f"{name!r} is not in the data; symbols available: {', '.join(self.symbols)} "
                            f"(add more with `orrery markets import FILE`)")
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
            before, after = low[max(0, m.start() - 12):m.start()], low[m.end():m.end() + 10]
            if "COMP" in self.symbols and not re.search(r"\b(on|in|at|listed)\s+$", before) \
                    and not re.match(r"\s*(stocks?|shares|listed|exchange|-)", after):
                hits.append((m.start(), "COMP"))
        return list(dict.fromkeys(sym for _, sym in sorted(hits)))

    def last_date(self, symbol: str) -> str:
        return self.symbols[self.resolve(symbol)].last

    # -- writing ---------------------------------------------------------------------------------
    def import_files(self, paths: Iterable[str | Path], *, kind: str = "stock", exchange: str = "OTHER") -> list[str]:
        """Add the symbols in CSV/Parquet files as one new batch. Every file is checked first; any bad
        row refuses the whole import (rows named), and a symbol already in the store is refused."""
        frames = [read_user_file(Path(p)) for p in paths]
        if not frames:
            raise DataError("no files given: pass one or more CSV or Parquet files (symbol, date, OHLCV)")
        return self.add(pd.concat(frames, ignore_index=True), kind=kind, exchange=exchange, origin="import")

    def add(self, data: pd.DataFrame, *, kind: str = "stock", exchange: str = "OTHER", origin: str = "import") -> list[str]:
        """Rows already through `checked_rows` (new symbols only) as one new batch named `<origin>-...`:
        the one write path of `import_files` and the online provider, all or nothing."""
        dup = data[data.duplicated(["symbol", "date"], keep=False)]
        if len(dup):
            first = dup.iloc[0]
            raise DataError(f"{len(dup)} rows repeat a (symbol, date) across the files, e.g. {first.symbol} "
                            f"{first.date:%Y-%m-%d}; keep one row per symbol and date. Nothing was imported.")
        new = self.refuse_known(data["symbol"].unique())
        meta = pd.DataFrame({"symbol": new, "name": new, "kind": kind, "exchange": exchange, "aliases": ""})
        batch = f"{origin}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{abs(hash(tuple(new))) % 10**6}"
        self._write_batch(batch, data, meta.assign(source=batch))
        self._load_catalog()
        return new

    def refuse_known(self, symbols: Iterable[str]) -> list[str]:
        """`symbols` sorted, or DataError when any is already in the store (it never overwrites data)."""
        clash = sorted(set(symbols) & set(self.symbols))
        if clash:
            raise DataError(f"{', '.join(clash)} already in the store; rename the symbol in your file (the store "
                            f"never overwrites data). Nothing was imported.")
        return sorted(set(symbols))

    def _write_batch(self, batch: str, prices: pd.DataFrame, meta: pd.DataFrame) -> None:
        """Symbols first, prices last: the catalog joins the two, so a batch appears only once both exist."""
        for sub, frame in (("symbols", meta), ("prices", prices[COLUMNS])):
            folder = self.root / sub
            folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{batch}.", suffix=".tmp", dir=folder)
            os.close(fd)
            try:
                frame.to_parquet(tmp, index=False)
                os.chmod(tmp, 0o644)  # mkstemp makes it owner-only
                os.replace(tmp, folder / f"{batch}.parquet")
            finally:
                Path(tmp).unlink(missing_ok=True)


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


def read_user_file(path: Path) -> pd.DataFrame:
    """A user's CSV/Parquet in the store's columns, or DataError naming the bad rows."""
    if not path.is_file():
        raise DataError(f"{path}: no such file")
    if path.suffix.lower() == ".parquet":
        raw, first_row, unit = pd.read_parquet(path), 1, "row"
    elif path.suffix.lower() in (".csv", ".txt"):
        raw, first_row, unit = pd.read_csv(path, dtype=str, keep_default_na=False), 2, "line"  # line 1: header
    else:
        raise DataError(f"{path}: use a .csv or .parquet file with columns symbol, date, open, high, low, close, volume")
    return checked_rows(raw, str(path), first_row=first_row, unit=unit)


def checked_rows(raw: pd.DataFrame, source: str, *, first_row: int = 1, unit: str = "row") -> pd.DataFrame:
    """Rows in any usual column spelling -> the store's columns, or DataError naming the bad rows as
    `<unit> <index + first_row>` (CSV line numbers count the header)."""
    raw = raw.rename(columns=lambda c: _ALIASES.get(str(c).strip().lower(), str(c).strip().lower()))
    missing = [c for c in COLUMNS if c not in raw.columns and c != "adj_close"]
    if missing:
        raise DataError(f"{source}: missing column(s) {', '.join(missing)} (found: {', '.join(map(str, raw.columns))}); "
                        "the columns are symbol, date, open, high, low, close, volume and optionally adj_close")
    if "adj_close" not in raw.columns:
        raw["adj_close"] = raw["close"]
    out = pd.DataFrame({"symbol": raw["symbol"].astype(str).str.strip().str.upper(),
                        "date": pd.to_datetime(raw["date"], errors="coerce", format="mixed")})
    for col in COLUMNS[2:]:
        out[col] = pd.to_numeric(raw[col], errors="coerce")
    problems = _row_problems(out)
    if problems:
        listed = "; ".join(f"{unit} {i + first_row}: {why}" for i, why in problems[:MAX_LISTED])
        more = f" (and {len(problems) - MAX_LISTED} more)" if len(problems) > MAX_LISTED else ""
        raise DataError(f"{source}: {len(problems)} bad row(s), nothing was imported: {listed}{more}. Fix them and "
                        "import again.")
    if out.empty:
        raise DataError(f"{source}: no rows to import")
    return out


def _row_problems(df: pd.DataFrame) -> list[tuple[int, str]]:
    """(row index, why) for each unusable row, checked column by column with vectorized masks."""
    prices = df[["open", "high", "low", "close", "adj_close"]]
    checks = [
        (~df["symbol"].str.match(_SYMBOL), "symbol must be 1-12 letters/digits (e.g. TSLA)"),
        (df["date"].isna(), "date is not a date (use YYYY-MM-DD)"),
        (prices.isna().any(axis=1) | df["volume"].isna(), "a price or the volume is not a number"),
        (~np.isfinite(prices).all(axis=1) | (prices <= 0).any(axis=1), "prices must be positive numbers"),
        (df["volume"] < 0, "volume must be >= 0"),
        ((df["high"] < df[["open", "close", "low"]].max(axis=1)) | (df["low"] > df[["open", "close"]].min(axis=1)),
         "high must be the highest and low the lowest of open/high/low/close"),
        (df.duplicated(["symbol", "date"], keep="first"), "repeats an earlier (symbol, date)"),
    ]
    found: dict[int, str] = {}
    for mask, why in checks:
        for i in np.flatnonzero(mask.fillna(True).to_numpy(dtype=bool)):
            found.setdefault(int(i), why)
    return sorted(found.items())
