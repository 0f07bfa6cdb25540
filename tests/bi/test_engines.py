"""The executor interface on real engines: TPC-H's 22 queries give the published answers on DuckDB and on
PostgreSQL (through the guard, as the agent runs them); registering and opening user databases."""

from __future__ import annotations

import math
from datetime import date, datetime
from decimal import Decimal

import duckdb
import pytest
import sqlglot

from orrery.bi.data import connect, connections, open_engine
from orrery.errors import ConfigError


@pytest.fixture(scope="module")
def tpch_reference(bi_home):
    """TPC-H's own queries and answers at scale 0.01, from the tpch extension (an in-memory connection)."""
    from orrery.bi.data import _build_tpch

    con = duckdb.connect()
    _build_tpch(con)
    queries = dict(con.execute("SELECT query_nr, query FROM tpch_queries()").fetchall())
    answers = dict(con.execute("SELECT query_nr, answer FROM tpch_answers() WHERE scale_factor = 0.01").fetchall())
    con.close()
    return queries, answers


def _same(cell: object, expected: str) -> bool:
    if cell is None:
        return expected in ("", "NULL")
    if isinstance(cell, int | float | Decimal):
        return math.isclose(float(cell), float(expected), rel_tol=1e-6, abs_tol=0.006)
    if isinstance(cell, datetime | date):
        return cell.isoformat()[:10] == expected
    return str(cell) == expected


def _check_answer(result, answer: str) -> None:
    header, *lines = answer.removesuffix("\n").split("\n")  # an empty line is a row of NULL
    assert len(result.columns) == len(header.split("|"))  # unaliased expressions are named per engine
    assert len(result.rows) == len(lines)
    for row, line in zip(result.rows, lines, strict=True):
        expected = line.split("|")
        assert all(_same(c, e) for c, e in zip(row, expected, strict=True)), (row, expected)


@pytest.mark.parametrize("nr", range(1, 23))
def test_tpch_queries_match_the_published_answers_on_duckdb(tpch, tpch_reference, nr):
    queries, answers = tpch_reference
    _check_answer(tpch.execute(queries[nr]), answers[nr])


@pytest.mark.parametrize("nr", range(1, 23))
def test_tpch_queries_match_the_published_answers_on_postgres(pg_tpch, tpch_reference, nr):
    queries, answers = tpch_reference
    sql = sqlglot.transpile(queries[nr], read="duckdb", write="postgres")[0]
    _check_answer(pg_tpch.execute(sql), answers[nr])


def test_chinook_is_the_same_on_duckdb_and_postgres(chinook, pg_chinook):
    sql = (
        "SELECT ar.Name, count(*) AS tracks FROM Artist ar JOIN Album al ON al.ArtistId = ar.ArtistId "
        "JOIN Track t ON t.AlbumId = al.AlbumId GROUP BY ar.Name ORDER BY tracks DESC, ar.Name LIMIT 3"
    )
    assert (
        chinook.execute(sql).rows
        == pg_chinook.execute(sql).rows
        == [("Iron Maiden", 213), ("U2", 135), ("Led Zeppelin", 114)]
    )


def test_connect_registers_sqlite_duckdb_and_postgres_by_name(bi_home, postgres, tmp_path, monkeypatch):
    from orrery.bi.data import CHINOOK_SQLITE

    tpch_file = bi_home / "db" / "tpch.duckdb"  # built by the session's fixtures
    monkeypatch.setenv("ORRERY_BI_HOME", str(tmp_path))
    assert connect(str(CHINOOK_SQLITE), name="music") == "music"
    assert connect(str(tpch_file), name="shipments") == "shipments"
    assert connect(postgres.url("chinook"), name="store") == "store"
    assert set(connections()) == {"music", "shipments", "store"}
    assert (tmp_path / "connections.yaml").stat().st_mode & 0o077 == 0  # owner-only: a URL may hold a password
    for name, dialect in [("music", "sqlite"), ("shipments", "duckdb"), ("store", "postgres")]:
        engine = open_engine(name)
        assert engine.dialect == dialect
        table, count = ("nation", 25) if name == "shipments" else ("Artist", 275)
        assert engine.execute(f"SELECT count(*) AS n FROM {table}").rows == [(count,)]
        engine.close()
    with pytest.raises(ConfigError, match="already known"):
        connect(str(CHINOOK_SQLITE), name="store")
    with pytest.raises(ConfigError, match="neither a PostgreSQL URL"):
        connect(str(tmp_path / "missing.duckdb"))
    with pytest.raises(ConfigError, match="unknown database"):
        open_engine("nosuchdb")
