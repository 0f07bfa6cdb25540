"""Round 46 (bench/bi.md, round 46, rule V1): rule V judges only the words of a literal that the user wrote. The model
glues words of its own to the user's value ('chinatown.jpg', a poster file name it made up for 'chinatown'); the
data need not hold those, so a value held by its user's words is not absent. A value the user names that the data
lacks stays absent, whatever the model glued to it."""

from __future__ import annotations

import pytest

from orrery.bi.decline import absent_value

SCRIPT = "CREATE TABLE films (film_id INTEGER, title TEXT, poster TEXT);"
# more titles than the value index keeps of a column: a title is only found by the scan
ROWS = {"films": [(i, "Chinatown" if i == 7 else f"Film {i}", f"https://img.example/p{i}.jpg") for i in range(400)]}


@pytest.fixture
def data(sqlite_bi):
    bi = sqlite_bi(SCRIPT, ROWS)
    bi.semantic.tables["films"]["columns"]["title"].pop("values", None)
    return bi


def test_a_value_held_by_the_users_words_is_not_absent_beside_the_models_own(data):
    sql = "SELECT film_id FROM films WHERE poster = 'chinatown.jpg'"
    assert absent_value(data, sql, "chinatown - poster?") is None
    sql = "SELECT film_id FROM films WHERE poster IN ('chinatown_poster.png')"
    assert absent_value(data, sql, "chinatown - poster?") is None


def test_a_value_the_data_lacks_stays_absent_beside_the_models_own_words(data):
    sql = "SELECT film_id FROM films WHERE poster = 'vertigo_poster.png'"
    assert absent_value(data, sql, "vertigo - poster?") == "vertigo_poster.png"
    sql = "SELECT film_id FROM films WHERE title = 'Vertigo'"
    assert absent_value(data, sql, "vertigo - poster?") == "Vertigo"
