"""Optional online price providers: off by default, used only by `orrery markets fetch SYMBOL...` with
`--provider-url URL` / `ORRERY_MARKETS_URL` or `--provider fmp` (the agent and `ask` never fetch).

The plain protocol, kept small on purpose: `GET {base_url}/daily?symbol=AAPL` answers 200 with a JSON list of
daily rows, oldest first or not, one object per day:

    [{"date": "2024-01-02", "open": 187.15, "high": 188.44, "low": 183.89, "close": 185.64,
      "volume": 82488700, "adj_close": 185.4}, ...]       # adj_close optional (defaults to close)

A commercial provider is an adapter that overrides `request` and `rows`: `FmpProvider` speaks Financial
Modeling Prep's `GET /api/v3/historical-price-full/{symbol}?apikey=KEY` (`{"symbol", "historical": [{date,
open, high, low, close, adjClose, volume, ...}]}`, newest first; a plain list of the same rows, the shape of FMP's /stable/ endpoints, is read too; the key from
`FMP_API_KEY`, never printed; the base URL from `ORRERY_FMP_URL`, default FMP's own).

Every request is bounded as a whole: `timeout` seconds from the request to the last byte received (a body
that drips a byte a second is cut there, not per read; a reply that stops sending altogether is cut by the
read timeout, `timeout` seconds after its last byte, so no request outlasts 2 x `timeout`) and `max_bytes` (a Content-Length over it is refused
before the body is read; a body without one is cut when it passes it). A reply that is not JSON, or is
nested deeper than Python can parse, or a Retry-After that is not a finite number of seconds >= 0, is a
one-line `ProviderError`. Every row is checked like an imported file's (`store.checked_rows`, bad rows named
by their 1-based position), and all symbols of one fetch land in the store as one batch through `Store.add`,
so a failure anywhere writes nothing.

`Chain([a, b, ..., StoreSource(store)])` asks each source in turn and answers with the first that has the
symbol (the local store as the last link: prices it already holds when every provider fails), and
`Cached(source, ttl)` keeps each provider reply on disk for `ttl` seconds, so asking again does not reach the
network (what users of peer tools ask for: fewer calls against rate-limited keys).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit

import httpx
import pandas as pd

from orrery.errors import ConfigError, DataError, OrreryError
from orrery.files import write_atomic
from orrery.llm.ollama import backoff_delay
from orrery.markets.store import _SYMBOL, COLUMNS, Store, checked_rows

ENV = "ORRERY_MARKETS_URL"
FMP_ENV = "FMP_API_KEY"
FMP_URL = "https://financialmodelingprep.com"
FMP_URL_ENV = "ORRERY_FMP_URL"  # FMP's base URL, for a proxy in front of it
MAX_REPLY_BYTES = 32 * 2**20  # a symbol's whole daily history is 1-3 MB of JSON at the providers we know
CACHE_TTL = 12 * 3600.0


class ProviderError(OrreryError):
    """The price provider could not be reached or did not answer with the documented shape: a failed run."""

    exit_code = 1


class PriceSource(Protocol):
    """Anything that answers a symbol's daily rows in the store's columns (or raises an OrreryError)."""

    name: str

    def daily(self, symbol: str) -> pd.DataFrame: ...


def provider_url(flag: str | None = None) -> str:
    """The URL the user gave (flag first, then the environment); ConfigError when neither is set."""
    url = flag or os.environ.get(ENV)
    if not url:
        raise ConfigError(
            f"online prices are off by default: pass --provider-url URL (or --provider fmp) or set {ENV} to fetch"
        )
    return url.rstrip("/")


class HttpProvider:
    """`HttpProvider(url).daily("AAPL")` -> checked rows in the store's columns, or a one-line error."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = 10.0,
        max_retries: int = 2,
        backoff: float = 0.5,
        max_bytes: int = MAX_REPLY_BYTES,
    ):
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"provider URL {base_url!r} is not an http(s) URL; give one like https://host/path")
        self.base_url = base_url.rstrip("/")
        self.name = self.base_url
        self.timeout, self.max_retries, self.backoff, self.max_bytes = timeout, max_retries, backoff, max_bytes

    def daily(self, symbol: str) -> pd.DataFrame:
        symbol = checked_symbol(symbol)  # it goes into a URL
        source = f"{self.name} {symbol}"
        raw = pd.DataFrame.from_records(self.rows(symbol))
        if raw.empty:
            raise ProviderError(f"{source}: the provider has no rows for {symbol}; check the symbol")
        if "date" in raw:  # the shape says "YYYY-MM-DD": a number would parse as nanoseconds since 1970
            raw["date"] = raw["date"].where(raw["date"].map(lambda v: isinstance(v, str)))
        return checked_rows(raw.assign(symbol=symbol), source)

    def request(self, symbol: str) -> tuple[str, dict[str, str]]:
        """(URL, query parameters) of one symbol's daily history."""
        return f"{self.base_url}/daily", {"symbol": symbol}

    def rows(self, symbol: str) -> list[dict]:
        """The JSON rows for `symbol` (retrying 429, 5xx and network errors with backoff)."""
        data = self._get(symbol)
        if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
            raise ProviderError(
                f"{self.name} {symbol}: the answer is not a JSON list of daily rows "
                "(see orrery/markets/provider.py for the shape; adapt the provider to it)"
            )
        return data

    def _get(self, symbol: str) -> object:
        url, params = self.request(symbol)
        with httpx.Client(timeout=self.timeout) as client:
            for attempt in range(self.max_retries + 1):
                try:
                    status, headers, body = self._bounded(client, url, params)
                except httpx.TransportError as exc:
                    problem, retry_after = f"could not be reached ({type(exc).__name__}: {exc})", None
                else:
                    if status == 200:
                        return self._json(body, symbol)
                    text = " ".join(body[:2000].decode("utf-8", "replace").split())[:120]
                    problem, retry_after = f"answered HTTP {status} {text}", headers.get("Retry-After")
                    if status != 429 and status < 500:
                        break  # a client error (unknown symbol, bad URL) does not get better by asking again
                if attempt < self.max_retries:
                    time.sleep(backoff_delay(attempt, retry_after, base=self.backoff, cap=self.timeout))
        raise ProviderError(
            f"price provider {url} {problem} for {symbol} (tries: {attempt + 1}); check "
            f"the provider URL or key and the symbol, or try later. Nothing was imported."
        )

    def _bounded(self, client: httpx.Client, url: str, params: dict[str, str]) -> tuple[int, httpx.Headers, bytes]:
        """One GET within `timeout` seconds in all and `max_bytes` of body (checked as it arrives)."""
        deadline = time.monotonic() + self.timeout
        with client.stream("GET", url, params=params) as r:
            declared = r.headers.get("Content-Length", "")
            if declared.isdigit() and int(declared) > self.max_bytes:
                raise ProviderError(
                    f"price provider {url} sent a {int(declared):,}-byte reply, over the "
                    f"{self.max_bytes:,}-byte limit; ask for less history. Nothing was imported."
                )
            body = bytearray()
            for chunk in r.iter_bytes():  # decoded: a gzip bomb counts at its real size
                body += chunk
                if len(body) > self.max_bytes:
                    raise ProviderError(
                        f"price provider {url} sent more than {self.max_bytes:,} bytes; ask for "
                        "less history. Nothing was imported."
                    )
                if time.monotonic() > deadline:
                    raise httpx.ReadTimeout(f"the whole reply took over {self.timeout:g} s")
            return r.status_code, r.headers, bytes(body)

    def _json(self, body: bytes, symbol: str) -> object:
        try:
            return json.loads(body)
        except (ValueError, RecursionError) as exc:  # RecursionError: nested deeper than the parser goes
            why = "nested too deep" if isinstance(exc, RecursionError) else "not JSON"
            raise ProviderError(
                f"{self.name} {symbol}: the answer is {why} ({body[:40]!r}...); check the provider "
                "URL. Nothing was imported."
            ) from None


