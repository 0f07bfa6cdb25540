"""The store: filled from the packages, symbols resolved by name, imports all-or-nothing."""

from __future__ import annotations

import pandas as pd
import pytest

from orrery.errors import DataError
from orrery.markets.store import SHIPPED, Store


def test_store_is_filled_from_the_packages(store, raw):
    assert set(store.symbols) == {"AAPL", "IBM", "MSFT", "GOOG", "FB", "SPX", "COMP"}
    for sym, df in raw.items():
        got = store.prices(sym)
        assert len(got) == len(df)
        assert got["close"].to_numpy() == pytest.approx(df["close"].to_numpy(float))
        assert got["adj_close"].iloc[-1] == pytest.approx(float(df["adj_close"].iloc[-1]))
    assert store.symbols["AAPL"].last == "2013-03-01" and store.symbols["SPX"].last == "2018-12-31"
    assert (store.root / "prices" / f"{SHIPPED}.parquet").is_file()


def test_a_second_store_reuses_the_files(store):
    again = Store(store.root)
    assert again.symbols == store.symbols


@pytest.mark.parametrize("name,sym", [("Apple", "AAPL"), ("aapl", "AAPL"), ("$MSFT", "MSFT"), ("S&P 500", "SPX"),
                                      ("Microsoft Corp.", "MSFT"), ("GOOG.", "GOOG"), ("meta", "FB"), ("Nasdaq Composite", "COMP")])
def test_names_resolve_to_symbols(store, name, sym):
    assert store.resolve(name) == sym


def test_unknown_symbol_says_not_in_the_data(store):
    with pytest.raises(DataError, match="'TSLA' is not in the data; symbols available: .*AAPL"):
        store.resolve("TSLA")


@pytest.mark.parametrize("text,found", [
    ("How is Apple doing against MSFT?", ["AAPL", "MSFT"]),
    ("Find stocks on NASDAQ with RSI < 30", []),
    ("How did the Nasdaq do in 2018?", ["COMP"]),
    ("Compare the S&P 500 with Google", ["SPX", "GOOG"]),
    ("fb is lower case here, FB is not", ["FB"]),
])
def test_symbols_found_in_text(store, text, found):
    assert store.find_in_text(text) == found


def _csv(tmp_path, name, rows: list[str]):
    path = tmp_path / name
    path.write_text("symbol,date,open,high,low,close,volume\n" + "\n".join(rows) + "\n")
    return path


def test_import_adds_a_symbol(tmp_path, store):
    mine = Store(tmp_path / "s")  # its own store: the session store stays as shipped
    path = _csv(tmp_path, "acme.csv", [f"ACME,2020-01-{d:02d},10,11,9,10.5,1000" for d in range(1, 31)])
    assert mine.import_files([path]) == ["ACME"]
    assert mine.prices("acme")["close"].iloc[-1] == 10.5
    assert mine.symbols["ACME"].last == "2020-01-30"
    assert Store(mine.root).symbols["ACME"].rows == 30  # persisted


def test_bad_rows_are_refused_with_row_numbers_and_nothing_is_written(tmp_path):
    mine = Store(tmp_path / "s")
    before = sorted(p.name for p in (mine.root / "prices").iterdir())
    good = _csv(tmp_path, "good.csv", ["GOOD,2020-01-02,10,11,9,10.5,1000"])
    bad = _csv(tmp_path, "bad.csv", ["ACME,2020-01-02,10,11,9,10.5,1000", "ACME,not a date,10,11,9,10.5,1000",
                                     "ACME,2020-01-04,10,9,9,10.5,1000", "ACME,2020-01-05,10,11,9,abc,1000"])
    with pytest.raises(DataError) as err:
        mine.import_files([good, bad])
    msg = str(err.value)
    assert "3 bad row(s), nothing was imported" in msg
    assert "line 3: date is not a date" in msg and "line 4: high must be the highest" in msg
    assert "line 5: a price or the volume is not a number" in msg
    assert sorted(p.name for p in (mine.root / "prices").iterdir()) == before
    assert "GOOD" not in Store(mine.root).symbols


def test_import_never_overwrites_a_symbol(tmp_path):
    mine = Store(tmp_path / "s")
    path = _csv(tmp_path, "aapl.csv", ["AAPL,2020-01-02,10,11,9,10.5,1000"])
    with pytest.raises(DataError, match="AAPL already in the store"):
        mine.import_files([path])
    assert mine.prices("AAPL").index[-1] == pd.Timestamp("2013-03-01")


@pytest.mark.parametrize("content,message", [
    ("date,close\n2020-01-01,3\n", "missing column"),
    ("symbol,date,open,high,low,close,volume\n", "no rows"),
])
def test_malformed_files(tmp_path, content, message):
    path = tmp_path / "x.csv"
    path.write_text(content)
    with pytest.raises(DataError, match=message):
        Store(tmp_path / "s").import_files([path])


def test_parquet_import_and_unknown_suffix(tmp_path):
    mine = Store(tmp_path / "s")
    df = pd.DataFrame({"Ticker": ["ZZZ"] * 3, "Date": pd.date_range("2021-01-04", periods=3),
                       "Open": [1.0, 2, 3], "High": [2.0, 3, 4], "Low": [0.5, 1, 2], "Close": [1.5, 2.5, 3.5],
                       "Adj Close": [1.4, 2.4, 3.4], "Volume": [10, 20, 30]})
    df.to_parquet(tmp_path / "z.parquet")
    assert mine.import_files([tmp_path / "z.parquet"]) == ["ZZZ"]
    assert mine.prices("ZZZ")["adj_close"].tolist() == [1.4, 2.4, 3.4]
    (tmp_path / "z.xlsx").write_text("x")
    with pytest.raises(DataError, match="use a .csv or .parquet"):
        mine.import_files([tmp_path / "z.xlsx"])
