"""Round 23's measure places a corrected decline's term as its plan says (bench/bi_memory.py, `placed`): on the one
column the correction's SQL returns or ranks by that is no key and that the question does not name; never on a
filter's column, a `COUNT(*)`, a key, nor when the decline named two terms or the SQL returns two such columns."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from orrery.bi.semantic import Semantic

# loaded by its path, and sys.path put back after it (the script puts bench/ first): bench/ on sys.path would
# shadow packages by its scripts' names (bench/mcp.py is not `mcp`)
_SPEC = importlib.util.spec_from_file_location("bi_memory", Path(__file__).parents[2] / "bench" / "bi_memory.py")
BENCH = importlib.util.module_from_spec(_SPEC)
_PATH = list(sys.path)
_SPEC.loader.exec_module(BENCH)
sys.path[:] = _PATH

LAYER = Semantic.from_dict(
    {
        "tables": {
            "countries": {"columns": {"country_id": {}, "country": {}, "region": {}}},
            "indicators": {"columns": {"country_id": {}, "yr": {}, "population": {}, "fertility": {}}},
        }
    }
)
JOIN = "FROM indicators i JOIN countries c ON i.country_id = c.country_id"


def place(question: str, sql: str, terms: list[str] = ("headcount",)) -> tuple[str, tuple[str, str]] | None:
    return BENCH.placed(LAYER, question, sql, list(terms))


def test_the_term_lands_on_the_column_returned_or_ranked_by_through_aliases():
    got = place("headcount of Peru in 1990", f"SELECT i.population {JOIN} WHERE c.country = 'Peru' AND i.yr = 1990")
    assert got == ("headcount", ("indicators", "population"))
    inside = place("mean headcount of Asia", f"SELECT avg(i.population) {JOIN} WHERE c.region = 'Asia'")
    assert inside == ("headcount", ("indicators", "population"))  # inside an aggregate
    ranked = f"SELECT c.country {JOIN} WHERE i.yr = 1990 ORDER BY i.population DESC LIMIT 1"
    assert place("which country had the biggest headcount in 1990?", ranked) == (
        "headcount",
        ("indicators", "population"),
    )


def test_a_filters_column_a_count_a_key_or_a_named_column_places_nothing():
    assert place("headcount in Asia", f"SELECT count(*) {JOIN} WHERE c.region = 'Asia'") is None
    assert place("headcount of countries", "SELECT country_id FROM countries") is None  # a key
    # 'population' is named by the question: the unknown word is not that column; the region is only filtered
    assert place("population headcount of Asia", f"SELECT i.population {JOIN} WHERE c.region = 'Asia'") is None
    assert place("headcount in Asia", f"SELECT count(*) {JOIN} WHERE i.population > 5") is None  # a threshold's column


def test_two_terms_or_two_columns_place_nothing():
    one = f"SELECT i.population {JOIN} WHERE c.country = 'Peru'"
    assert place("headcount and babies of Peru", one, ["headcount", "babies"]) is None
    two = f"SELECT i.population, i.fertility {JOIN} WHERE c.country = 'Peru'"
    assert place("headcount of Peru", two) is None
    sub = "SELECT (SELECT max(population) FROM indicators) AS top FROM countries"
    assert place("top headcount", sub) is None  # a subquery's column is not the outer SELECT's
