"""Words and values the data holds in another form: a column name's abbreviation of the user's word ('hp' for
horsepower), a stored value named by its demonym or inflection ('European' for 'Europe'), a two-digit year."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from orrery.bi import decline
from orrery.bi.decline import other_form, shape_decline, year_ranges, years_outside
from orrery.bi.engines import SQLiteEngine
from orrery.bi.semantic import abbreviates, draft, rank_fields, spelled_as, two_digit_year, user_abbreviates
from orrery.bi.tools import BIContext


@pytest.mark.parametrize(
    ("token", "word"),
    [("hp", "horsepower"), ("yr", "year"), ("dt", "date"), ("qty", "quantity"), ("dept", "department")]
    + [("pop", "population"), ("cnt", "count"), ("amt", "amount"), ("wk", "week"), ("cntry", "country")],
)
def test_a_token_that_shortens_a_word_abbreviates_it(token, word):
    assert abbreviates(token, word)


@pytest.mark.parametrize(
    ("token", "word"),
    [("age", "average"), ("cat", "contract"), ("id", "individual"), ("dt", "department"), ("no", "number")]
    + [("mpg", "miles"), ("hp", "hospital"), ("year", "year"), ("pop", "top"), ("late", "lateness"), ("age", "agent")]
    + [("county", "country"), ("mpg", "mpeg"), ("region", "regionkey"), ("ship", "shipinstruct")],
)
def test_a_token_that_only_shares_letters_does_not(token, word):
    assert not abbreviates(token, word)


@pytest.mark.parametrize(
    ("word", "value"),
    [("european", "europe"), ("chinese", "china"), ("swedish", "sweden"), ("german", "germany")]
    + [("canadian", "canada"), ("asian", "asia")],
)
def test_a_demonym_or_inflection_is_the_stored_value(word, value):
    assert other_form(word, value)


@pytest.mark.parametrize(
    ("word", "value"),
    [("indiana", "india"), ("austrian", "australia"), ("austria", "australia"), ("cana", "canada")]
    + [("europe", "europe"), ("north african", "north africa")],
)
def test_a_different_name_with_a_shared_beginning_is_not(word, value):
    assert not other_form(word, value)


@pytest.fixture
def cars(tmp_path: Path):
    """Cars with abbreviated column names, a two-digit model year (70 to 82) and an origin among three regions."""
    path = tmp_path / "c.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE cars (name TEXT, mpg REAL, hp INTEGER, yr INTEGER, origin TEXT)")
        rows = [(f"car {i}", 20.0 + i % 9, 90 + i, 70 + i % 13, ("Europe", "Japan", "USA")[i % 3]) for i in range(60)]
        con.executemany("INSERT INTO cars VALUES (?, ?, ?, ?, ?)", rows)
    engine = SQLiteEngine("c", path)
    yield BIContext(engine, draft(engine), None)
    engine.close()


def test_a_users_word_finds_the_column_its_name_abbreviates(cars):
    best = rank_fields(cars.semantic, "horsepower")[0]
    assert best[2] == {"table": "cars", "column": "hp"} and best[0] >= 90
    assert decline.maps(cars, "horsepower") and decline.maps(cars, "average horsepower")
    assert shape_decline(cars, "ford vs toyota, average horsepower") is None
    assert not decline.maps(cars, "torque")  # a word no name shortens is still missing


def test_a_value_named_by_its_demonym_is_held_and_an_absent_one_still_declines(cars):
    assert decline.value_held(cars, "European") and decline.value_held(cars, "Japanese")
    assert shape_decline(cars, "average mpg of the European cars") is None
    assert "African" in (shape_decline(cars, "average mpg of the African cars") or "")


def test_a_pronoun_names_no_field(cars):
    # held-out #16 (development data now): 'what % of all the investment ... was theirs' was declined on 'theirs'
    assert shape_decline(cars, "european cars - what % of all the horsepower was theirs") is None
    assert "diesel" in (shape_decline(cars, "european cars - what % of all the horsepower was diesel") or "")


def test_a_two_digit_year_column_is_read_as_years(cars):
    assert year_ranges(cars)[("cars", "yr")] == (70, 82)
    assert years_outside(cars, "average mpg of the cars made in 1975") is None
    assert "1995" in (years_outside(cars, "average mpg of the cars made in 1995") or "")
    assert years_outside(cars, "how many cars after 1980?") is None
    assert years_outside(cars, "how many cars after 1990?")


@pytest.mark.parametrize(
    ("column", "lo", "hi", "expected"),
    [("yr", 70, 82, True), ("model_year", 0, 99, True), ("year", 1970, 1982, False)]
    + [("cyl", 3, 8, False), ("yr", -1, 20, False), ("rank", 70, 82, False)],
)
def test_one_rule_says_which_column_holds_two_digit_years(column, lo, hi, expected):
    """The year check (from the data) and the SQL step (from the drafted range) ask the same helper."""
    assert two_digit_year(column, lo, hi) is expected


def test_a_fit_for_a_situation_is_an_opinion(cars):
    assert decline.judgment("which car is best for a long trip?", cars)
    assert decline.judgment("cars ideal for the city", cars)
    assert decline.judgment("which origin has the most cars?", cars) is None
    assert decline.judgment("which origin is better for mpg?", cars) is None  # no situation: a measure


def one_table(path: Path, create: str, rows: list[tuple]) -> tuple[SQLiteEngine, BIContext]:
    """A database of one table and its drafted layer."""
    with sqlite3.connect(path) as con:
        con.execute(create)
        table = create.split()[2]
        con.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * len(rows[0]))})", rows)
    engine = SQLiteEngine(path.stem, path)
    return engine, BIContext(engine, draft(engine), None)


def test_a_name_written_with_digits_in_a_table_name_is_the_schemas(tmp_path: Path):
    create = "CREATE TABLE paris24_tally (country TEXT, gold INTEGER)"
    engine, bi = one_table(tmp_path / "g.sqlite", create, [("Norway", 3), ("Chile", 1)])
    assert decline.missing_values(bi, "How many golds did Norway win at Paris?") == []
    assert decline.missing_values(bi, "How many golds did Norway win at Tokyo?") == ["'Tokyo'"]
    engine.close()


def test_combined_is_an_aggregate_not_a_field(cars):
    assert decline.maps(cars, "combined hp") and shape_decline(cars, "the combined hp of the Japanese cars") is None


def test_a_users_abbreviation_finds_the_column_it_shortens(tmp_path: Path):
    create = "CREATE TABLE regions (region TEXT, population REAL)"
    engine, bi = one_table(tmp_path / "w.sqlite", create, [("North", 3.0), ("South", 1.0)])
    assert rank_fields(bi.semantic, "pop")[0][2] == {"table": "regions", "column": "population"}
    assert decline.maps(bi, "combined pop") and shape_decline(bi, "the combined pop of the North region") is None
    engine.close()


@pytest.mark.parametrize(
    ("word", "name_word", "held"),
    [("pop", "population", True), ("in", "invoice", False), ("car", "category", False)]
    + [("top", "totalprice", False), ("list", "linestatus", False), ("ord", "orderdate", True)],
)
def test_a_users_word_shortens_a_name_only_as_a_three_letter_prefix(word, name_word, held):
    assert user_abbreviates(word, name_word) is held


def test_field_ranking_reuses_the_spelled_forms_of_each_term_and_column(cars):
    """term_score spells both sides per (term, column) pair: the second ranking of a term computes none again."""
    rank_fields(cars.semantic, "horsepower")
    before = spelled_as.cache_info()
    assert rank_fields(cars.semantic, "horsepower")[0][2] == {"table": "cars", "column": "hp"}
    after = spelled_as.cache_info()
    assert after.misses == before.misses and after.hits > before.hits
