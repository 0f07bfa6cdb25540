"""Round 52 (bench/bi.md, round 52), rule A: a yes/no column the question names by the words of its name ('college grads'
of `coll_grad`, 'stem fields' of `stem_flg`, 'chose' of `chosen_flg`), which the SQL step's query does not read,
filters on its yes value (its no value when negated: 'non-stem'), joined through the layer. Not when the question
names it both ways, nor when its words are apart, nor for a one-word name (entity resolution's `flag_values`)."""

from __future__ import annotations

import pytest

from orrery.bi.compose import QueryParts, compose

FIELDS = [(f"F{i:02d}", f"Field {i}", "Y" if i % 3 == 0 else "N") for i in range(12)]


@pytest.fixture
def degrees(sqlite_bi):
    """Twelve fields of study, four of them STEM (`stem_flg` Y/N), each with a share of women per year and a 0/1
    `chosen_flg`; no declared keys."""
    bi = sqlite_bi(
        "CREATE TABLE fields (field_code TEXT, field_nm TEXT, stem_flg TEXT);"
        "CREATE TABLE shares (acad_yr INTEGER, field_code TEXT, pct_f REAL, chosen_flg INTEGER, survived INTEGER);",
        {
            "fields": FIELDS,
            "shares": [
                (y, c, 10.0 * i + y - 2000, i % 2, i % 2) for y in (2000, 2005) for i, (c, _, _) in enumerate(FIELDS)
            ],
        },
    )
    assert "shares.field_code = fields.field_code" in bi.semantic.joins
    return bi


def sql_of(bi, question: str, select: list[str], where: list[str], group_by: list[str] | None = None) -> str:
    parts = QueryParts(select=select, where=where, group_by=group_by or [])
    return compose(parts, bi.semantic, ["shares", "fields"], [], bi.engine.dialect, question, bi.values)


def test_a_flag_named_by_its_words_filters_on_yes(degrees):
    sql = sql_of(
        degrees, "mean % female over the stem fields in 2005", ["AVG(shares.pct_f)"], ["shares.acad_yr = 2005"]
    )
    assert "LOWER(fields.stem_flg) = 'y'" in sql and "JOIN fields" in sql
    assert degrees.engine.execute(sql).rows == [(5.0 + (0 + 30 + 60 + 90) / 4,)]  # fields 0, 3, 6, 9


def test_a_negated_flag_filters_on_no(degrees):
    sql = sql_of(degrees, "how many non-stem fields in 2000", ["COUNT(*)"], ["shares.acad_yr = 2000"])
    assert "LOWER(fields.stem_flg) = 'n'" in sql and degrees.engine.execute(sql).rows == [(8,)]


def test_an_integer_flag_filters_on_one(degrees):
    sql = sql_of(degrees, "how many were chosen in 2000", ["COUNT(*)"], ["shares.acad_yr = 2000"])
    # the filter, then summed as a 0/1 count (round 23): six of the twelve
    assert "chosen_flg" in sql and degrees.engine.execute(sql).rows == [(6,)]


def test_a_flag_named_both_ways_is_left(degrees):
    question = "stem vs non-stem fields: mean % female in 2005"  # a comparison, not a filter
    assert "stem_flg" not in sql_of(degrees, question, ["AVG(shares.pct_f)"], ["shares.acad_yr = 2005"])


def test_a_flag_the_query_reads_is_left(degrees):
    sql = sql_of(
        degrees,
        "mean % female in 2005 per stem flag",
        ["fields.stem_flg", "AVG(shares.pct_f)"],
        ["shares.acad_yr = 2005"],
        ["fields.stem_flg"],
    )
    assert "LOWER" not in sql and len(degrees.engine.execute(sql).rows) == 2


def test_a_one_word_name_is_left(degrees):
    sql = sql_of(degrees, "how many survived in 2000", ["COUNT(*)"], ["shares.acad_yr = 2000"])
    assert "= 1" not in sql and "chosen_flg" not in sql


@pytest.fixture
def survey(sqlite_bi):
    bi = sqlite_bi(
        "CREATE TABLE edu_levels (edu_id INTEGER, edu_desc TEXT, coll_grad TEXT);"
        "CREATE TABLE answers (resp_id INTEGER, edu_id INTEGER, news_days INTEGER);",
        {
            "edu_levels": [(1, "High school graduate", "N"), (2, "Some college", "N"), (3, "College degree", "Y")],
            "answers": [(i, 1 + i % 3, i % 8) for i in range(30)],
        },
    )
    assert "answers.edu_id = edu_levels.edu_id" in bi.semantic.joins
    return bi


@pytest.mark.parametrize(
    ("question", "filtered"),
    [
        ("how many college grads answered", True),
        ("how many high-school grads, next to some-college ones", False),
        ("how many college grads vs non-grads answered", False),  # both sides asked
    ],
)
def test_the_names_words_side_by_side(survey, question, filtered):
    parts = QueryParts(select=["COUNT(*)"])
    sql = compose(parts, survey.semantic, ["answers", "edu_levels"], [], survey.engine.dialect, question, survey.values)
    assert ("LOWER(edu_levels.coll_grad) = 'y'" in sql) is filtered
    assert survey.engine.execute(sql).rows == [(10 if filtered else 30,)]
