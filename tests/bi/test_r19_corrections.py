"""A person's correction of a wrong BI answer (issue 26, round 19): the run's question is kept with the person's SQL
instead of the agent's, through the Python API and `orrery bi approve RUN --sql/--sql-file`; a later question of
other wording on the same need is shown the fix (`ExampleMemory.shown`). The corrected SQL passes the read-only
guard and plans on the run's database before it is kept; otherwise nothing is stored."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from orrery.bi.agent import bi_agent
from orrery.bi.cli import SQL_FILE_BYTES, app
from orrery.bi.examples import BadCorrection, ExampleMemory, approve, open_examples
from orrery.errors import DataError
from orrery.llm.scripted import ScriptedModel

runner = CliRunner()
QUESTION = "How many nations are there?"
PARAPHRASE = "What is the number of nations?"
WRONG = {"sql": "SELECT count(*) AS n FROM region"}  # the agent counted the regions
FIX = "SELECT count(*) AS n FROM nation -- every nation, not the regions"
KEPT = "SELECT COUNT(*) AS n FROM nation"  # as the guard reads it: no comment
ATTACKS = {
    "a write": "DELETE FROM nation",
    "two statements": "SELECT 1; DROP TABLE nation",
    "a write behind a select": "SELECT 1 UNION ALL SELECT 2; UPDATE nation SET n_name = 'x'",
    "another database's table": "SELECT count(*) FROM album",  # chinook's
    "a file read": "SELECT * FROM read_csv('/etc/passwd')",
    "a file as a table": "SELECT * FROM '/etc/passwd'",
    "an attach": "ATTACH 'other.duckdb' AS other",
    "a write in a CTE": "WITH d AS (DELETE FROM nation RETURNING *) SELECT * FROM d",
    "a write after a comment": "SELECT n_name FROM nation -- note\n; DROP TABLE nation",
    "another catalog": "SELECT * FROM chinook.main.album",
    "a column that is not there": "SELECT count(no_such_column) FROM nation",
    "not SQL": "count the nations please",
    "empty": "   ",
    "too long": "SELECT " + "1 + " * 6000 + "1",
}


def answered(store: str):
    """An agent that answered QUESTION with the wrong SQL (`sql_mode="sql"`: the model writes the statement)."""
    model = ScriptedModel([{"request": "Count the nations", "kind": "query", "values": [], "fields": []}, WRONG, "5."])
    a = bi_agent(model, db="tpch", store=store, session_id="s1", clarify=False, sql_mode="sql")
    assert a.ask(QUESTION).rows == [[5]]
    return a


def shown(store: str, question: str = PARAPHRASE) -> list[tuple[str, str]]:
    memory = ExampleMemory(open_examples(store, embedder=None))
    return [(e.question, e.sql) for e in memory.shown("tpch", question, "duckdb")]


@pytest.mark.usefixtures("bi_home")
def test_python_a_correction_is_kept_with_the_runs_question_and_shown_for_a_paraphrase(tmp_path):
    store = str(tmp_path / "sessions.db")
    a = answered(store)
    approve(a, open_examples(store, embedder=None), sql=FIX)
    assert shown(store) == [(QUESTION, KEPT)]  # the fix, never the agent's region count
    assert ExampleMemory(open_examples(store, embedder=None)).shown("chinook", PARAPHRASE) == []  # tpch's only


@pytest.mark.usefixtures("bi_home")
@pytest.mark.parametrize("attack", ATTACKS)
def test_python_a_correction_the_guard_or_the_database_refuses_stores_nothing(tmp_path, attack):
    store = str(tmp_path / "sessions.db")
    a = answered(store)
    with pytest.raises(BadCorrection) as refused:
        approve(a, open_examples(store, embedder=None), sql=ATTACKS[attack])
    assert "\n" not in str(refused.value) and ("give one SELECT" in str(refused.value))
    assert open_examples(store, embedder=None).list("tpch") == []


@pytest.mark.usefixtures("bi_home")
def test_cli_approve_sql_keeps_the_fix_and_shows_both_sqls(tmp_path, monkeypatch):
    store = str(tmp_path / "sessions.db")
    run = cli_answered(tmp_path, monkeypatch)
    r = runner.invoke(app, ["approve", run, "--store", store, "--sql", FIX])
    assert r.exit_code == 0, r.output
    assert "corrected" in r.output and "SELECT COUNT(*) AS n FROM region" in r.output and KEPT in r.output
    assert shown(store) == [(QUESTION, KEPT)]


@pytest.mark.usefixtures("bi_home")
def test_cli_approve_sql_file_keeps_the_fix_and_refuses_a_file_too_large(tmp_path, monkeypatch):
    store = str(tmp_path / "sessions.db")
    run = cli_answered(tmp_path, monkeypatch)
    big = tmp_path / "big.sql"
    big.write_text("SELECT 1 " + " " * SQL_FILE_BYTES)
    r = runner.invoke(app, ["approve", run, "--store", store, "--sql-file", str(big)])
    assert r.exit_code != 0 and isinstance(r.exception, DataError) and "over" in str(r.exception)
    fix = tmp_path / "fix.sql"
    fix.write_text(FIX + "\n")
    r = runner.invoke(app, ["approve", run, "--store", store, "--sql-file", str(fix)])
    assert r.exit_code == 0, r.output
    assert shown(store) == [(QUESTION, KEPT)]


@pytest.mark.usefixtures("bi_home")
@pytest.mark.parametrize("attack", ["a write", "two statements", "another database's table"])
def test_cli_a_refused_correction_exits_non_zero_with_one_line_and_stores_nothing(tmp_path, monkeypatch, attack):
    store = str(tmp_path / "sessions.db")
    run = cli_answered(tmp_path, monkeypatch)
    r = runner.invoke(app, ["approve", run, "--store", store, "--sql", ATTACKS[attack]])
    assert r.exit_code != 0 and isinstance(r.exception, BadCorrection)  # `orrery` prints it as one line
    assert "\n" not in str(r.exception) and "give one SELECT that runs on tpch" in str(r.exception)
    assert open_examples(store, embedder=None).list("tpch") == []


@pytest.mark.usefixtures("bi_home")
def test_cli_a_correction_is_checked_on_the_runs_database_only(tmp_path, monkeypatch):
    store = str(tmp_path / "sessions.db")
    run = cli_answered(tmp_path, monkeypatch)
    r = runner.invoke(app, ["approve", run, "--store", store, "--sql", "SELECT count(*) FROM album", "--db", "chinook"])
    assert isinstance(r.exception, DataError) and "not the run's database 'tpch'" in str(r.exception)
    r = runner.invoke(app, ["approve", run, "--store", store, "--sql", FIX, "--sql-file", str(tmp_path / "x")])
    assert isinstance(r.exception, DataError) and "not both" in str(r.exception)
    assert open_examples(store, embedder=None).list("tpch") == []


def cli_answered(tmp_path, monkeypatch) -> str:
    model = ScriptedModel([{"request": "Count the nations", "kind": "query", "values": [], "fields": []}, WRONG, "5."])
    monkeypatch.setattr("orrery.llm.resolve_model", lambda _spec=None: model)
    monkeypatch.setattr("orrery.bi.cli._agent", _sql_mode_agent)
    out = json.loads(runner.invoke(app, ["ask", QUESTION, "--json"], env={"ORRERY_DATA_DIR": str(tmp_path)}).output)
    assert out["rows"] == [[5]]
    return out["run"]


def _sql_mode_agent(db, llm, session, clarify, quiet):
    import uuid

    return bi_agent(llm, db=db, session_id=session or uuid.uuid4().hex[:12], clarify=clarify, sql_mode="sql")


@pytest.mark.usefixtures("bi_home")
def test_cli_a_correction_of_a_run_on_a_sqlite_file_is_checked_on_the_file_named_again(tmp_path, monkeypatch):
    import sqlite3

    from orrery.errors import ConfigError

    path = tmp_path / "birds.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript("CREATE TABLE birds (bird_id INTEGER, mass_g REAL); INSERT INTO birds VALUES (1, 2500.0);")
    store = str(tmp_path / "sessions.db")
    model = ScriptedModel(
        [{"request": "Count the heavy birds", "kind": "query", "values": [], "fields": []}, {"sql": "SELECT 7"}, "7."]
    )
    monkeypatch.setattr("orrery.llm.resolve_model", lambda _spec=None: model)
    monkeypatch.setattr("orrery.bi.cli._agent", _sql_mode_agent)
    argv = ["ask", "How many birds weigh over 2 kg?", "--db", str(path), "--json"]
    out = json.loads(runner.invoke(app, argv, env={"ORRERY_DATA_DIR": str(tmp_path)}).output)
    fix = "SELECT count(*) AS n FROM birds WHERE mass_g > 2000"
    r = runner.invoke(app, ["approve", out["run"], "--store", store, "--sql", fix])
    assert isinstance(r.exception, ConfigError) and "name it again with --db" in str(r.exception)
    r = runner.invoke(app, ["approve", out["run"], "--store", store, "--sql", fix, "--db", str(path)])
    assert r.exit_code == 0, r.output
    [kept] = open_examples(store, embedder=None).list("birds")
    assert kept.sql == "SELECT COUNT(*) AS n FROM birds WHERE mass_g > 2000"
