"""Read-only by construction: the guard refuses every class of unsafe statement on both dialects, and
the engines beneath it refuse to write even when a statement is sent past the guard."""

from __future__ import annotations

import pytest

from orrery.bi.engines import DuckDBEngine, Limits, PostgresEngine, QueryError, SQLiteEngine
from orrery.bi.guard import UnsafeQuery, check

REFUSED = {
    "insert": "INSERT INTO nation VALUES (99, 'X', 1, 'c')",
    "update": "UPDATE nation SET n_name = 'X'",
    "delete": "DELETE FROM nation",
    "merge": "MERGE INTO nation USING region ON n_regionkey = r_regionkey WHEN MATCHED THEN DELETE",
    "create": "CREATE TABLE x AS SELECT 1",
    "drop": "DROP TABLE nation",
    "alter": "ALTER TABLE nation ADD COLUMN x INT",
    "truncate": "TRUNCATE nation",
    "data-modifying cte": "WITH d AS (DELETE FROM nation RETURNING *) SELECT * FROM d",
    "insert cte": "WITH d AS (INSERT INTO nation VALUES (1, 'x', 1, 'c') RETURNING *) SELECT * FROM d",
    "select into": "SELECT * INTO copy_of_nation FROM nation",
    "copy to": "COPY nation TO '/tmp/nation.csv'",
    "copy program": "COPY nation FROM PROGRAM 'id'",
    "attach": "ATTACH '/tmp/other.db' AS other",
    "detach": "DETACH other",
    "install": "INSTALL httpfs",
    "load": "LOAD httpfs",
    "pragma": "PRAGMA database_list",
    "set": "SET threads = 1",
    "set config": "SELECT set_config('default_transaction_read_only', 'off', false)",
    "export": "EXPORT DATABASE '/tmp/dump'",
    "call": "CALL dbgen(sf = 1)",
    "read_csv": "SELECT * FROM read_csv('/etc/passwd')",
    "read_parquet": "SELECT * FROM read_parquet('s3://bucket/x.parquet')",
    "read_text": "SELECT * FROM read_text('/etc/passwd')",
    "glob": "SELECT * FROM glob('/home/*')",
    "file as table": "SELECT * FROM '/etc/passwd'",
    "quoted file as table": 'SELECT * FROM "data.csv"',
    "httpfs url": "SELECT * FROM 'https://example.com/x.parquet'",
    "pg_read_file": "SELECT pg_read_file('/etc/passwd')",
    "lo_import": "SELECT lo_import('/etc/passwd')",
    "lo_export": "SELECT lo_export(1234, '/tmp/x')",
    "dblink": "SELECT * FROM dblink('host=evil', 'SELECT 1') AS t(a int)",
    "query string": "SELECT query_to_xml('DELETE FROM nation', true, true, '')",
    "nextval": "SELECT nextval('seq')",
    "two statements": "SELECT 1; DROP TABLE nation",
    "two selects": "SELECT 1; SELECT 2",
    "explain analyze": "EXPLAIN ANALYZE SELECT 1",
    "for update": "SELECT * FROM nation FOR UPDATE",
    "vacuum": "VACUUM",
    "grant": "GRANT ALL ON nation TO public",
    "transaction": "BEGIN",
    "not sql": "show me the money",
}


@pytest.mark.parametrize("dialect", ["duckdb", "postgres"])
@pytest.mark.parametrize("case", sorted(REFUSED))
def test_guard_refuses_every_unsafe_class(case, dialect):
    with pytest.raises(UnsafeQuery, match="refused"):
        check(REFUSED[case], dialect)


@pytest.mark.parametrize("dialect", ["duckdb", "postgres", "sqlite"])
def test_guard_returns_one_select_with_a_row_limit(dialect):
    assert check("select n_name from nation", dialect, limit=50) == "SELECT n_name FROM nation LIMIT 50"
    assert check("SELECT n_name FROM nation LIMIT 5", dialect, limit=50).endswith("5")  # a smaller limit stays
    assert check("SELECT n_name FROM nation LIMIT 500", dialect, limit=50).endswith("LIMIT 50")
    union = check("SELECT 1 AS a UNION ALL SELECT 2", dialect, limit=7)
    assert union.startswith("SELECT 1 AS a UNION ALL SELECT 2") and union.endswith("LIMIT 7")
    assert check("(SELECT 1)", dialect).startswith("SELECT 1")


