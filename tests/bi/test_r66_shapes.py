"""Round 66 (bench/bi_r66.md): the answer's shape the question asks for. A superlative over rows listed unranked is
the one row at the extreme of the amount shown; an average or total per thing ranked by single rows is ranked per
group; an aggregate filtered to one value of a two-valued column, for a question that compares, is taken for both;
a code of a table others refer to is shown with its own table's label. Counter-examples where nothing changes."""

from __future__ import annotations

import pytest

from orrery.bi.compose import QueryParts, compose

SCRIPT = (
    "CREATE TABLE depots (depot_cd TEXT, depot_name TEXT, zone TEXT);"
    "CREATE TABLE parcels (parcel_id INTEGER, label TEXT, mass_kg REAL, fee REAL, insured INTEGER, depot_cd TEXT);"
)
DEPOTS = [(f"D{i}", f"depot {i}", ("north", "south", "east")[i % 3]) for i in range(9)]
ROWS = {
    "depots": DEPOTS,
    "parcels": [(i, f"parcel {i}", float((i * 7) % 50) + 0.5, float(i % 9), i % 2, f"D{i % 9}") for i in range(90)],
}


@pytest.fixture
def bi(sqlite_bi):
    bi = sqlite_bi(SCRIPT, ROWS)
    assert "parcels.depot_cd = depots.depot_cd" in bi.semantic.joins  # inferred: no declared keys
    return bi


def composed(bi, question: str, tables: list[str], **parts) -> str:
    return compose(QueryParts(**parts), bi.semantic, tables, [], bi.engine.dialect, question, bi.values)


def masses(bi) -> list[float]:
    return [r[0] for r in bi.engine.execute("SELECT mass_kg FROM parcels").rows]


def test_a_superlative_over_listed_rows_is_the_one_at_the_extreme_of_the_amount_shown(bi):
    sql = composed(
        bi, "heaviest parcel on file? label + kilos", ["parcels"], select=["parcels.label", "parcels.mass_kg"]
    )
    assert "ORDER BY parcels.mass_kg DESC" in sql and sql.endswith("LIMIT 1")
    (row,) = bi.engine.execute(sql).rows
    assert row[1] == max(masses(bi))


@pytest.mark.parametrize("question", ["insured parcels: min mass", "mass of the lightest insured parcel"])
def test_a_low_superlative_ranks_upward(bi, question):
    sql = composed(bi, question, ["parcels"], select=["parcels.mass_kg"], where=["parcels.insured = 1"])
    (row,) = bi.engine.execute(sql).rows
    assert row[0] == min(m for (m, i) in bi.engine.execute("SELECT mass_kg, insured FROM parcels").rows if i == 1)


@pytest.mark.parametrize(
    ("question", "select"),
    [
        ("list every parcel with its mass", ["parcels.label", "parcels.mass_kg"]),  # no superlative
        ("the 3 heaviest parcels and their mass", ["parcels.label", "parcels.mass_kg"]),  # a number of rows
        ("heaviest parcel: mass and fee", ["parcels.mass_kg", "parcels.fee"]),  # two amounts: which one is unclear
        ("the heaviest parcel's label", ["parcels.label"]),  # no amount shown
        ("the heaviest parcel's id", ["parcels.parcel_id"]),  # a key is no amount
    ],
)
def test_no_ranking_where_the_question_or_the_select_leaves_it_unclear(bi, question, select):
    sql = composed(bi, question, ["parcels"], select=select)
    assert "ORDER BY" not in sql and "LIMIT" not in sql


def test_an_average_per_thing_ranked_by_single_rows_is_ranked_per_group(bi):
    sql = composed(
        bi,
        "which zone has the highest average parcel mass",
        ["parcels"],
        select=["depots.zone"],
        order_by=["parcels.mass_kg DESC"],
        limit=1,
    )
    assert "GROUP BY depots.zone" in sql and "ORDER BY AVG(parcels.mass_kg) DESC" in sql
    (row,) = bi.engine.execute(sql).rows
    means = bi.engine.execute(
        "SELECT zone, AVG(mass_kg) FROM parcels JOIN depots USING (depot_cd) GROUP BY zone ORDER BY 2 DESC LIMIT 1"
    ).rows
    assert tuple(row) == tuple(means[0])  # the zone and the average it is ranked by