class FmpProvider(HttpProvider):
    """Financial Modeling Prep's end-of-day history, reshaped to the store's rows."""

    def __init__(self, api_key: str | None = None, *, base_url: str | None = None, **kw: float):
        key = api_key or os.environ.get(FMP_ENV)
        if not key:
            raise ConfigError(f"--provider fmp needs an API key: set {FMP_ENV} (financialmodelingprep.com)")
        super().__init__(base_url or os.environ.get(FMP_URL_ENV) or FMP_URL, **kw)
        self.name = f"FMP ({self.base_url})"
        self._key = key

    def request(self, symbol: str) -> tuple[str, dict[str, str]]:
        return f"{self.base_url}/api/v3/historical-price-full/{symbol}", {"apikey": self._key}

    def rows(self, symbol: str) -> list[dict]:
        data = self._get(symbol)
        if isinstance(data, dict) and "Error Message" in data:
            raise ProviderError(f"{self.name} {symbol}: {str(data['Error Message'])[:160]}")
        if isinstance(data, dict) and not data:
            return []  # FMP's answer for a symbol it does not know
        history = data.get("historical") if isinstance(data, dict) else data  # a list: the /stable/ endpoints' shape
        if not isinstance(history, list) or not all(isinstance(r, dict) for r in history):
            raise ProviderError(
                f"{self.name} {symbol}: the answer has no 'historical' list of daily rows; is the URL FMP's?"
            )
        return [
            {
                "date": r.get("date"),
                "open": r.get("open"),
                "high": r.get("high"),
                "low": r.get("low"),
                "close": r.get("close"),
                "adj_close": r.get("adjClose", r.get("close")),
                "volume": r.get("volume"),
            }
            for r in history
        ]