def test_guard_keeps_reading_functions_and_regenerates_the_statement():
    sql = "SELECT EXTRACT(YEAR FROM o_orderdate) AS y, count(*) FROM orders /* ; DROP TABLE x */ GROUP BY 1"
    out = check(sql, "duckdb")
    assert "DROP" not in out and out.startswith("SELECT EXTRACT(YEAR FROM o_orderdate) AS y")


def test_guard_rejects_unknown_dialect():
    with pytest.raises(UnsafeQuery, match="dialect"):
        check("SELECT 1", "oracle")


WRITES = [
    "INSERT INTO nation VALUES (99, 'X', 1, 'c')",
    "DELETE FROM nation",
    "CREATE TABLE x (a INT)",
    "DROP TABLE nation",
    "UPDATE nation SET n_name = 'X'",
]


@pytest.mark.parametrize("sql", WRITES)
def test_duckdb_connection_cannot_write_even_past_the_guard(tpch, sql):
    with pytest.raises(QueryError):
        tpch._run(sql)
    assert tpch.execute("SELECT count(*) FROM nation").rows == [(25,)]


@pytest.mark.parametrize(
    "sql",
    [
        "COPY nation TO '/tmp/orrery-bi-leak.csv'",
        "SELECT * FROM read_csv('/etc/passwd')",
        "ATTACH '/tmp/orrery-bi-other.db' AS o",
        "SET threads = 1",
        "LOAD httpfs",
    ],
)
def test_duckdb_connection_cannot_reach_files_or_settings_past_the_guard(tpch, sql):
    with pytest.raises(QueryError):
        tpch._run(sql)


@pytest.mark.parametrize("sql", WRITES + ["CREATE TABLE public.x (a int)"])
def test_postgres_reader_cannot_write_even_past_the_guard(pg_tpch, sql):
    with pytest.raises(QueryError, match="read-only|permission denied|must be owner"):
        pg_tpch._run(sql)
    assert pg_tpch.execute("SELECT count(*) FROM nation").rows == [(25,)]


def test_postgres_reader_cannot_turn_read_only_off(pg_tpch):
    """Even after switching the session out of read-only mode, the role has no write privilege."""
    pg_tpch.con.execute("SET default_transaction_read_only = off")  # outside the guard, by hand
    pg_tpch.con.commit()
    try:
        pg_tpch.con.read_only = False
        with pytest.raises(QueryError, match="permission denied"):
            pg_tpch._run("DELETE FROM nation")
    finally:
        pg_tpch.con.read_only = True
    assert pg_tpch.execute("SELECT count(*) FROM nation").rows == [(25,)]


def test_sqlite_connection_cannot_write_even_past_the_guard(bi_home):
    from orrery.bi.data import CHINOOK_SQLITE

    engine = SQLiteEngine("chinook", CHINOOK_SQLITE)
    for sql in ["DELETE FROM Artist", "CREATE TABLE x (a)", "ATTACH '/tmp/o.db' AS o", "PRAGMA query_only = OFF"]:
        with pytest.raises(QueryError):
            engine._run(sql)
    assert engine.execute("SELECT count(*) FROM Artist").rows == [(275,)]


def test_row_cap_and_truncation_flag(tpch, pg_tpch):
    for engine in (tpch, pg_tpch):
        old = engine.limits
        engine.limits = Limits(max_rows=10, timeout=old.timeout)
        try:
            r = engine.execute("SELECT o_orderkey FROM orders ORDER BY o_orderkey")
        finally:
            engine.limits = old
        assert len(r.rows) == 10 and r.truncated and r.rows[0] == (1,)


