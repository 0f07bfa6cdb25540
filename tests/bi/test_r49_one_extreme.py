"""Round 49 (bench/bi.md, round 49): one reading of "a value set at its extreme" (`relax.extreme`), which composing (before
the query runs) and relaxing (after it found nothing) share. Composing now reads what relaxing read alone: an
inequality that reaches the extreme (`<= (SELECT MIN ..)`), the subquery written first, a subquery ordered with a
limit. Relaxing now reads as composing did: the subquery's own filters stay, a column compared with another
column's extreme is no ranking of it; and neither reads `x < (SELECT MAX(x) ..)`, every row but the top."""

from __future__ import annotations

import pytest

from orrery.bi.compose import QueryParts, compose
from orrery.bi.relax import relaxed

QUESTION = "which species has the lightest bird on dream?"


def birds_sql(bi, question: str, extreme: str) -> str:
    parts = QueryParts(select=["species.common_name"], where=["islands.isl_name = 'Dream'", extreme])
    return compose(parts, bi.semantic, ["birds", "species", "islands"], [], bi.engine.dialect, question, bi.values)


@pytest.mark.parametrize(
    "extreme",
    [
        "birds.mass_g <= (SELECT MIN(birds.mass_g) FROM birds)",  # nothing lies below the minimum
        "(SELECT MIN(birds.mass_g) FROM birds) = birds.mass_g",  # the subquery written first
        "birds.mass_g = (SELECT birds.mass_g FROM birds ORDER BY birds.mass_g ASC LIMIT 1)",  # ordered, limited
    ],
)
def test_compose_ranks_every_way_of_writing_the_extreme(birds, extreme):
    sql = birds_sql(birds, QUESTION, extreme)
    assert "(SELECT" not in sql and "ORDER BY birds.mass_g ASC" in sql and sql.endswith("LIMIT 1")
    assert birds.engine.execute(sql).rows == [("Chinstrap",)]


def test_every_row_but_the_top_is_no_extreme(birds):
    sql = birds_sql(
        birds,
        "which species have birds lighter than the heaviest on dream?",
        "birds.mass_g < (SELECT MAX(birds.mass_g) FROM birds)",
    )
    assert "SELECT MAX" in sql and len(birds.engine.execute(sql).rows) == 7
    assert (
        relaxed(
            "SELECT t.name FROM t WHERE t.year = 2009 AND t.rate < (SELECT MAX(t.rate) FROM t)",
            "rates in 2009",
            [],
            "sqlite",
        )
        == []
    )


def test_relaxing_keeps_the_subquerys_own_filter():
    sql = "SELECT t.name FROM t WHERE t.year = 2009 AND t.rate = (SELECT MAX(t.rate) FROM t WHERE t.state = 'NV')"
    first = relaxed(sql, "worst-hit county in NV by 2009 rate", [], "sqlite")[0]
    assert "t.state = 'NV'" in first and "ORDER BY t.rate DESC LIMIT 1" in first and "(SELECT" not in first


def test_a_key_equal_to_the_top_groups_key_is_not_ranked_by_the_key():
    # the support rep of the most customers: ranking the rows by the rep's id would name the highest id
    sql = (
        "SELECT c.first_name FROM c WHERE c.year = 2009 AND c.rep_id = "
        "(SELECT c.rep_id FROM c GROUP BY c.rep_id ORDER BY COUNT(*) DESC LIMIT 1)"
    )
    assert relaxed(sql, "which support rep looks after the most customers in 2009?", [], "sqlite") == []
