"""Drafting a layer reads bounded samples, whatever the database's size (statements and rows counted, not
time), and finds joins whose column names share nothing from the values alone."""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp

from orrery.bi import profile
from orrery.bi.engines import SQLiteEngine
from orrery.bi.joins import discover
from orrery.bi.semantic import draft

WIDE = 300  # columns of the wide table
TALL = 30_000  # rows of the tall table
ACCOUNTS = 12_000


class Counting(SQLiteEngine):
    """A real SQLite engine that records each statement and the rows it returned."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.log: list[tuple[str, int]] = []

    def execute(self, sql, *, max_rows=None):
        result = super().execute(sql, max_rows=max_rows)
        self.log.append((sql, len(result.rows)))
        return result


@pytest.fixture
def big(tmp_path: Path) -> Counting:
    """A wide table (300 columns), a tall one (30,000 events of 12,000 accounts: `events.payer` refers to
    `accounts.id`, names unrelated) and the accounts, larger than one sample."""
    path = tmp_path / "big.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE wide (" + ", ".join(f"c{i} INTEGER" for i in range(WIDE)) + ")")
        con.executemany(
            f"INSERT INTO wide VALUES ({', '.join('?' * WIDE)})", ([r * i for i in range(WIDE)] for r in range(3000))
        )
        con.execute("CREATE TABLE accounts (id INTEGER, owner TEXT)")
        con.executemany("INSERT INTO accounts VALUES (?, ?)", ((i, f"owner {i % 700}") for i in range(ACCOUNTS)))
        con.execute("CREATE TABLE events (payer INTEGER, kind TEXT, amount REAL)")
        con.executemany(
            "INSERT INTO events VALUES (?, ?, ?)",
            (((i * 7) % 5000 + 6000, ("open", "close", "move")[i % 3], i / 10) for i in range(TALL)),
        )
    engine = Counting("big", path)
    yield engine
    engine.close()


def _every_table_read_under_a_limit(sql: str) -> bool:
    """Each table the statement reads is read by a SELECT with a LIMIT (the database scans a bounded prefix)."""
    tree = sqlglot.parse_one(sql, read="sqlite")
    return all(t.find_ancestor(exp.Select).args.get("limit") is not None for t in tree.find_all(exp.Table))


def test_drafting_a_wide_and_tall_database_reads_bounded_samples(big, monkeypatch):
    monkeypatch.setattr(profile, "COUNT_CAP", 20_000)
    sem = draft(big)
    tables = len(big.tables())
    statements = [s for s, _ in big.log if "sqlite_master" not in s]  # the declared keys: the catalogue only
    probes = [s for s in statements if " IN (" in s or "DISTINCT" in s]
    # the probes of one candidate: the referring column's distinct keys, the referenced one's uniqueness, inclusion
    assert len(statements) == 2 * tables + len(probes) and len(probes) <= 3
    assert all(_every_table_read_under_a_limit(s) for s in statements)
    rows = {t: max(n for s, n in big.log if f'FROM "{t}" LIMIT' in s and "count(*)" not in s) for t in big.tables()}
    assert rows == {
        "wide": profile.SAMPLE_CELLS // WIDE,
        "accounts": profile.SAMPLE_ROWS,
        "events": profile.SAMPLE_ROWS,
    }
    assert sum(n for _, n in big.log) <= 3 * profile.SAMPLE_ROWS + 2 * profile.PROBE_VALUES + 2 * tables
    assert "events, over 20000 rows" in sem.tables["events"]["description"]
    assert "accounts, 12000 rows" in sem.tables["accounts"]["description"]
    assert sem.tables["events"]["columns"]["kind"]["values"] is True
    # the tall table's key, found through one bounded probe of the accounts beyond their sample
    assert sem.joins == ["events.payer = accounts.id"]
    assert sem.inferred["events.payer = accounts.id"].startswith("same values, names unrelated; 100% of 1000")


def test_the_time_budget_stops_sampling_new_tables(big):
    ticks = itertools.count(step=8)  # each table starts 8 s after the one before
    samples = profile.profile(big, big.tables(), budget=20.0, clock=lambda: next(ticks))
    assert [t for t, s in samples.items() if s.rows is not None] == ["accounts", "events"]
    assert len(big.log) == 4  # two statements for each of those; `wide` is not read
    assert samples["wide"].values("c1") == [] and not samples["wide"].complete


@pytest.fixture
def shop(tmp_path: Path) -> SQLiteEngine:
    """`orders.buyer` refers to `customers.id` (no name in common), `orders.shelf` to `shelves.shelf` (same
    name); `orders.bay` holds 1..30 and so does `bays.bay_no`, which repeats (not a key); `orders.qty` (1..5)
    is found in `customers.id` by chance, and so is `orders.bay`, less often than `orders.buyer`."""
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE customers (id INTEGER, name TEXT);
            CREATE TABLE orders (buyer INTEGER, bay INTEGER, qty INTEGER, placed TEXT, shelf TEXT);
            CREATE TABLE shelves (shelf TEXT, height REAL);
            CREATE TABLE bays (bay_no INTEGER, aisle TEXT);
        """)
        con.executemany("INSERT INTO customers VALUES (?, ?)", [(i, f"Customer {i}") for i in range(1, 41)])
        con.executemany(
            "INSERT INTO orders VALUES (?, ?, ?, ?, ?)",
            [(1 + (i * 3) % 37, 1 + i % 30, 1 + i % 5, f"2024-02-{1 + i % 28:02d}", f"S{i % 50}") for i in range(300)],
        )
        con.executemany("INSERT INTO shelves VALUES (?, ?)", [(f"S{i}", i / 10) for i in range(60)])
        con.executemany("INSERT INTO bays VALUES (?, ?)", [(1 + i % 60, f"A{i % 6}") for i in range(120)])
    engine = SQLiteEngine("shop", path)
    yield engine
    engine.close()


def test_a_key_with_an_unrelated_name_is_found_by_its_values_and_ranked_below_names(shop):
    found = discover(shop, shop.tables())
    ons = [j.on for j in found]
    # the name rule first, then the one found by values alone
    assert ons == ["orders.shelf = shelves.shelf", "orders.buyer = customers.id"]
    by_values = found[1]
    assert by_values.rule == "same values" and by_values.inclusion == 1.0 and by_values.score < found[0].score
    # 'bay' values are all in bays.bay_no, but it repeats: it identifies no bay; 'qty' (1..5) is found in
    # customers.id by chance and holds too few values to say so; 'bay' (1..30) is found there too, but one
    # column joins two tables by values alone: the one reaching more customers (37 of 40, not 30)
    assert not any("bay" in on or "qty" in on for on in ons)


def test_the_draft_writes_the_values_join_with_its_evidence(shop):
    sem = draft(shop)
    assert "orders.buyer = customers.id" in sem.joins
    evidence = sem.inferred["orders.buyer = customers.id"]
    assert evidence == (
        "same values, names unrelated; 100% of 37 sampled values of orders.buyer found in customers.id, which is unique"
    )
