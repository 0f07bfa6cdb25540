"""Approved examples in the BI agent: an approved answer's question -> SQL is shown to the SQL step for the nearest
later questions of the same database only; a rejected one never is; `orrery bi approve | reject | memory`."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from orrery.bi.agent import bi_agent
from orrery.bi.cli import app
from orrery.bi.examples import NotApprovable, approve, last_answer, open_examples, sql_parts
from orrery.errors import DataError
from orrery.llm.scripted import ScriptedModel
from orrery.sessions import open_store

runner = CliRunner()
NATIONS = "How many nations are there?"


def parts(*select, where=(), group_by=(), order_by=(), limit=None) -> dict:
    return {
        "select": list(select),
        "where": list(where),
        "group_by": list(group_by),
        "having": [],
        "order_by": list(order_by),
        "limit": limit,
    }


def plan(request: str) -> dict:
    return {"request": request, "kind": "query", "values": [], "fields": []}


def sql_call(model: ScriptedModel) -> list:
    """The messages of the SQL-parts call (the one whose system prompt asks for the parts)."""
    return next(m for m in model.seen if "fill in the parts" in m[0].content)


def agent(db, store, turns, session="s1"):
    model = ScriptedModel(turns)
    return bi_agent(model, db=db, store=store, session_id=session, clarify=False), model


@pytest.mark.usefixtures("bi_home")
def test_an_approved_answer_is_shown_for_the_nearest_question_of_its_database_only(tmp_path):
    store = str(tmp_path / "sessions.db")
    first, _ = agent("tpch", store, [plan("Count the nations"), parts("count(*) AS n"), "25 nations."])
    answer = first.ask(NATIONS)
    assert answer.status == "completed" and answer.rows == [[25]]
    example = approve(first)
    [kept] = open_examples(store, embedder=None).list("tpch")
    assert (kept.id, kept.question) == (example, NATIONS) and kept.sql.startswith("SELECT COUNT(*) AS n FROM nation")

    second, model = agent("tpch", store, [plan("Count the regions"), parts("count(*) AS n"), "5."], session="s2")
    assert second.ask("How many regions are there?").rows == [[5]]
    messages = sql_call(model)
    shot = [(m.role, m.content) for m in messages[-3:-1]]  # the approved pair sits right before the question
    assert shot == [("user", f"Question: {NATIONS}"), ("assistant", json.dumps(parts("COUNT(*) AS n")))]

    other, model = agent("chinook", store, [plan("Count the genres"), parts("count(*) AS n"), "25."], session="s3")
    assert other.ask("How many genres are there?").status == "completed"
    assert not any(NATIONS in m.content for m in sql_call(model))  # tpch's example stays with tpch


@pytest.mark.usefixtures("bi_home")
def test_leave_one_out_never_retrieves_the_question_itself(tmp_path):
    from orrery.bi.examples import use_examples

    store = str(tmp_path / "sessions.db")
    open_examples(store, embedder=None).approve("tpch", NATIONS, "SELECT count(*) AS n FROM nation")
    a, model = agent("tpch", store, [plan("Count the nations"), parts("count(*) AS n"), "25."])
    use_examples(a, store, leave_one_out=True, embedder=None)
    a.ask(NATIONS)
    assert not any(NATIONS in m.content for m in sql_call(model)[1:-1])
    b, model = agent("tpch", store, [plan("Count the nations"), "25."], session="s2")
    again = b.ask(NATIONS)  # a user asking again gets the approved query itself, with no model call for SQL
    assert again.rows == [[25]] and not any("fill in the parts" in call[0].content for call in model.seen)
    assert "reused approved query" in again.answer


@pytest.mark.usefixtures("bi_home")
def test_only_an_answered_query_can_be_approved(tmp_path):
    store = str(tmp_path / "sessions.db")
    a, _ = agent("tpch", store, [{"request": "Tomorrow's orders", "kind": "cannot_answer", "values": [], "fields": []}])
    assert a.ask("How many orders will arrive tomorrow?").status == "declined"
    with pytest.raises(NotApprovable, match="only an answered query"):
        approve(a)
    assert open_examples(store, embedder=None).list("tpch") == []


def test_sql_parts_reads_the_clauses_and_drops_the_guards_row_cap():
    sql = (
        "SELECT g.Name, count(*) AS n FROM Track t JOIN Genre g ON t.GenreId = g.GenreId WHERE t.Milliseconds > 1 "
        "AND g.Name <> 'Rock' GROUP BY g.Name HAVING count(*) > 2 ORDER BY n DESC LIMIT 1000"
    )
    assert sql_parts(sql, "duckdb", cap=1000) == {
        "select": ["Genre.Name", "COUNT(*) AS n"],
        "where": ["Track.Milliseconds > 1", "Genre.Name <> 'Rock'"],
        "group_by": ["Genre.Name"],
        "having": ["COUNT(*) > 2"],
        "order_by": ["n DESC"],
        "limit": None,
    }
    assert sql_parts("SELECT a FROM t ORDER BY a LIMIT 1", "duckdb", cap=1000)["limit"] == 1
    assert sql_parts("SELECT 1 UNION SELECT 2", "duckdb") is None
    assert sql_parts("SELECT FROM WHERE (", "duckdb") is None


def scripted(monkeypatch, turns):
    model = ScriptedModel(turns)
    monkeypatch.setattr("orrery.llm.resolve_model", lambda _spec=None: model)


@pytest.mark.usefixtures("bi_home")
def test_cli_approve_reject_list_remove(tmp_path, monkeypatch):
    store = str(tmp_path / "sessions.db")
    scripted(monkeypatch, [plan("Count the nations"), parts("count(*) AS n"), "25 nations."])
    out = json.loads(runner.invoke(app, ["ask", NATIONS, "--json"], env={"ORRERY_DATA_DIR": str(tmp_path)}).output)
    run = out["run"]
    assert last_answer(open_store(store), run) == ("tpch", NATIONS, out["sql"])

    r = runner.invoke(app, ["reject", run, "--store", store])
    assert r.exit_code == 0 and "not stored" in r.output
    assert "no approved examples for tpch" in runner.invoke(app, ["memory", "list", "--store", store]).output

    r = runner.invoke(app, ["approve", run, "--store", store])
    assert r.exit_code == 0 and "approved example" in r.output, r.output
    listed = runner.invoke(app, ["memory", "list", "--db", "tpch", "--store", store]).output
    assert NATIONS in listed and "nation" in listed
    assert runner.invoke(app, ["reject", run, "--store", store]).exit_code == 0  # a rejection removes nothing
    [example] = open_examples(store, embedder=None).list("tpch")
    assert runner.invoke(app, ["reject", run, "--store", store, "--withdraw"]).output.startswith("not stored; 1")
    assert open_examples(store, embedder=None).list("tpch") == []

    example = open_examples(store, embedder=None).approve("tpch", NATIONS, out["sql"])
    r = runner.invoke(app, ["memory", "remove", str(example), "--db", "chinook", "--store", store])
    assert isinstance(r.exception, DataError) and "chinook has no approved example" in str(r.exception)
    assert runner.invoke(app, ["memory", "remove", str(example), "--db", "tpch", "--store", store]).exit_code == 0
    assert open_examples(store, embedder=None).list("tpch") == []


@pytest.mark.parametrize("run", ["../etc", "a" * 65, "x y"])
def test_a_run_id_is_checked_before_it_is_looked_up(tmp_path, run):
    with pytest.raises(DataError, match="is not an id"):
        last_answer(open_store(tmp_path / "s.db"), run)


@pytest.mark.parametrize("command", [["memory", "list"], ["memory", "remove", "1"]])
def test_the_memory_commands_check_the_database_name(tmp_path, command):
    result = runner.invoke(app, [*command, "--db", "../etc", "--store", str(tmp_path / "s.db")])
    assert isinstance(result.exception, DataError)  # `orrery` prints it as one line and exits 2
    assert "database name '../etc' is not an id" in str(result.exception)


@pytest.mark.usefixtures("bi_home")
def test_an_unknown_run_or_one_without_a_query_is_refused(tmp_path):
    store = str(tmp_path / "sessions.db")
    with pytest.raises(NotApprovable, match="no BI session 'nope'"):
        last_answer(open_store(store), "nope")
    a, _ = agent("tpch", store, [{"request": "Tomorrow", "kind": "cannot_answer", "values": [], "fields": []}])
    a.ask("How many orders will arrive tomorrow?")
    with pytest.raises(NotApprovable, match="ran no query"):
        last_answer(open_store(store), "s1")


class Words:
    """An embedder whose vectors are bags of a few words: 'count' questions are near each other, 'list' ones apart."""

    VOCAB = ("count", "how", "many", "list", "names", "nations")

    def embed(self, texts):
        import numpy as np

        rows = np.array([[float(w in t.lower()) for w in self.VOCAB] for t in texts]) + 1e-9
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_a_pair_below_the_similarity_floor_is_not_shown(tmp_path):
    from orrery.bi.examples import ExampleMemory
    from orrery.recall import ApprovedExamples

    examples = ApprovedExamples(tmp_path / "m.db", embedder=Words())
    examples.approve("tpch", "How many orders are there?", "SELECT count(*) FROM orders")
    examples.approve("tpch", "List the names of the nations", "SELECT n_name FROM nation")
    near = ExampleMemory(examples, k=3, floor=0.5).nearest("tpch", "How many customers are there?")
    assert [e.question for e in near] == ["How many orders are there?"]
    assert len(ExampleMemory(examples, k=3, floor=None).nearest("tpch", "How many customers are there?")) == 2


@pytest.mark.usefixtures("bi_home")
def test_approving_after_a_clarification_keeps_the_question_not_the_answer(tmp_path):
    store = str(tmp_path / "sessions.db")
    plan_ = {"request": "Count customers in United", "kind": "query", "values": ["United"], "fields": []}
    model = ScriptedModel([plan_, {"intent": "exact_answer"}, parts("count(*) AS n"), "N customers."])
    a = bi_agent(model, db="tpch", store=store, session_id="s1")
    assert a.ask("How many customers are in United?").status == "paused"
    assert a.ask("UNITED KINGDOM").status == "completed"
    connection, question, sql = last_answer(open_store(store), "s1")
    assert (connection, question) == ("tpch", "How many customers are in United?") and "'UNITED KINGDOM'" in sql


LATE = "What is the average lateness per ship mode?"
LATE_PAIR = (
    "What is the average lateness of shipments by AIR?",
    "SELECT avg(l_receiptdate - l_commitdate) AS lateness FROM lineitem WHERE l_shipmode = 'AIR'",
)
LATE_PLAN = {
    "request": "Average lateness per ship mode",
    "kind": "query",
    "values": [],
    "fields": ["lateness", "ship mode"],
}
LATE_PARTS = parts("l_shipmode", "avg(l_receiptdate - l_commitdate) AS lateness", group_by=["l_shipmode"])


def full_text_agent(store, turns, session):
    """A BI agent on tpch whose approved examples are searched by full text alone (no embedding model)."""
    from orrery.bi.examples import use_examples

    a, model = agent("tpch", store, turns, session)
    use_examples(a, store, embedder=None)
    return a, model


def plan_call(model: ScriptedModel) -> list:
    return next(m for m in model.seen if m[0].content.startswith("You plan how to answer"))


@pytest.mark.usefixtures("bi_home")
def test_a_question_declined_with_an_empty_memory_is_answered_with_the_approved_pair_that_covers_it(tmp_path):
    store = str(tmp_path / "sessions.db")
    empty, _ = full_text_agent(store, [LATE_PLAN], "s1")
    declined = empty.ask(LATE)
    assert declined.status == "declined" and "'lateness'" in declined.answer  # no column says 'lateness'

    open_examples(store, embedder=None).approve("tpch", *LATE_PAIR)
    filled, model = full_text_agent(store, [LATE_PLAN, LATE_PARTS, "Seven ship modes."], "s2")
    answer = filled.ask(LATE)
    assert answer.status == "completed" and len(answer.rows) == 7  # one row per ship mode
    # the pair is evidence for 'lateness' only: its shape (one average, no grouping) is not the question's (an
    # average per ship mode), so neither the plan step nor the SQL step is shown it as an example
    assert not any(LATE_PAIR[0] in m.content for call in model.seen for m in call)


@pytest.mark.usefixtures("bi_home")
def test_a_pair_of_the_same_shape_is_shown_to_the_plan_and_sql_steps(tmp_path):
    store = str(tmp_path / "sessions.db")
    pair = (
        "What is the average lateness of shipments per order priority?",
        "SELECT o_orderpriority, avg(l_receiptdate - l_commitdate) FROM lineitem JOIN orders ON l_orderkey = "
        "o_orderkey GROUP BY o_orderpriority",
    )
    open_examples(store, embedder=None).approve("tpch", *pair)
    filled, model = full_text_agent(store, [LATE_PLAN, LATE_PARTS, "Seven ship modes."], "s1")
    assert len(filled.ask(LATE).rows) == 7
    messages = plan_call(model)  # the plan step is shown the pair, answered by the plan that leads to its query
    assert messages[-3].content.endswith(f"New request: {pair[0]}")
    assert json.loads(messages[-2].content) | {"fields": ""} == {
        "request": pair[0],
        "kind": "query",
        "values": "",
        "fields": "",
    }
    assert sql_call(model)[-3].content == f"Question: {pair[0]}"  # and the SQL step too


@pytest.mark.usefixtures("bi_home")
def test_an_unanswerable_question_stays_declined_with_an_approved_pair_that_does_not_cover_it(tmp_path):
    store = str(tmp_path / "sessions.db")
    near = (
        "What is the average discount per ship mode?",
        "SELECT l_shipmode, avg(l_discount) FROM lineitem GROUP BY l_shipmode",
    )
    open_examples(store, embedder=None).approve("tpch", *near)
    rent = {
        "request": "Average warehouse rent per ship mode",
        "kind": "query",
        "values": [],
        "fields": ["warehouse rent", "ship mode"],
    }
    a, model = full_text_agent(store, [rent], "s1")
    answer = a.ask("What is the average warehouse rent per ship mode?")
    assert answer.status == "declined" and "'warehouse rent'" in answer.answer
    # the pair is near (retrieved for this question) but has no 'warehouse rent': evidence, no licence; the
    # question's shape declines it before any model call
    nearest = a.bi.approved.nearest("tpch", "What is the average warehouse rent per ship mode?")
    assert [e.question for e in nearest] == [near[0]] and model.seen == []


@pytest.mark.usefixtures("bi_home")
def test_a_rejected_answer_never_reaches_a_prompt_nor_the_decline_judgment(tmp_path):
    store = str(tmp_path / "sessions.db")
    examples = open_examples(store, embedder=None)
    assert examples.reject("tpch", *LATE_PAIR) == 0  # a rejection stores nothing
    examples.approve("tpch", *LATE_PAIR)
    assert examples.reject("tpch", *LATE_PAIR) == 1  # and withdraws the approval of the same pair
    a, model = full_text_agent(store, [LATE_PLAN], "s1")
    assert a.ask(LATE).status == "declined"
    assert not any(LATE_PAIR[0] in m.content or "l_commitdate" in m.content for call in model.seen for m in call)


def test_the_plan_of_an_approved_query_names_the_values_and_fields_its_question_wrote():
    from orrery.bi.examples import plan_reply

    sql = "SELECT count(*) FROM Track t JOIN Genre g ON t.GenreId = g.GenreId WHERE g.Name = 'Rock' AND t.Milliseconds > 1"
    assert plan_reply("How many Rock tracks last over a millisecond?", sql, "duckdb") == {
        "request": "How many Rock tracks last over a millisecond?",
        "kind": "query",
        "values": "Rock",
        "fields": "milliseconds",
    }
    assert plan_reply("Count them", "not sql (", "duckdb")["values"] == ""


# -- which pairs fit; reusing an approved query --------------------------------------------------------------
ROCK = (
    "How many tracks are in the Rock genre?",
    "SELECT count(*) FROM Track t JOIN Genre g ON t.GenreId = g.GenreId WHERE g.Name = 'Rock'",
)
BRAZIL = ("How many customers live in Brazil?", "SELECT count(*) FROM Customer WHERE Country = 'Brazil'")


def chinook_agent(store, turns, session="s1"):
    from orrery.bi.examples import use_examples

    a, model = agent("chinook", store, turns, session)
    use_examples(a, store, embedder=None, leave_one_out=True)
    return a, model


def wrote_sql(model: ScriptedModel) -> bool:
    return any("fill in the parts" in call[0].content for call in model.seen)


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("What was the population of India in 2000?", {"time"}),
        ("What was the total population of South Asia in 2010?", {"sum", "time"}),
        ("What is the average delay per ship mode?", {"avg", "group"}),
        ("What are the total sales by region?", {"sum", "group"}),
        ("How many movies were directed by Steven Spielberg?", {"count"}),  # who, not a grouping
        ("How many line items were shipped by AIR?", {"count"}),
        ("Which genre has the most tracks?", {"extreme"}),
        ("In how many distinct cities do customers live?", {"count", "distinct"}),
        ("List the names of all genres.", set()),
    ],
)
def test_a_questions_shape_is_read_from_its_words(question, asked):
    from orrery.bi.examples import shape

    assert shape(question) == asked


def test_a_querys_shape_is_read_by_sqlglot_and_the_row_cap_is_no_year():
    from orrery.bi.examples import sql_shape

    assert sql_shape("SELECT a FROM t LIMIT 2000") == set()
    assert sql_shape("SELECT count(DISTINCT a) FROM t WHERE y LIKE '1995%'") == {"count", "distinct", "time"}
    assert sql_shape("SELECT g, sum(x) FROM t GROUP BY g ORDER BY 2 DESC LIMIT 1") == {"sum", "group", "extreme"}
    assert sql_shape("SELECT FROM (") is None


def test_a_pair_is_shown_only_for_a_question_of_its_shape_when_its_sql_has_that_shape(tmp_path):
    from orrery.bi.examples import ExampleMemory
    from orrery.recall import ApprovedExamples

    examples = ApprovedExamples(tmp_path / "m.db", embedder=None)
    examples.approve("world", "What was the population of India in 2000?", "SELECT population FROM t WHERE year = 2000")
    examples.approve(
        "world",
        "What was the total population of Europe in 1990?",
        "SELECT sum(population) FROM t WHERE region = 'Europe' AND year = 1990",
    )
    examples.approve(  # its words ask for an average its SQL does not compute: it shows no average
        "world", "What was the average population of Asia in 1990?", "SELECT population FROM t WHERE year = 1990"
    )
    memory = ExampleMemory(examples, k=5, floor=None)
    question = "What was the total population of South Asia in 2010?"
    assert len(memory.nearest("world", question)) == 3  # all near by words
    assert [e.question for e in memory.shown("world", question)] == ["What was the total population of Europe in 1990?"]
    assert memory.shown("world", "What was the average population of Africa in 2010?") == []


@pytest.mark.usefixtures("bi_home")
def test_a_value_swapped_question_reuses_the_approved_sql_without_a_model_call_for_sql(tmp_path):
    store = str(tmp_path / "sessions.db")
    example = open_examples(store, embedder=None).approve("chinook", *ROCK)
    a, model = chinook_agent(store, [plan("Count the jazz tracks"), "130 tracks."])
    answer = a.ask("How many tracks are in the jazz genre?")  # the value as the user writes it
    assert answer.status == "completed" and answer.rows == [[130]] and not wrote_sql(model)
    assert "g.Name = 'Jazz'" in answer.sql  # as the column stores it, put in the AST's literal
    assert f"reused approved query #{example}" in answer.answer and "'Rock' -> 'jazz'" in answer.answer
    build = next(t for t in answer.todos if t["tool"] == "query_builder")
    assert json.loads(build["result"])["reused"] == {
        "example": example,
        "question": ROCK[0],
        "values": {"Rock": "jazz"},
    }


def test_a_year_or_a_number_is_swapped_in_the_ast_and_other_words_must_match():
    from orrery.bi.examples import value_swap

    def swapped(approved, sql, question):
        got = value_swap(approved, sql, question, "duckdb")
        return None if got is None else [(s.kind, s.old, s.new) for s in got[1]]

    year = (
        "How many movies were released in 1995?",
        "SELECT count(*) FROM omdb WHERE Released LIKE '1995%' LIMIT 1000",
    )
    assert swapped(*year, "how many movies were released in 2001") == [("year", "1995", "2001")]
    assert swapped(*year, "How many movies were released in March?") is None  # a year must replace a year
    assert swapped(*year, "How many movies were made in 2001?") is None  # another word: another question
    assert swapped(*ROCK, "How many albums are in the Jazz genre?") is None
    price = ("How many tracks cost more than 0.99?", "SELECT count(*) FROM Track WHERE UnitPrice > 0.99")
    assert swapped(*price, "How many tracks cost more than 1.99?") == [("number", "0.99", "1.99")]
    # the end of a range follows from the year the question wrote: swapping only the start would be wrong
    ranged = (
        "How many invoices were issued in 2023?",
        "SELECT count(*) FROM Invoice WHERE InvoiceDate >= '2023-01-01' AND InvoiceDate < '2024-01-01'",
    )
    assert swapped(*ranged, "How many invoices were issued in 2022?") is None
    orders = ("How many orders were placed in 1995?", "SELECT count(*) FROM orders WHERE year(o_orderdate) = 1995")
    assert swapped(*orders, "How many orders were placed in 1996?") == [("number", "1995", "1996")]
    assert swapped(*orders, "How many orders were placed in 19?") is None  # a year for a year
    # the value written twice: which one a new value replaces is ambiguous
    twice = ("Is Rock bigger than Rock?", "SELECT count(*) FROM Genre WHERE Name = 'Rock'")
    assert swapped(*twice, "Is Jazz bigger than Rock?") is None


@pytest.mark.usefixtures("bi_home")
def test_a_question_whose_aggregate_differs_gets_neither_the_pair_nor_its_sql(tmp_path):
    store = str(tmp_path / "sessions.db")
    open_examples(store, embedder=None).approve(
        "chinook",
        "What is the total of the invoices billed to Germany?",
        "SELECT sum(Total) FROM Invoice WHERE BillingCountry = 'Germany'",
    )
    a, model = chinook_agent(
        store,
        [plan("Average invoice total in France"), parts("avg(Total) AS a", where=["BillingCountry = 'France'"]), "5.5"],
    )
    answer = a.ask("What is the average of the invoices billed to France?")
    assert answer.status == "completed" and "AVG" in answer.sql.upper() and wrote_sql(model)
    shown = [m.content for call in model.seen for m in call]
    assert not any("invoices billed to Germany" in c or "sum(Total)" in c for c in shown)


@pytest.mark.usefixtures("bi_home")
def test_a_value_the_compared_column_does_not_hold_falls_back_to_the_model(tmp_path):
    store = str(tmp_path / "sessions.db")
    open_examples(store, embedder=None).approve("chinook", *BRAZIL)
    turns = [plan("Count customers in Paris"), parts("count(*) AS n", where=["City = 'Paris'"]), "2."]
    a, model = chinook_agent(store, turns)
    answer = a.ask("How many customers live in Paris?")  # a city, not a country: the approved query does not fit
    assert answer.status == "completed" and "City = 'Paris'" in answer.sql and wrote_sql(model)
    assert "reused" not in answer.answer


@pytest.mark.usefixtures("bi_home")
def test_a_rejected_pair_is_never_reused(tmp_path):
    store = str(tmp_path / "sessions.db")
    examples = open_examples(store, embedder=None)
    assert examples.reject("chinook", *ROCK) == 0  # never stored
    examples.approve("chinook", *BRAZIL)  # the connection has approved pairs, none of them this one
    examples.approve("chinook", *ROCK)
    assert examples.reject("chinook", *ROCK) == 1  # approved, then rejected: withdrawn
    turns = [plan("Count the jazz tracks"), parts("count(*) AS n", where=["g.Name = 'Jazz'"]), "130."]
    a, model = chinook_agent(store, turns)
    answer = a.ask("How many tracks are in the Jazz genre?")
    assert wrote_sql(model) and "reused" not in answer.answer


@pytest.mark.usefixtures("bi_home")
def test_a_year_swapped_question_counts_the_other_year(tmp_path):
    store = str(tmp_path / "sessions.db")
    sql = "SELECT count(*) FROM orders WHERE year(o_orderdate) = 1995"
    open_examples(store, embedder=None).approve("tpch", "How many orders were placed in 1995?", sql)
    a, model = agent("tpch", store, [plan("Count the orders of 1996"), "N orders."])
    answer = a.ask("How many orders were placed in 1996?")
    expected = a.bi.engine.execute("SELECT count(*) FROM orders WHERE year(o_orderdate) = 1996").rows
    assert answer.rows == [list(r) for r in expected] and "= 1996" in answer.sql and not wrote_sql(model)
