"""A term the data holds in another spelling is no reason to decline: a column named by an abbreviation or by
initials, a schema name written as a value, a value in the plural or before a hyphenated modifier, a year a
table's name carries, a name before a word the schema does not spell."""

from __future__ import annotations

import pytest

from orrery.bi import decline
from orrery.bi.compose import QueryParts, compose
from orrery.bi.decline import missing_fields, named_values, shape_decline
from orrery.bi.semantic import abbreviates, initials, term_score, words


@pytest.fixture
def elements(sqlite_bi):
    """Elements with abbreviated property columns and a category lookup."""
    return sqlite_bi(
        "CREATE TABLE element (sym TEXT, name TEXT, cat_cd TEXT);"
        "CREATE TABLE elem_cat (cat_cd TEXT, cat_nm TEXT);"
        "CREATE TABLE phys (sym TEXT, bp_k REAL, dens REAL);",
        {
            "element": [("H", "Hydrogen", "NM"), ("F", "Fluorine", "HAL"), ("B", "Boron", "MET")],
            "elem_cat": [("NM", "nonmetal"), ("HAL", "halogen"), ("MET", "metalloid")],
            "phys": [("H", 20.3, 0.09), ("F", 85.0, 1.7), ("B", 4200.0, 2.3)],
        },
    )


def test_a_column_named_by_a_stem_or_by_initials_holds_the_users_word(elements):
    assert abbreviates("dens", "density") and not abbreviates("dens", "densely")
    assert words("bp_k") == "bp k" and words("l_shipdate") == "shipdate"  # a prefix is dropped, not the name
    assert initials("bp", ("boiling", "point")) == "boiling point"
    assert initials("id", ("invoice", "date")) is None  # initials are consonants: 'id' is a word of names
    assert term_score("boiling point", "bp k") >= 90
    q = "boiling points and density of hydrogen"
    assert missing_fields(elements, ["boiling point", "density"], q) == []
    assert missing_fields(elements, ["freezing point"], "freezing point of hydrogen") == ["freezing point"]
    assert shape_decline(elements, "which element has the greatest density") is None
    assert "hardness" in (shape_decline(elements, "which element has the greatest hardness") or "")


def test_a_category_named_in_the_plural_is_its_value(elements):
    question = "metalloids as a % of all elements; how many halogens"
    assert missing_fields(elements, ["metalloids percentage", "halogens"], question) == []
    assert missing_fields(elements, ["dragons"], "how many dragons") == ["dragons"]


@pytest.fixture
def media(sqlite_bi):
    """Films with a CamelCase box office column, a tomatoes table with a Meter, customers with a SupportRepId,
    cars from origins, and a yearly tally in a table named with its year."""
    return sqlite_bi(
        "CREATE TABLE films (ID INTEGER, Title TEXT);"
        "CREATE TABLE tomatoes (ID INTEGER, Meter INTEGER, BoxOffice REAL);"
        "CREATE TABLE customers (CustomerId INTEGER, SupportRepId INTEGER);"
        "CREATE TABLE cars (name TEXT, mfr TEXT, hp INTEGER, origin TEXT);"
        "CREATE TABLE games14_tally (country TEXT, gold INTEGER);"
        "CREATE TABLE results (athlete TEXT, yr INTEGER);",
        {
            "films": [(1, "Alpha"), (2, "Beta")],
            "tomatoes": [(1, 90, 1.5e6), (2, 40, 2.5e6)],
            "customers": [(1, 3), (2, 4)],
            "cars": [("ford pinto", "ford", 80, "Europe"), ("audi 100", "audi", 90, "Asia")],
            "games14_tally": [("Norway", 11), ("Canada", 10)],
            "results": [("Ann Lee", 1996), ("Bo Kim", 2008)],
        },
    )


def test_a_schema_name_written_as_a_value_is_a_field(media):
    assert shape_decline(media, "Which title earned the highest BoxOffice figure?") is None
    assert shape_decline(media, "employee assigned as SupportRep to the most customers") is None
    assert shape_decline(media, "Which film has the lowest Tomatometer?") is None  # tomatoes + Meter
    assert "Zappometer" in (shape_decline(media, "Which film has the lowest Zappometer?") or "")
    assert "Quasar" in (shape_decline(media, "How many films did Quasar Studios make?") or "")


def test_a_capital_after_a_question_mark_opens_a_sentence():
    assert named_values("how do they compare on the Meter? Average for each please.") == ["Meter"]
    assert named_values("Which state is highest? Full state name please.") == []
    assert named_values("gold medals: Norway and Canada") == ["Norway", "Canada"]


def test_a_value_before_a_lower_case_modifier_after_a_hyphen_is_that_value(media):
    assert shape_decline(media, "fuel economy for Europe-built and Asia-built cars, averaged") is None
    assert "Mars-built" in (shape_decline(media, "average hp of Mars-built cars") or "")
    assert "K-Pop" in (shape_decline(media, "How many cars are K-Pop?") or "")  # no lower-case part: one value
    assert missing_fields(media, ["Europe-built"], "average hp of Europe-built cars") == []


def test_a_named_value_before_a_word_the_schema_does_not_spell(media):
    assert shape_decline(media, "which Ford model packs the most hp?") is None  # 'ford' is a maker stored
    assert shape_decline(media, "which Tesla model packs the most hp?")  # no maker 'Tesla'


def test_a_year_in_a_tables_name_is_a_year_of_the_data(media):
    assert decline.named_tables(media) == [(("games14_tally", "(its name)"), (2014, 2014))]
    assert shape_decline(media, "gold medals of Norway in 2014") is None
    assert "2018" in (shape_decline(media, "gold medals of Norway in 2018") or "")
    assert shape_decline(media, "who won in 2008") is None  # the years of `yr`


def test_which_then_a_verb_and_a_degree_word_asks_to_compare(media):
    assert shape_decline(media, "Norway vs Canada: which won more gold?") is None
    assert shape_decline(media, "ford vs audi: which get better hp on average?") is None
    assert "gizmo" in (shape_decline(media, "which gizmo has the most gold?") or "")  # 'which X' is still asked


def test_the_year_a_tables_name_carries_is_no_filter_on_another_tables_year(media):
    question = "gold medals of Norway in 2014"
    parts = QueryParts(select=["games14_tally.gold"], where=["results.yr = 2014", "games14_tally.country = 'Norway'"])
    sql = compose(parts, media.semantic, ["games14_tally"], [], "sqlite", question)
    assert "yr" not in sql and "results" not in sql, sql
    assert [tuple(r) for r in media.engine.execute(sql).rows] == [(11,)]
    kept = QueryParts(select=["results.athlete"], where=["results.yr = 2008"])
    assert "2008" in compose(kept, media.semantic, ["results"], [], "sqlite", "who won in 2008")
