"""Round 54 (bench/bi.md, round 54): one reading of 'a yes/no column', `names.yes_no`, that entity resolution's flags
(`decline.flag_values`, one-word names) and compose's flags named by their words (`compose._named_flags`) both use:
two values, one a yes (1, true, yes, y, t), one a no (0, false, no, n, f)."""

from __future__ import annotations

import pytest

from orrery.bi import decline
from orrery.bi.compose import QueryParts, compose
from orrery.bi.names import yes_no


def test_a_yes_no_pair_is_one_yes_and_one_no():
    assert yes_no({"n", "y"}) == ("y", "n") and yes_no({"0", "1"}) == ("1", "0")
    assert yes_no({"false", "true"}) == ("true", "false") and yes_no({"f", "t"}) == ("t", "f")
    assert yes_no({"1", "y"}) is None  # two yeses (decline's old reading took it)
    assert yes_no({"y"}) is None and yes_no({"y", "n", "u"}) is None and yes_no({"m", "f"}) is None


@pytest.fixture
def loans(sqlite_bi):
    """Loans with one-word flags: `defaulted` 0/1, `returned` T/F (text), `graded` 1/Y (no 'no' value)."""
    return sqlite_bi(
        "CREATE TABLE loans (loan_id INTEGER, defaulted INTEGER, returned TEXT, graded TEXT);",
        {"loans": [(i, int(i % 5 == 0), "TF"[i % 2], ("1", "Y")[i % 2]) for i in range(40)]},
    )


def test_entity_resolution_reads_a_flag_held_as_1_0_or_t_f(loans):
    assert decline.flag_values(loans, "How many defaulters and returners?") == [
        {"mention": "defaulters", "table": "loans", "column": "defaulted", "value": 1},  # the stored integer
        {"mention": "returners", "table": "loans", "column": "returned", "value": "T"},  # t/f: new in round 54
    ]
    assert decline.flag_values(loans, "How many graders?") == []  # 1 and Y are both yeses: no yes/no pair


@pytest.fixture
def survey(sqlite_bi):
    """Respondents with text flags named by two words: `coll_grad` T/F, `home_own` '1'/'0' held as text."""
    return sqlite_bi(
        "CREATE TABLE resp (resp_id INTEGER, coll_grad TEXT, home_own TEXT, age INTEGER);",
        {"resp": [(i, "TF"[i % 2], "10"[i % 4 != 0], 20 + i) for i in range(20)]},
    )


def sql_of(bi, question: str) -> str:
    return compose(QueryParts(select=["COUNT(*)"]), bi.semantic, ["resp"], [], bi.engine.dialect, question, bi.values)


def test_compose_filters_a_t_f_flag_on_t_and_a_text_1_0_flag_on_1(survey):
    sql = sql_of(survey, "how many college grads answered")
    assert "LOWER(resp.coll_grad) = 't'" in sql and survey.engine.execute(sql).rows == [(10,)]
    sql = sql_of(survey, "how many home owners answered")  # '1'/'0' as text: new in round 54
    assert "LOWER(resp.home_own) = '1'" in sql and survey.engine.execute(sql).rows == [(5,)]
