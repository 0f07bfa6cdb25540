"""Round 25 (bench/bi.md "Round 25"): the measure the question names ('heaviest': weight; 'horsepower': `hp`), a count per
listed value ('per hull'), and two listed years the model wrote as a range. On a boatyard of its own, not the sets
the rules were read from."""

from __future__ import annotations

from pathlib import Path

import pytest
from bi_compose_helpers import compose_sql, rows, sqlite_engine, value

HULLS = [("W", "wood"), ("S", "steel"), ("G", "glass fibre")]


@pytest.fixture
def yard(tmp_path: Path):
    """Boats (no declared key to their hulls; 10 of wood, 18 of steel, 2 of glass fibre), each with a weight, a beam
    and an engine's horsepower; a few crates with two columns of mass."""
    engine = sqlite_engine(
        tmp_path / "yard.sqlite",
        "CREATE TABLE hulls (hull_cd TEXT, hull_nm TEXT);"
        "CREATE TABLE boats (boat_id INTEGER, name TEXT, hull_cd TEXT, yr INTEGER, beam REAL, weight_kg REAL,"
        " hp INTEGER);"
        "CREATE TABLE crates (crate_id INTEGER, label TEXT, weight_kg REAL, mass_t REAL, vol REAL);",
        {
            "hulls": HULLS,
            "boats": [
                (
                    i,
                    f"Boat {i}",
                    "W" if i < 10 else "S" if i < 28 else "G",
                    1988 + i % 15,
                    2.0 + (i * 7) % 5,
                    900.0 + (i * 37) % 400,
                    40 + i * 3,
                )
                for i in range(30)
            ],
            "crates": [(i, f"C{i}", 10.0 + i, (10.0 + i) / 1000, 30.0 - i) for i in range(8)],
        },
    )
    yield engine
    engine.close()


def test_the_heaviest_is_ranked_by_the_weight_not_another_number_column(yard):
    for question in ("heaviest boat in the yard?", "heavyest boat on the list?"):
        sql = compose_sql(yard, ["boats"], question, select=["boats.name"], order_by=["boats.beam DESC"], limit=1)
        assert rows(yard, sql) == rows(yard, "SELECT name FROM boats ORDER BY weight_kg DESC LIMIT 1"), sql


def test_a_measure_named_by_a_word_its_column_abbreviates_replaces_an_unnamed_one(yard):
    sql = compose_sql(yard, ["boats"], "average horsepower of the boats", select=["AVG(boats.beam)"])
    assert rows(yard, sql) == rows(yard, "SELECT AVG(hp) FROM boats"), sql


def test_a_named_measure_two_named_columns_or_a_measure_compared_with_a_written_number_are_kept(yard):
    kept = (  # (question, the model's parts, the column that stays)
        ("average beam of the boats", {"select": ["AVG(boats.beam)"]}, "boats.beam"),  # the measure is named
        ("the heaviest crate", {"select": ["MAX(crates.vol)"]}, "crates.vol"),  # weight_kg and mass_t: no guess
        (  # the model compares its measure with the question's number: it chose that column
            "the heaviest boat over 3",
            {"select": ["boats.name"], "where": ["boats.beam > 3"], "order_by": ["boats.beam DESC"]},
            "boats.beam",
        ),
    )
    for question, parts, column in kept:
        sql = compose_sql(yard, [column.split(".")[0]], question, **parts)
        assert column in sql and "weight" not in sql and "mass" not in sql, (question, sql)


PER_HULL = (
    "SELECT h.hull_nm, COUNT(*) FROM boats b JOIN hulls h ON b.hull_cd = h.hull_cd "
    "WHERE h.hull_nm IN ('wood', 'steel') GROUP BY h.hull_nm"
)
WOOD_STEEL = [value("hulls", "hull_nm", "wood"), value("hulls", "hull_nm", "steel")]


def test_rows_of_listed_values_asked_per_value_are_counted(yard):
    for question in ("wood and steel: boats built per hull", "wood n steel - boats in each of those two hulls?"):
        sql = compose_sql(
            yard,
            ["boats", "hulls"],
            question,
            WOOD_STEEL,
            select=["hulls.hull_nm", "boats.name"],
            where=["hulls.hull_nm IN ('wood', 'steel')"],
        )
        assert rows(yard, sql) == rows(yard, PER_HULL), (question, sql)


def test_a_list_asked_of_each_value_stays_a_list(yard):
    sql = compose_sql(
        yard,
        ["boats", "hulls"],
        "list the boats in each of the wood and steel hulls",
        WOOD_STEEL,
        select=["hulls.hull_nm", "boats.name"],
        where=["hulls.hull_nm IN ('wood', 'steel')"],
    )
    assert "COUNT" not in sql and "boats.name" in sql, sql


