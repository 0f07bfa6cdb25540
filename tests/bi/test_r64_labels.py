"""Round 64 (bench/bi.md, round 64): a code shown (selected or grouped by) that refers to a lookup by the layer's only
join between the two tables is shown with the lookup's one label beside it ('each region of origin': the origin's
name, not only its code); counter-examples where no label is added."""

from __future__ import annotations

import pytest

from orrery.bi.compose import QueryParts, compose

CODES = [f"C{i:02d}" for i in range(12)]
SCRIPT = (
    "CREATE TABLE classes (cls_cd TEXT, cls_desc TEXT);"
    "CREATE TABLE frags (frag_id INTEGER, k_wt REAL, cls_cd TEXT);"
    "CREATE TABLE reps (rep_id INTEGER, first_name TEXT, last_name TEXT);"
    "CREATE TABLE clients (client_id INTEGER, city TEXT, rep_id INTEGER);"
)
ROWS = {
    "classes": [(c, f"class {c}") for c in CODES],
    "frags": [(i, float(i % 7), CODES[i % 12]) for i in range(60)],
    "reps": [(i, f"first {i}", f"last {i}") for i in range(12)],
    "clients": [(i, f"city {i % 5}", i % 12) for i in range(60)],
}


@pytest.fixture
def bi(sqlite_bi):
    bi = sqlite_bi(SCRIPT, ROWS)
    assert "frags.cls_cd = classes.cls_cd" in bi.semantic.joins  # inferred from the data: no declared keys
    assert "clients.rep_id = reps.rep_id" in bi.semantic.joins
    return bi


def composed(bi, question: str, tables: list[str], **parts) -> str:
    return compose(QueryParts(**parts), bi.semantic, tables, [], bi.engine.dialect, question, bi.values)


def test_a_grouped_code_gets_its_lookups_label_beside_it(bi):
    sql = composed(
        bi,
        "average potassium of the frags in each class",  # the frags named first: not `_referenced_row`'s reading
        ["frags"],
        select=["frags.cls_cd", "AVG(frags.k_wt)"],
        group_by=["frags.cls_cd"],
    )
    assert sql.startswith("SELECT frags.cls_cd, classes.cls_desc, AVG(frags.k_wt)")
    assert "GROUP BY frags.cls_cd, classes.cls_desc" in sql
    rows = sorted(bi.engine.execute(sql).rows)
    assert len(rows) == 12 and rows[0][:2] == ("C00", "class C00")  # the same 12 groups, each named


def test_a_code_shown_in_a_ranking_gets_its_label(bi):
    sql = composed(
        bi,
        "the frag richest in potassium: its class",
        ["frags"],
        select=["frags.cls_cd"],
        order_by=["frags.k_wt DESC"],
        limit=1,
    )
    assert "classes.cls_desc" in sql and "JOIN classes" in sql
    (row,) = bi.engine.execute(sql).rows
    assert row[1] == f"class {row[0]}"


def test_no_label_when_the_lookup_has_two_name_columns(bi):
    sql = composed(
        bi,
        "clients per rep",
        ["clients"],
        select=["clients.rep_id", "COUNT(*)"],
        group_by=["clients.rep_id"],
    )
    assert "reps" not in sql


def test_no_label_when_the_query_shows_the_lookup_already(bi):
    sql = composed(
        bi,
        "average potassium for each class of glass",
        ["frags", "classes"],
        select=["classes.cls_desc", "frags.cls_cd", "AVG(frags.k_wt)"],
        group_by=["classes.cls_desc", "frags.cls_cd"],
    )
    assert sql.count("cls_desc") == 2  # selected and grouped once each, as written


def test_no_label_when_the_groups_are_counted(bi):
    sql = composed(
        bi,
        "how many classes have more than 4 fragments",
        ["frags"],
        select=["COUNT(*)"],
        group_by=["frags.cls_cd"],
        having=["COUNT(*) > 4"],
    )
    assert "cls_desc" not in sql  # a label grouped by too would count the same groups: nothing to show


def test_no_label_when_the_key_is_the_label_or_two_joins_connect_the_tables(sqlite_bi):
    names = [f"Country {i}" for i in range(12)]
    ports = [f"P{i:02d}" for i in range(12)]
    bi = sqlite_bi(
        "CREATE TABLE countries (name TEXT, region TEXT);"
        "CREATE TABLE figures (country TEXT, year INTEGER, births REAL);"
        "CREATE TABLE ports (port_cd TEXT, port_name TEXT);"
        "CREATE TABLE legs (leg_id INTEGER, src_port_cd TEXT, dst_port_cd TEXT);",
        {
            "countries": [(n, "North" if i % 2 else "South") for i, n in enumerate(names)],
            "figures": [(names[i % 12], 1990 + i // 12, float(i)) for i in range(48)],
            "ports": [(p, f"port {p}") for p in ports],
            "legs": [(i, ports[i % 12], ports[(i + 1) % 12]) for i in range(60)],
        },
    )
    assert "figures.country = countries.name" in bi.semantic.joins
    assert {"legs.src_port_cd = ports.port_cd", "legs.dst_port_cd = ports.port_cd"} <= set(bi.semantic.joins)
    by_country = composed(bi, "births in 1990 by country", ["figures"], select=["figures.country", "figures.births"])
    assert "countries" not in by_country  # the country's name is the key: nothing to add
    legs = composed(
        bi, "legs per source port", ["legs"], select=["legs.src_port_cd", "COUNT(*)"], group_by=["legs.src_port_cd"]
    )
    assert "ports" not in legs.replace("src_port_cd", "")  # which of the two joins names it is a guess