class StoreSource:
    """The local store as a source: the prices it already holds."""

    def __init__(self, store: Store):
        self.store, self.name = store, f"the local store ({store.root})"

    def daily(self, symbol: str) -> pd.DataFrame:
        sym = self.store.resolve(symbol)
        return self.store.prices(sym).reset_index().assign(symbol=sym)[COLUMNS]


class Chain:
    """Each source in turn; the first that answers wins (`last` names it). All failing: one line naming each."""

    def __init__(self, sources: Sequence[PriceSource]):
        if not sources:
            raise ConfigError("a provider chain needs at least one source")
        self.sources, self.name, self.last = list(sources), " -> ".join(s.name for s in sources), ""

    def daily(self, symbol: str) -> pd.DataFrame:
        if len(self.sources) == 1:
            self.last = self.sources[0].name
            return self.sources[0].daily(symbol)
        failures = []
        for source in self.sources:
            try:
                rows = source.daily(symbol)
            except OrreryError as exc:
                failures.append(str(exc))
                continue
            self.last = source.name
            return rows
        raise ProviderError(f"no source answered for {symbol}: " + " | ".join(failures))


class Cached:
    """`source`'s checked rows kept on disk for `ttl` seconds, one Parquet file per source and symbol."""

    def __init__(self, source: PriceSource, *, ttl: float = CACHE_TTL, folder: str | Path | None = None):
        from orrery.markets.store import default_root

        self.source, self.ttl, self.name = source, ttl, source.name
        self.folder = Path(folder) if folder is not None else default_root() / "provider-cache" / cache_key(source)

    def daily(self, symbol: str) -> pd.DataFrame:
        sym = checked_symbol(symbol)  # it becomes a file name
        if self.ttl <= 0:
            return self.source.daily(sym)
        path = self.folder / f"{sym}.parquet"
        if path.is_file() and time.time() - path.stat().st_mtime < self.ttl:
            return pd.read_parquet(path)
        rows = self.source.daily(sym)
        write_atomic(path, lambda tmp: rows.to_parquet(tmp, index=False))
        return rows


def checked_symbol(symbol: str) -> str:
    """`symbol` upper-cased if it matches the store's one pattern (before it names a URL or a file)."""
    sym = symbol.strip().upper()
    if not _SYMBOL.match(sym):
        raise DataError(f"{symbol!r} is not a symbol (1-12 letters, digits, '.', '-', '^')")
    return sym


def cache_key(source: PriceSource) -> str:
    """A folder name per source (its name holds the URL, never a key)."""
    return hashlib.sha256(source.name.encode()).hexdigest()[:16]


def fetch(
    store: Store, symbols: Sequence[str], provider: PriceSource, *, kind: str = "stock", exchange: str = "OTHER"
) -> list[str]:
    """Download every symbol first, then add them all as one batch (new symbols only, like an import)."""
    wanted = list(dict.fromkeys(checked_symbol(s) for s in symbols))
    if not wanted:
        raise ConfigError("no symbols given: `orrery markets fetch SYMBOL...`")
    store.refuse_known(wanted)  # before any request
    frames = [provider.daily(s) for s in wanted]
    return store.add(pd.concat(frames, ignore_index=True), kind=kind, exchange=exchange, origin="fetch")
