"""An optional online price provider: off by default, used only by `orrery markets fetch SYMBOL...` with
`--provider-url URL` or `ORRERY_MARKETS_URL` set (the agent and `ask` never fetch).

The protocol, kept small on purpose: `GET {base_url}/daily?symbol=AAPL` answers 200 with a JSON list of
daily rows, oldest first or not, one object per day:

    [{"date": "2024-01-02", "open": 187.15, "high": 188.44, "low": 183.89, "close": 185.64,
      "volume": 82488700, "adj_close": 185.4}, ...]       # adj_close optional (defaults to close)

No commercial provider speaks exactly this: put a small adapter in front of one (a proxy that reshapes its
answer, or a subclass of `HttpProvider` overriding `rows`). Every row is checked like an imported file's
(`store.checked_rows`, bad rows named by their 1-based position in the list), and all symbols of one fetch
land in the store as one batch through `Store.add`, so a failure anywhere writes nothing.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence

import httpx
import pandas as pd

from orrery.errors import ConfigError, OrreryError
from orrery.llm.ollama import backoff_delay
from orrery.markets.store import Store, checked_rows

ENV = "ORRERY_MARKETS_URL"


class ProviderError(OrreryError):
    """The price provider could not be reached or did not answer with the documented shape."""


def provider_url(flag: str | None = None) -> str:
    """The URL the user gave (flag first, then the environment); ConfigError when neither is set."""
    url = flag or os.environ.get(ENV)
    if not url:
        raise ConfigError(f"online prices are off by default: pass --provider-url URL or set {ENV} to fetch")
    return url.rstrip("/")


class HttpProvider:
    """`HttpProvider(url).daily("AAPL")` -> checked rows in the store's columns, or a one-line error."""

    def __init__(self, base_url: str, *, timeout: float = 10.0, max_retries: int = 2, backoff: float = 0.5):
        self.base_url = base_url.rstrip("/")
        self.timeout, self.max_retries, self.backoff = timeout, max_retries, backoff

    def daily(self, symbol: str) -> pd.DataFrame:
        source = f"{self.base_url} {symbol}"
        raw = pd.DataFrame.from_records(self.rows(symbol))
        if raw.empty:
            raise ProviderError(f"{source}: the provider has no rows for {symbol}; check the symbol")
        if "date" in raw:  # the shape says "YYYY-MM-DD": a number would parse as nanoseconds since 1970
            raw["date"] = raw["date"].where(raw["date"].map(lambda v: isinstance(v, str)))
        return checked_rows(raw.assign(symbol=symbol), source)

    def rows(self, symbol: str) -> list[dict]:
        """The JSON rows for `symbol` (retrying 429, 5xx and network errors with backoff)."""
        data = self._get(symbol).json()
        if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
            raise ProviderError(f"{self.base_url} {symbol}: the answer is not a JSON list of daily rows "
                                "(see orrery/markets/provider.py for the shape; adapt the provider to it)")
        return data

    def _get(self, symbol: str) -> httpx.Response:
        url = f"{self.base_url}/daily"
        with httpx.Client(timeout=self.timeout) as client:
            for attempt in range(self.max_retries + 1):
                try:
                    r = client.get(url, params={"symbol": symbol})
                except httpx.TransportError as exc:
                    problem, retry_after = f"could not be reached ({type(exc).__name__}: {exc})", None
                else:
                    if r.status_code == 200:
                        return r
                    problem, retry_after = f"answered HTTP {r.status_code} {' '.join(r.text.split())[:120]}", \
                        r.headers.get("Retry-After")
                    if r.status_code != 429 and r.status_code < 500:
                        break  # a client error (unknown symbol, bad URL) does not get better by asking again
                if attempt < self.max_retries:
                    time.sleep(backoff_delay(attempt, retry_after, base=self.backoff))
        raise ProviderError(f"price provider {url} {problem} for {symbol} (tries: {attempt + 1}); check "
                            f"--provider-url / {ENV} and the symbol, or try later. Nothing was imported.")


def fetch(store: Store, symbols: Sequence[str], provider: HttpProvider, *, kind: str = "stock",
          exchange: str = "OTHER") -> list[str]:
    """Download every symbol first, then add them all as one batch (new symbols only, like an import)."""
    wanted = list(dict.fromkeys(s.strip().upper() for s in symbols))
    if not wanted:
        raise ConfigError("no symbols given: `orrery markets fetch SYMBOL...`")
    store.refuse_known(wanted)  # before any request
    frames = [provider.daily(s) for s in wanted]
    return store.add(pd.concat(frames, ignore_index=True), kind=kind, exchange=exchange, origin="fetch")
