"""The store: filled from the packages, symbols resolved by name, imports all-or-nothing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

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


@pytest.mark.parametrize(
    "name,sym",
    [
        ("Apple", "AAPL"),
        ("aapl", "AAPL"),
        ("$MSFT", "MSFT"),
        ("S&P 500", "SPX"),
        ("Microsoft Corp.", "MSFT"),
        ("GOOG.", "GOOG"),
        ("meta", "FB"),
        ("Nasdaq Composite", "COMP"),
    ],
)
def test_names_resolve_to_symbols(store, name, sym):
    assert store.resolve(name) == sym


def test_unknown_symbol_says_not_in_the_data(store):
    with pytest.raises(DataError, match="'TSLA' is not in the data; symbols available: .*AAPL"):
        store.resolve("TSLA")


@pytest.mark.parametrize(
    "text,found",
    [
        ("How is Apple doing against MSFT?", ["AAPL", "MSFT"]),
        ("Find stocks on NASDAQ with RSI < 30", []),
        ("How did the Nasdaq do in 2018?", ["COMP"]),
        ("Compare the S&P 500 with Google", ["SPX", "GOOG"]),
        ("fb is lower case here, FB is not", ["FB"]),
    ],
)
def test_symbols_found_in_text(store, text, found):
    assert store.find_in_text(text) == found


def _csv(tmp_path, name, rows: list[str]):
    path = tmp_path / name
    path.write_text("symbol,date,open,high,low,close,volume\n" + "\n".join(rows) + "\n")
    return path


def test_import_adds_a_symbol(tmp_path):
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
    bad = _csv(
        tmp_path,
        "bad.csv",
        [
            "ACME,2020-01-02,10,11,9,10.5,1000",
            "ACME,not a date,10,11,9,10.5,1000",
            "ACME,2020-01-04,10,9,9,10.5,1000",
            "ACME,2020-01-05,10,11,9,abc,1000",
        ],
    )
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


@pytest.mark.parametrize(
    "content,message",
    [
        ("date,close\n2020-01-01,3\n", "missing column"),
        ("symbol,date,open,high,low,close,volume\n", "no rows"),
    ],
)
def test_malformed_files(tmp_path, content, message):
    path = tmp_path / "x.csv"
    path.write_text(content)
    with pytest.raises(DataError, match=message):
        Store(tmp_path / "s").import_files([path])


def test_parquet_import_and_unknown_suffix(tmp_path):
    mine = Store(tmp_path / "s")
    df = pd.DataFrame(
        {
            "Ticker": ["ZZZ"] * 3,
            "Date": pd.date_range("2021-01-04", periods=3),
            "Open": [1.0, 2, 3],
            "High": [2.0, 3, 4],
            "Low": [0.5, 1, 2],
            "Close": [1.5, 2.5, 3.5],
            "Adj Close": [1.4, 2.4, 3.4],
            "Volume": [10, 20, 30],
        }
    )
    df.to_parquet(tmp_path / "z.parquet")
    assert mine.import_files([tmp_path / "z.parquet"]) == ["ZZZ"]
    assert mine.prices("ZZZ")["adj_close"].tolist() == [1.4, 2.4, 3.4]
    (tmp_path / "z.xlsx").write_text("x")
    with pytest.raises(DataError, match="use a .csv or .parquet"):
        mine.import_files([tmp_path / "z.xlsx"])


# -- issue 19: concurrent imports, calendar days, integer dates, remove, size caps ------------------------------
@pytest.fixture()
def mine(store, tmp_path) -> Store:
    """A store of its own (the session store's shipped files copied): the session store stays as shipped."""
    shutil.copytree(store.root, tmp_path / "s")
    return Store(tmp_path / "s")


_SLOW_IMPORT = """
import sys, time
from orrery.markets.store import Store
write = Store._write_batch
def slow(self, *a, **kw):  # widen the window between the catalog check and the write
    time.sleep(1.0)
    return write(self, *a, **kw)
Store._write_batch = slow
try:
    print("OK", Store(sys.argv[1]).import_files([sys.argv[2]]))
except Exception as exc:
    print("REFUSED", exc)
"""


@pytest.mark.integration  # a real subprocess
def test_two_processes_importing_one_new_symbol_add_it_once(mine, tmp_path):
    path = _csv(tmp_path, "acme.csv", [f"ACME,2020-01-{d:02d},10,11,9,10.5,1000" for d in range(1, 11)])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _SLOW_IMPORT, str(mine.root), str(path)],
            env=env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(2)
    ]
    outs = sorted(p.communicate(timeout=120)[0].strip() for p in procs)
    assert outs[0].startswith("OK ['ACME']") and outs[1].startswith("REFUSED ACME already in the store"), outs
    again = Store(mine.root)
    assert again.symbols["ACME"].rows == 10 and len(again.prices("ACME")) == 10