def test_two_listed_years_written_as_a_range_are_the_two_years(yard):
    sql = compose_sql(
        yard,
        ["boats"],
        "boats launched: 1990 then 2000, how many",
        select=["COUNT(*)"],
        where=["boats.yr >= 1990 AND boats.yr <= 2000"],
    )
    gold = "SELECT yr, COUNT(*) FROM boats WHERE yr IN (1990, 2000) GROUP BY yr"
    assert rows(yard, sql) == rows(yard, gold), sql


def test_a_range_the_question_asks_stays_a_range(yard):
    for question in ("boats launched between 1990 and 2000, how many", "boats launched from 1990 to 2000: count"):
        sql = compose_sql(
            yard, ["boats"], question, select=["COUNT(*)"], where=["boats.yr >= 1990 AND boats.yr <= 2000"]
        )
        assert rows(yard, sql) == rows(yard, "SELECT COUNT(*) FROM boats WHERE yr BETWEEN 1990 AND 2000"), sql


def test_which_of_two_listed_values_has_more_is_one_row_ranked_by_what_follows_more(yard):
    for question, gold in (
        ("which of wood or steel hulls has more boats?", "steel"),  # the rows of `boats` counted
        ("wood or steel: which hull's boats have fewer hp in all?", "wood"),  # `hp` summed, ascending
    ):
        sql = compose_sql(
            yard,
            ["boats", "hulls"],
            question,
            WOOD_STEEL,
            select=["hulls.hull_nm"],
            where=["hulls.hull_nm IN ('wood', 'steel')"],
        )
        assert [r[0] for r in rows(yard, sql)] == [gold], (question, sql)


def test_more_than_both_totals_or_a_number_or_more_asks_for_every_value(yard):
    for question in (
        "did wood boats carry more hp than steel ones? give me both totals",
        "wood and steel hulls with 2 or more boats, their hp",
    ):
        sql = compose_sql(
            yard,
            ["boats", "hulls"],
            question,
            WOOD_STEEL,
            select=["hulls.hull_nm", "SUM(boats.hp)"],
            where=["hulls.hull_nm IN ('wood', 'steel')"],
            group_by=["hulls.hull_nm"],
        )
        assert len(rows(yard, sql)) == 2 and "LIMIT" not in sql, (question, sql)


def test_bare_values_in_an_or_are_the_column_s_values(yard):
    sql = compose_sql(
        yard,
        ["boats"],
        "boats with wood or glass fibre hulls, how many",
        select=["COUNT(*)"],
        where=["boats.hull_cd = 'W' OR 'G'"],
    )
    assert rows(yard, sql) == rows(yard, "SELECT COUNT(*) FROM boats WHERE hull_cd IN ('W', 'G')"), sql


def test_groups_ranked_by_an_attribute_of_each_row_take_its_extreme_not_its_sum(yard):
    for question, gold in (
        ("which hull has the lightest boat", "wood"),  # MIN per hull: the 900 kg boat is wooden
        ("which hull carries the lightest total weight", "glass fibre"),  # a total: the sum (two boats)
    ):
        sql = compose_sql(
            yard,
            ["boats", "hulls"],
            question,
            select=["hulls.hull_nm"],
            group_by=["hulls.hull_nm"],
            order_by=["boats.weight_kg ASC"],
            limit=1,
        )
        assert [r[0] for r in rows(yard, sql)] == [gold], (question, sql)


def test_a_comparative_adjective_is_a_filter_s_not_the_ranking_s(yard):
    sql = compose_sql(
        yard,
        ["boats", "hulls"],
        "boats heavier than 1000 kg: which hull ranks first by weight",
        select=["hulls.hull_nm"],
        where=["boats.weight_kg > 1000"],
        group_by=["hulls.hull_nm"],
        order_by=["boats.weight_kg DESC"],
        limit=1,
    )
    assert "SUM(boats.weight_kg)" in sql, sql


def test_a_quantity_written_in_a_unit_is_compared_in_the_column_s_unit(yard):
    cases = (  # (question, the model's filter, the filter composed)
        ("how many boats weigh over 1200000 grams", "boats.weight_kg > 1200000", "boats.weight_kg > 1200"),
        ("how many boats weigh over 1200 kg", "boats.weight_kg > 1200", "boats.weight_kg > 1200"),  # right: kept
        ("how many boats are wider than 3 metres", "boats.beam > 300", "boats.beam > 300"),  # no unit: as written
    )
    for question, where, composed in cases:
        sql = compose_sql(yard, ["boats"], question, select=["COUNT(*)"], where=[where])
        assert sql.endswith(f"WHERE {composed}"), (question, sql)


def test_a_number_with_a_unit_asks_no_number_of_rows(yard):
    for question, n in (("fastest 10 metre boat, its name", 1), ("the 3 fastest boats, their names", None)):
        sql = compose_sql(yard, ["boats"], question, select=["boats.name"], order_by=["boats.hp DESC"])
        assert sql.endswith("LIMIT 1") if n == 1 else "LIMIT" not in sql, (question, sql)
