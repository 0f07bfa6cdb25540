"""Round 41 (bench/bi_r41.md, rule H): the repair round's hint for a column no table has ranks the columns of the
whole layer, the slice's first on a tie: the slice often leaves out the table the model meant ('bill_length' over
`species` is `penguin_obs.bill_len_mm`); a name the slice holds a match for is still hinted from the slice."""

from __future__ import annotations

import pytest

from orrery.bi.compose import QueryParts, UnknownField, compose

BIRDS = (
    "CREATE TABLE species (id INTEGER, sci_name TEXT, common_name TEXT, notes TEXT);"
    "CREATE TABLE penguin_obs (obs_id INTEGER, species_id INTEGER, bill_len_mm REAL, flipper_mm REAL, notes TEXT);"
)
ROWS = {
    "species": [(1, "Pygoscelis adeliae", "Adelie", "small"), (2, "Pygoscelis antarcticus", "Chinstrap", "")],
    "penguin_obs": [(i, 1 + i % 2, 38.0 + i, 190.0 + i, "seen") for i in range(12)],
}


@pytest.fixture
def birds(sqlite_bi):
    return sqlite_bi(BIRDS, ROWS)


def hint(bi, question: str, slice_tables: tuple[str, ...] = ("species",), **parts) -> str:
    with pytest.raises(UnknownField) as err:
        compose(QueryParts(**parts), bi.semantic, list(slice_tables), [], bi.engine.dialect, question, bi.values)
    return str(err.value).split("the closest are ", 1)[1]


def test_a_made_up_name_is_hinted_with_the_meant_column_of_a_table_outside_the_slice(birds):
    said = hint(
        birds,
        "which species has the longest avg bill lenght",
        select=["species.common_name", "AVG(bill_length)"],
        group_by=["species.common_name"],
    )
    assert said.startswith("penguin_obs.bill_len_mm")


def test_a_name_two_tables_match_alike_is_hinted_from_the_slice_first(birds):
    for table, other in (("species", "penguin_obs"), ("penguin_obs", "species")):
        said = hint(birds, "the notes", (table,), select=["note_txt"])
        assert said.startswith(f"{table}.notes, {other}.notes")


def test_the_hinted_column_of_a_table_outside_the_slice_composes(birds):
    written = compose(
        QueryParts(select=["species.common_name", "AVG(penguin_obs.bill_len_mm)"], group_by=["species.common_name"]),
        birds.semantic,
        ["species"],
        [],
        birds.engine.dialect,
        "which species has the longest avg bill lenght",
        birds.values,
    )
    assert "penguin_obs" in written
    assert len(birds.engine.execute(written).rows) == 2
