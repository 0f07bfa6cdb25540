"""Round 78 (bench/bi_r78.md): a value the user writes as an ordinal ('2nd class' of a class '2nd', 'third quarter' of
`qtr = 3`) or in another spelling of it (a plural of a stored singular and the other way, an apostrophe, hyphen or '&'
written otherwise, a British spelling). Counter-examples: an absent value in the plural ('teslas') stays absent, a
word another value holds ('news' of 'Fox News'), a schema word, a value written whole ('Third class'), a year before
a decade ('1990' is no '1990s'), a near spelling (a typo) of a value, an ordinal before a word no column is named by."""

from __future__ import annotations

import pytest

from orrery.bi.names import ordinal, ordinal_forms, spelling_key
from orrery.bi.tools import CannotAnswer, compound_values, entity_resolution, ordinal_values, spelled_values
from orrery.tools.core import RunContext


@pytest.fixture
def shop(sqlite_bi):
    """Passengers by a class code beside a lookup of the class's words, products by a plural sub-category, birds by
    a species, holidays by a possessive name, regions with '&', organisms by genus, quarters by number, priorities
    by a numbered word, and makes of car (no Tesla)."""
    return sqlite_bi(
        "CREATE TABLE passengers (pid INTEGER, full_name TEXT, pclass TEXT, age REAL);"
        "CREATE TABLE travel_classes (class_cd TEXT, class_desc TEXT);"
        "CREATE TABLE sales (sub_category TEXT, state TEXT, profit REAL);"
        "CREATE TABLE birds (common_name TEXT, mass REAL);"
        "CREATE TABLE holidays (hol_nm TEXT, yr INTEGER);"
        "CREATE TABLE countries (cntry TEXT, region TEXT);"
        "CREATE TABLE organisms (genus TEXT, mic REAL);"
        "CREATE TABLE periods (cal_yr INTEGER, cal_qtr INTEGER, dec_lbl TEXT, gdp REAL);"
        "CREATE TABLE orders (o_orderpriority TEXT, total REAL);"
        "CREATE TABLE fleet (segment TEXT, seats INTEGER);"
        "CREATE TABLE cars (mfr TEXT, channel TEXT, cond TEXT, mpg REAL);",
        {
            "passengers": [
                (
                    i,
                    ["Thomas, Mr John (? 1st/2nd class)", "Kelly, Mr James"][i % 2],
                    ["1st", "2nd", "3rd"][i % 3],
                    20.0 + i,
                )
                for i in range(12)
            ],
            "travel_classes": [("1st", "First class"), ("2nd", "Second class"), ("3rd", "Third class")],
            "sales": [
                (["Phones", "Copiers", "Chairs", "Light Trucks"][i % 4], ["Texas", "Ohio"][i % 2], 1.0 * i)
                for i in range(12)
            ],
            "birds": [(["Adelie", "Gentoo", "Chinstrap"][i % 3], 3000.0 + i) for i in range(12)],
            "holidays": [(["Mother's Day", "Father's Day", "Labor Day"][i % 3], 2020 + i // 3) for i in range(12)],
            "countries": [("Chad", "Sub-Saharan Africa"), ("Spain", "Europe & Central Asia"), ("Peru", "America")],
            "organisms": [(["Staphylococcus", "Salmonella", "Proteus"][i % 3], i / 4) for i in range(12)],
            "periods": [(1990 + i // 4, 1 + i % 4, "1990s", 100.0 + i) for i in range(12)],
            "orders": [(["1-URGENT", "2-HIGH", "3-MEDIUM"][i % 3], 10.0 * i) for i in range(12)],
            "fleet": [(["Light Truck", "Van"][i % 2], 2 + i % 3) for i in range(6)],
            "cars": [
                (["Ford", "Lancia", "Köhler"][i % 3], ["Fox News", "Sale"][i % 2], ["New", "Used"][i % 2], 20.0 + i)
                for i in range(12)
            ],
        },
    )


def _spelt(bi, question: str) -> set[tuple[str, str, str]]:
    return {(r["mention"], r["column"], r["value"]) for r in spelled_values(bi, question)}


def _ordinal(bi, question: str) -> set[tuple[str, str, object]]:
    return {(r["mention"], r["column"], r["value"]) for r in ordinal_values(bi, question)}


def _resolve(bi, question: str, mentions: list[str]) -> dict:
    bi.question = question
    return entity_resolution(RunContext(deps=bi, options={}), mentions)


def test_ordinals_and_spellings_read_as_words():
    assert [ordinal(w) for w in ("third", "3rd", "2ND", "11th", "thirty", "3", "class")] == [
        3,
        3,
        2,
        11,
        None,
        None,
        None,
    ]
    assert ordinal_forms(2) == {"2", "2nd", "second"} and ordinal_forms(12) == {"12", "12th"}
    assert spelling_key("comedies") == spelling_key("Comedy") and spelling_key("adelies") == spelling_key("Adelie")
    assert spelling_key("mothers day") == spelling_key("Mother's Day") and spelling_key("pg13") == spelling_key("PG-13")
    assert spelling_key("colour") == spelling_key("color") and spelling_key("St. Louis") == spelling_key("saint louis")
    assert spelling_key("staphylococci") == spelling_key("Staphylococcus")
    assert spelling_key("1990") != spelling_key("1990s") and spelling_key("lanthanides") != spelling_key("lanthanoid")


def test_an_ordinal_is_the_class_stored_otherwise(shop):
    assert _ordinal(shop, "mean age in 2nd class, men v women") == {("2nd class", "pclass", "2nd")}
    assert _ordinal(shop, "age of the youngest 3rd-class traveller") == {("3rd-class", "pclass", "3rd")}


def test_an_ordinal_of_a_number_column(shop):
    assert _ordinal(shop, "gdp in the third quarter of 1991") == {("third quarter", "cal_qtr", 3)}


def test_an_ordinal_written_as_a_whole_value_or_before_no_column_is_not_read(shop):
    assert _ordinal(shop, "survival of women in third class") == set()  # 'Third class' is a value: the user names it
    assert _ordinal(shop, "the first orders of 1991") == set()  # 'orders' names no column holding 1
    assert _ordinal(shop, "profit on the 1st of june") == set()


def test_the_planners_ordinal_mention_is_the_class_not_a_near_name(shop):
    found = _resolve(shop, "how many children under 10 were travelling 2nd class?", ["2nd class"])
    assert [(r["column"], r["value"]) for r in found["resolved"]] == [("pclass", "2nd")]


def test_a_plural_or_singular_of_a_stored_value(shop):
    assert _spelt(shop, "phone sales in texas, add them up") == {("phone", "sub_category", "Phones")}
    assert _spelt(shop, "number of adelies weighed") == {("adelies", "common_name", "Adelie")}
    assert _spelt(shop, "neomycin vs staphylococci - mean mic") == {("staphylococci", "genus", "Staphylococcus")}


def test_an_apostrophe_or_ampersand_written_otherwise(shop):
    assert _spelt(shop, "mothers day and fathers day in 2021 - years") == {
        ("mothers day", "hol_nm", "Mother's Day"),
        ("fathers day", "hol_nm", "Father's Day"),
    }
    assert _spelt(shop, "countries across europe & central asia") == {
        ("europe & central asia", "region", "Europe & Central Asia")
    }


def test_a_value_written_as_stored_a_held_word_a_schema_word_or_a_number_is_not_read(shop):
    assert _spelt(shop, "profit on chairs in texas") == set()  # as stored: category_values' reading
    assert _spelt(shop, "mpg of the köhler cars") == set()  # as stored, though `value_words` splits it at 'ö'
    assert _spelt(shop, "mpg of the cars with news coverage") == set()  # 'news' is a word of 'Fox News', no 'New'
    assert _spelt(shop, "total of the sales, by state") == set()  # a table's name, no channel 'Sale'
    assert _spelt(shop, "gdp in 1990, per quarter") == set()  # a year, no decade '1990s'
    assert _spelt(shop, "profit on light trucks") == set()  # 'Light Truck' and 'Light Trucks': which is not said


def test_an_absent_value_in_the_plural_or_misspelt_stays_absent(shop):
    assert _spelt(shop, "mpg of the teslas") == set()
    assert _spelt(shop, "mpg of the lancias") == {("lancias", "mfr", "Lancia")}
    assert _spelt(shop, "mpg of the lanzia") == set()  # no near spelling
    with pytest.raises(CannotAnswer):
        _resolve(shop, "average mpg of Teslas", ["Teslas"])


def test_a_numbered_value_written_whole_with_its_hyphen(shop):
    assert {(r["column"], r["value"]) for r in compound_values(shop, "1-urgent orders in 1991")} == {
        ("o_orderpriority", "1-URGENT")
    }


@pytest.mark.usefixtures("chinook")
def test_an_ordinal_before_a_table_is_no_identifier(tmp_path):
    from orrery.bi.agent import bi_agent
    from orrery.llm.scripted import ScriptedModel

    bi = bi_agent(ScriptedModel([]), db="chinook", store=str(tmp_path / "s.db"), session_id="s1", clarify=False).bi
    assert ordinal_values(bi, "the first invoice of 2021") == []  # the earliest, not InvoiceId = 1
    assert ordinal_values(bi, "the third track on Nevermind") == []
