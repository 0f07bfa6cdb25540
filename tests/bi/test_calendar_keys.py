"""A fact table keyed by dates written yyyymmdd refers to a calendar dimension of every day, though its dates reach
a few of the calendar's rows (held-out #26: 708 holiday dates of 11,324 days): sparse integer codes under names
that say the same thing ('dt_sk', `date_key`; 'sk', a warehouse's surrogate key, is a key word) need no reach
(`joins._Checker._refers`). Counter-examples: ids numbered 1..n under such names, and sparse codes under names that
say nothing alike."""

from __future__ import annotations

import datetime as dt
import sqlite3

from orrery.bi.engines import SQLiteEngine
from orrery.bi.joins import discover
from orrery.bi.names import key_like

DAYS = [dt.date(2000, 1, 1) + dt.timedelta(days=i) for i in range(4000)]
KEYS = [int(d.strftime("%Y%m%d")) for d in DAYS]
EVENTS = KEYS[::37][:100]  # 100 dates of 4,000 days, a few sharing a date


def _joins(tmp_path, name: str, fact_col: str, dim_col: str, keys: list[int], events: list[int]) -> set[str]:
    path = tmp_path / f"{name}.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript(
            f"CREATE TABLE dim_day ({dim_col} INTEGER, cal_yr INTEGER, dow_nm TEXT);"
            f"CREATE TABLE evt ({fact_col} INTEGER, evt_nm TEXT, amt REAL);"
        )
        con.executemany("INSERT INTO dim_day VALUES (?, ?, ?)", [(k, k // 10000, f"d{k % 7}") for k in keys])
        rows = [(e, f"event {i % 13}", 1.5 * i) for i, e in enumerate(events + events[:10])]
        con.executemany("INSERT INTO evt VALUES (?, ?, ?)", rows)
    engine = SQLiteEngine(name, path)
    found = {j.on for j in discover(engine, engine.tables())}
    engine.close()
    return found


def test_sk_is_a_key_word():
    assert key_like("dt_sk") and key_like("ss_sold_date_sk")
    assert not key_like("risk") and not key_like("task_name")


def test_dates_keyed_yyyymmdd_refer_to_the_calendar(tmp_path):
    assert _joins(tmp_path, "cal", "dt_sk", "date_key", KEYS, EVENTS) == {"evt.dt_sk = dim_day.date_key"}


def test_ids_numbered_alike_reaching_few_rows_are_not_joined(tmp_path):
    ids = list(range(1, 4001))
    assert _joins(tmp_path, "ids", "dt_sk", "date_key", ids, ids[::37][:100]) == set()


def test_sparse_codes_under_unrelated_names_reaching_few_rows_are_not_joined(tmp_path):
    assert _joins(tmp_path, "far", "amt_ref", "date_key", KEYS, EVENTS) == set()