def test_a_total_that_is_the_amounts_own_name_over_another_tables_rows_ranks_rows(bi):
    bi.semantic.tables["parcels"]["columns"]["fee"]["synonyms"] = ["total", "charge"]
    sql = composed(
        bi,
        "which depot name had the largest single parcel total",
        ["parcels"],
        select=["depots.depot_name"],
        order_by=["parcels.fee DESC"],
        limit=1,
    )
    assert "GROUP BY" not in sql and "ORDER BY parcels.fee DESC" in sql


def test_a_ranking_of_rows_with_no_average_or_total_asked_stays(bi):
    sql = composed(
        bi,
        "which zone holds the heaviest parcel",
        ["parcels"],
        select=["depots.zone"],
        order_by=["parcels.mass_kg DESC"],
    )
    assert "GROUP BY" not in sql


def test_a_comparison_of_a_two_valued_columns_values_is_taken_for_both(bi):
    sql = composed(
        bi,
        "mean mass: insured parcels compared to the others",
        ["parcels"],
        select=["AVG(parcels.mass_kg)"],
        where=["parcels.insured = 1"],
    )
    assert "GROUP BY parcels.insured" in sql and "WHERE" not in sql
    assert sorted(r[0] for r in bi.engine.execute(sql).rows) == [0, 1]


@pytest.mark.parametrize(
    ("question", "where"),
    [
        ("mean mass of insured parcels", "parcels.insured = 1"),  # nothing compared
        ("mean mass of insured parcels with a fee higher than 3", "parcels.insured = 1"),  # 'than' is a filter's
        ("mean mass of depot D1 parcels compared with all", "parcels.depot_cd = 'D1'"),  # nine values, not two
    ],
)
def test_no_split_where_nothing_is_compared_or_the_column_has_more_values(bi, question, where):
    sql = composed(bi, question, ["parcels"], select=["AVG(parcels.mass_kg)"], where=[where])
    assert "GROUP BY" not in sql and "WHERE" in sql


def test_a_code_other_tables_refer_to_is_shown_with_its_own_label(bi):
    sql = composed(
        bi,
        "heavy parcels, count per depot",
        ["parcels"],
        select=["depots.depot_cd", "COUNT(*)"],
        where=["parcels.mass_kg > 10"],
        group_by=["depots.depot_cd"],
    )
    assert sql.startswith("SELECT depots.depot_cd, depots.depot_name, COUNT(*)")
    assert "GROUP BY depots.depot_cd, depots.depot_name" in sql
    assert len(bi.engine.execute(sql).rows) == 9  # the same nine groups


def test_no_label_for_a_column_nothing_refers_to(bi):
    sql = composed(bi, "parcels per zone", ["parcels"], select=["depots.zone", "COUNT(*)"], group_by=["depots.zone"])
    assert "depot_name" not in sql


@pytest.fixture
def clients(sqlite_bi):
    countries = ["Brazil", "Germany", "Japan", "Peru", "Chad"]
    return sqlite_bi(
        "CREATE TABLE clients (client_id INTEGER, country TEXT, spend REAL);",
        {"clients": [(i, countries[i % 5], float(i)) for i in range(50)]},
    )


@pytest.mark.parametrize(
    ("question", "pair"),
    [
        ("# of brazilian clients and # of german ones", ("Brazil", "Germany")),
        ("japanese vs brazilian clients: how many", ("Japan", "Brazil")),
    ],
)
def test_two_values_written_as_words_made_from_them_are_counted_each(clients, question, pair):
    either = f"clients.country = '{pair[0]}' OR clients.country = '{pair[1]}'"
    sql = composed(clients, question, ["clients"], select=["COUNT(*)"], where=[either])
    assert "GROUP BY clients.country" in sql
    assert sorted(clients.engine.execute(sql).rows) == sorted([(pair[0], 10), (pair[1], 10)])


def test_two_values_not_joined_as_a_list_stay_one_total(clients):
    either = "clients.country = 'Brazil' OR clients.country = 'Germany'"
    sql = composed(
        clients, "# of brazilian clients who moved to germany", ["clients"], select=["COUNT(*)"], where=[either]
    )
    assert "GROUP BY" not in sql