def test_a_utc_offset_keeps_the_day_it_was_written_for(mine, tmp_path):
    path = tmp_path / "tz.csv"
    path.write_text(
        "symbol,date,open,high,low,close,volume\nTZA,2024-01-02T20:00:00-05:00,10,11,9,10.5,100\n"
        "TZA,2024-01-03T23:30:00+01:00,10,11,9,10.5,100\nTZA,2024-01-04T00:00:00Z,10,11,9,10.5,100\n"
    )
    mine.import_files([path])
    assert [f"{d:%Y-%m-%d %H:%M}" for d in mine.prices("TZA").index] == [
        "2024-01-02 00:00",
        "2024-01-03 00:00",
        "2024-01-04 00:00",
    ]


def test_a_tz_aware_parquet_is_read_on_its_own_calendar_day(mine, tmp_path):
    ny = pd.DatetimeIndex(["2024-01-02 20:00", "2024-01-03 20:00"]).tz_localize("America/New_York")
    df = pd.DataFrame(
        {"symbol": "NYC", "date": ny, "open": 10.0, "high": 11.0, "low": 9.0, "close": 10.5, "volume": 100}
    )
    df.to_parquet(tmp_path / "ny.parquet")
    mine.import_files([tmp_path / "ny.parquet"])
    assert [f"{d:%Y-%m-%d}" for d in mine.prices("NYC").index] == ["2024-01-02", "2024-01-03"]


def test_intraday_rows_are_aggregated_to_one_daily_row(mine, tmp_path):
    path = _csv(
        tmp_path,
        "intra.csv",
        [
            "INTRA,2024-01-02 09:30,10,12,9,11,100",
            "INTRA,2024-01-02 16:00,11,15,8,14,50",
            "INTRA,2024-01-02 12:00,11,13,10,12,25",
            "INTRA,2024-01-03 10:00,14,14,13,13.5,7",
        ],
    )
    mine.import_files([path])
    got = mine.prices("INTRA")
    assert list(got.index) == [pd.Timestamp("2024-01-02"), pd.Timestamp("2024-01-03")]
    day = got.iloc[0]  # open of the first, high max, low min, close of the last (by time), volume summed
    assert (day["open"], day["high"], day["low"], day["close"], day["volume"]) == (10, 15, 8, 14, 175)


def test_parquet_integer_dates_are_read_as_yyyymmdd_and_others_refused(mine, tmp_path):
    cols = {"open": 10.0, "high": 11.0, "low": 9.0, "close": 10.5, "volume": 100}
    pd.DataFrame({"symbol": "INTD", "date": [20240102, 20240103], **cols}).to_parquet(tmp_path / "i.parquet")
    mine.import_files([tmp_path / "i.parquet"])
    assert [f"{d:%Y-%m-%d}" for d in mine.prices("INTD").index] == ["2024-01-02", "2024-01-03"]
    pd.DataFrame({"symbol": "EPOCH", "date": [1704153600, 1704240000], **cols}).to_parquet(tmp_path / "e.parquet")
    with pytest.raises(DataError, match="row 1: date is not a date"):
        mine.import_files([tmp_path / "e.parquet"])
    assert "EPOCH" not in mine.symbols


def test_remove_undoes_an_import_and_refuses_shipped_symbols(mine, tmp_path):
    before = sorted(p.name for sub in ("prices", "symbols") for p in (mine.root / sub).iterdir())
    mine.import_files(
        [_csv(tmp_path, "two.csv", ["ONE,2020-01-02,10,11,9,10.5,1000", "TWO,2020-01-02,10,11,9,10.5,1"])]
    )
    assert mine.remove("one").symbol == "ONE"
    assert "ONE" not in Store(mine.root).symbols and Store(mine.root).symbols["TWO"].rows == 1  # its batch kept TWO
    mine.remove("TWO")
    assert sorted(p.name for sub in ("prices", "symbols") for p in (mine.root / sub).iterdir()) == before
    with pytest.raises(DataError, match="AAPL is shipped with orrery .* is not removed"):
        mine.remove("AAPL")
    with pytest.raises(DataError, match="'NOPE' is not in the store"):
        mine.remove("NOPE")
    assert len(Store(mine.root).prices("AAPL")) > 3000


def test_an_import_file_over_the_cap_is_refused_before_it_is_read(mine, tmp_path, monkeypatch):
    path = _csv(tmp_path, "big.csv", [f"BIG,2020-01-{d:02d},10,11,9,10.5,1000" for d in range(1, 29)])
    monkeypatch.setattr(pd, "read_csv", lambda *a, **k: pytest.fail("read before the size check"))
    with pytest.raises(DataError, match=r"import file .*big.csv is \d{3} bytes, over the 500-byte limit"):
        mine.import_files([path], max_bytes=500)


@pytest.mark.parametrize(
    "name,content,message",
    [
        ("bin.csv", bytes(range(256)) * 8, "is not UTF-8 text"),
        ("bin.parquet", b"PAR1" + bytes(range(256)) * 8, "is not a readable Parquet file"),
        ("empty.csv", b"", "is empty"),
        ("blank.parquet", b"", "is empty"),
    ],
)
def test_unreadable_import_files_are_data_errors(mine, tmp_path, name, content, message):
    (tmp_path / name).write_bytes(content)
    with pytest.raises(DataError, match=message):
        mine.import_files([tmp_path / name])
