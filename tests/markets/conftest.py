"""One store per test session (built from the packaged data into a temp dir), and the raw packaged data
the tools are checked against."""

from __future__ import annotations

import pandas as pd
import pytest

from orrery.markets.store import Store
from orrery.markets.tools import MarketsDeps
from orrery.tools import RunContext


@pytest.fixture(scope="session")
def store(tmp_path_factory) -> Store:
    return Store(tmp_path_factory.mktemp("markets"))


@pytest.fixture()
def ctx(store) -> RunContext:
    return RunContext(MarketsDeps(store))


@pytest.fixture(scope="session")
def raw() -> dict[str, pd.DataFrame]:
    """Symbol -> frame straight from bokeh-sampledata / arch, not through the store."""
    from arch.data import nasdaq, sp500
    from bokeh_sampledata.stocks import data

    out = {t: g.set_index("date").drop(columns="ticker") for t, g in data.groupby("ticker")}
    for sym, mod in (("SPX", sp500), ("COMP", nasdaq)):
        df = mod.load()
        out[sym] = df.rename(
            columns={
                "Open": "open",
                "High": "high",
                "Low": "low",
                "Close": "close",
                "Adj Close": "adj_close",
                "Volume": "volume",
            }
        )
    return out
