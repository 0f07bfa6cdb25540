"""A person's correction of a declined or failed BI answer (issue 26, round 21): the answer records its database
(`BIAnswer.connection`, the CLI session's `last`), so a correction, and only a correction, is kept for it through the
Python API and `orrery bi approve RUN --sql`, with round 19's checks on that database; a paraphrase is shown it.
A plain approval still needs an answered query; an answer saved before the field is told to ask again."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from typer.testing import CliRunner

from orrery.bi.agent import BIAnswer, bi_agent
from orrery.bi.cli import app
from orrery.bi.examples import BadCorrection, ExampleMemory, NotApprovable, approve, open_examples
from orrery.llm.scripted import ScriptedModel
from orrery.sessions import open_store

runner = CliRunner()
QUESTION = "How many nations are there?"
PARAPHRASE = "What is the number of nations?"
# the planner's wrong decline: it reads 'nations' as a headcount field the data lacks
DECLINE = {"request": "Count the nations' headcount", "kind": "cannot_answer", "values": [], "fields": ["headcount"]}
FIX = "SELECT count(*) AS n FROM nation -- the data answers it"
KEPT = "SELECT COUNT(*) AS n FROM nation"
ATTACKS = {
    "a write": "DELETE FROM nation",
    "two statements": "SELECT 1; DROP TABLE nation",
    "another database's table": "SELECT count(*) FROM album",
    "a file read": "SELECT * FROM read_csv('/etc/passwd')",
    "an attach": "ATTACH 'other.duckdb' AS other",
    "not SQL": "count the nations please",
    "empty": "",
}


def declined(store: str, replies=(DECLINE,)):
    a = bi_agent(ScriptedModel(list(replies)), db="tpch", store=store, session_id="s1", clarify=False)
    answer = a.ask(QUESTION)
    assert answer.sql is None and answer.connection == "tpch"
    return a


def shown(store: str) -> list[tuple[str, str]]:
    return [(e.question, e.sql) for e in ExampleMemory(open_examples(store, embedder=None)).shown("tpch", PARAPHRASE)]


@pytest.mark.usefixtures("bi_home")
def test_python_a_correction_of_a_declined_answer_is_kept_and_shown_for_a_paraphrase(tmp_path):
    store = str(tmp_path / "sessions.db")
    a = declined(store)
    assert a.answer.status == "declined" and a.answer.to_dict()["connection"] == "tpch"
    with pytest.raises(NotApprovable, match="only an answered query") as refused:
        approve(a, open_examples(store, embedder=None))  # a plain approval keeps nothing: no query ran
    assert "\n" not in str(refused.value) and open_examples(store, embedder=None).list("tpch") == []
    approve(a, open_examples(store, embedder=None), sql=FIX)
    assert shown(store) == [(QUESTION, KEPT)]


@pytest.mark.usefixtures("bi_home")
def test_python_a_correction_of_a_failed_answer_is_kept(tmp_path):
    store = str(tmp_path / "sessions.db")
    a = declined(store, replies=())  # the model gives no reply: the run fails before any query
    assert a.answer.status == "error"
    approve(a, open_examples(store, embedder=None), sql=FIX)
    assert shown(store) == [(QUESTION, KEPT)]


@pytest.mark.usefixtures("bi_home")
@pytest.mark.parametrize("attack", ATTACKS)
def test_python_a_bad_correction_of_a_declined_answer_stores_nothing(tmp_path, attack):
    store = str(tmp_path / "sessions.db")
    a = declined(store)
    with pytest.raises(BadCorrection, match="give one SELECT") as refused:
        approve(a, open_examples(store, embedder=None), sql=ATTACKS[attack])
    assert "\n" not in str(refused.value) and open_examples(store, embedder=None).list("tpch") == []


@pytest.mark.usefixtures("bi_home")
def test_an_answer_saved_without_its_database_still_loads_and_a_correction_is_told_to_ask_again(tmp_path):
    store = str(tmp_path / "sessions.db")
    a = declined(store)
    old = {k: v for k, v in a.answer.to_dict().items() if k != "connection"}
    a.answer = BIAnswer(**old)  # an answer saved before the field loads as it was
    assert a.answer.connection is None and a.answer.status == "declined"
    with pytest.raises(NotApprovable, match="ask the question again") as refused:
        approve(a, open_examples(store, embedder=None), sql=FIX)
    assert "\n" not in str(refused.value) and open_examples(store, embedder=None).list("tpch") == []


@pytest.mark.usefixtures("bi_home")
def test_a_correction_is_checked_on_the_answers_database_not_the_one_the_agent_moved_to(tmp_path):
    store = str(tmp_path / "sessions.db")
    a = declined(store)
    a.answer = replace(a.answer, connection="chinook")
    with pytest.raises(NotApprovable, match="the answer was on 'chinook'"):
        approve(a, open_examples(store, embedder=None), sql="SELECT count(*) FROM album")
    assert open_examples(store, embedder=None).list("chinook") == []


def cli_declined(tmp_path, monkeypatch, replies=(DECLINE,)) -> str:
    model = ScriptedModel(list(replies))
    monkeypatch.setattr("orrery.llm.resolve_model", lambda _spec=None: model)
    r = runner.invoke(app, ["ask", QUESTION, "--json"], env={"ORRERY_DATA_DIR": str(tmp_path)})
    out = json.loads(r.output)
    assert out["status"] == "declined" and out["sql"] is None and out["connection"] == "tpch"
    return out["run"]


@pytest.mark.usefixtures("bi_home")
def test_cli_approve_sql_keeps_a_correction_of_a_declined_run_and_a_plain_approve_is_refused(tmp_path, monkeypatch):
    store = str(tmp_path / "sessions.db")
    run = cli_declined(tmp_path, monkeypatch)
    r = runner.invoke(app, ["approve", run, "--store", store])
    assert isinstance(r.exception, NotApprovable) and "'declined' and ran no query" in str(r.exception)
    assert "\n" not in str(r.exception) and open_examples(store, embedder=None).list("tpch") == []
    r = runner.invoke(app, ["approve", run, "--store", store, "--sql", FIX])
    assert r.exit_code == 0, r.output
    assert "corrected" in r.output and "no query ran" in r.output and KEPT in r.output
    assert shown(store) == [(QUESTION, KEPT)]


@pytest.mark.usefixtures("bi_home")
@pytest.mark.parametrize("attack", ["a write", "two statements", "another database's table"])
def test_cli_a_bad_correction_of_a_declined_run_exits_non_zero_and_stores_nothing(tmp_path, monkeypatch, attack):
    store = str(tmp_path / "sessions.db")
    run = cli_declined(tmp_path, monkeypatch)
    r = runner.invoke(app, ["approve", run, "--store", store, "--sql", ATTACKS[attack]])
    assert isinstance(r.exception, BadCorrection) and "give one SELECT that runs on tpch" in str(r.exception)
    assert open_examples(store, embedder=None).list("tpch") == []


@pytest.mark.usefixtures("bi_home")
def test_cli_a_session_saved_before_it_recorded_its_last_answer_is_told_to_ask_again(tmp_path, monkeypatch):
    store = str(tmp_path / "sessions.db")
    run = cli_declined(tmp_path, monkeypatch)
    sessions = open_store(store)
    saved = sessions.load(run)
    sessions.save(replace(saved, data={**saved.data, "bi": {k: v for k, v in saved.data["bi"].items() if k != "last"}}))
    r = runner.invoke(app, ["approve", run, "--store", store, "--sql", FIX])
    assert isinstance(r.exception, NotApprovable) and "ask the question again" in str(r.exception)
    assert "\n" not in str(r.exception) and open_examples(store, embedder=None).list("tpch") == []