def test_statement_timeout_on_duckdb_and_postgres(bi_home, postgres):
    from orrery.bi.data import builtin_path

    slow = "SELECT count(*) FROM lineitem a, lineitem b WHERE a.l_comment < b.l_comment"
    engines = [
        DuckDBEngine("tpch", builtin_path("tpch"), Limits(timeout=0.3)),
        PostgresEngine("tpch", postgres.url("tpch"), Limits(timeout=0.3)),
    ]
    for engine in engines:
        with pytest.raises(QueryError, match="stopped after 0.3 s"):
            engine.execute(slow)
        assert engine.execute("SELECT 1 AS one").rows == [(1,)]  # the connection is usable after
        engine.close()


@pytest.mark.parametrize("sql", ["SELECT 1 LIMIT 1.5", "SELECT 1 LIMIT 1e3", "SELECT 1 FETCH FIRST 2.5 ROWS ONLY"])
def test_a_limit_that_is_not_a_whole_number_is_a_refusal(sql):
    with pytest.raises(UnsafeQuery, match="is not a whole number of rows"):
        check(sql, "duckdb")


def _bounded(engine, sql: str, **limits):
    old = engine.limits
    engine.limits = Limits(**{"timeout": old.timeout, **limits})
    try:
        return engine.execute(sql)
    finally:
        engine.limits = old


def test_results_are_bounded_in_bytes_on_every_engine(tpch, pg_tpch, bi_home):
    from orrery.bi.data import CHINOOK_SQLITE

    sqlite = SQLiteEngine("chinook", CHINOOK_SQLITE)
    big = [
        (tpch, "SELECT repeat('x', 3000000) AS s, 1 AS n"),
        (pg_tpch, "SELECT repeat('x', 3000000) AS s, 1 AS n"),
        (sqlite, "SELECT replace(hex(zeroblob(1500000)), '0', 'x') AS s, 1 AS n"),
    ]
    for engine, sql in big:
        r = engine.execute(sql)  # default bounds: one 3 MB cell comes back cut, with a note
        cell = r.rows[0][0]
        assert cell.startswith("x" * 1000) and cell.endswith("...[cut: 3,000,000 long]"), engine.dialect
        assert len(cell) < 70_000 and r.rows[0][1] == 1 and r.truncated
        assert "1 value(s) longer than 65,536 characters/bytes were cut" in r.note and r.to_dict()["note"] == r.note
        many = _bounded(
            engine,
            "SELECT name FROM (SELECT 'abcdefghij' AS name) t, (SELECT 1 AS k UNION ALL SELECT 2 "
            "UNION ALL SELECT 3 UNION ALL SELECT 4) u",
            max_result_bytes=25,
        )
        assert many.rows == [("abcdefghij",), ("abcdefghij",)] and many.truncated
        assert many.note == "only the first 2 of 4 rows fit in 25 bytes"
    for engine, sql in [
        (tpch, "SELECT list(i) AS l FROM range(100000) t(i)"),
        (pg_tpch, "SELECT array_agg(i) AS l FROM generate_series(1, 100000) AS i"),
    ]:
        nested = engine.execute(sql)  # 100,000 numbers in one value: over 65,536 bytes counted as 16 each
        assert nested.rows == [("[a list of 100,000 items, over 65,536 bytes: cut]",)] and nested.truncated
    small = tpch.execute("SELECT n_name FROM nation ORDER BY n_name LIMIT 2")
    assert not small.truncated and small.note == "" and "note" not in small.to_dict()
    sqlite.close()


def test_a_file_that_is_not_a_database_is_a_query_error(tmp_path):
    (tmp_path / "x.duckdb").write_text("not a database\n" * 20)
    (tmp_path / "y.sqlite").write_bytes(b"SQLite format 3\x00" + b"\xff" * 5000)
    with pytest.raises(QueryError, match="cannot be opened as a DuckDB database"):
        DuckDBEngine("x", tmp_path / "x.duckdb")
    with pytest.raises(QueryError, match="cannot be read as a SQLite database"):
        SQLiteEngine("y", tmp_path / "y.sqlite")
