import numpy as np
import pandas as pd
import pytest


def monthly(n: int = 48, seed: int = 0, trend: float = 0.5, amp: float = 10.0, noise: float = 1.0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    y = 100 + trend * t + amp * np.sin(2 * np.pi * t / 12) + rng.normal(0, noise, n)
    return pd.DataFrame({"date": pd.date_range("2018-01-01", periods=n, freq="MS"), "value": y})


@pytest.fixture
def frame() -> pd.DataFrame:
    return monthly()


@pytest.fixture
def panel() -> pd.DataFrame:
    parts = [monthly(seed=k, trend=0.2 * k).assign(store=f"s{k}") for k in range(3)]
    return pd.concat(parts, ignore_index=True)


@pytest.fixture(scope="session")
def make_monthly():
    return monthly
