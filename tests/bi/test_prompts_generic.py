"""The SQL step's system prompts are read on every database: an example written in a shipped database's names
('year(orders.o_orderdate) = 1995') is copied by the embedded model onto databases that lack them (bench/bi.md,
"Held-out #18": three questions ended in "no table has a column named 'o_orderdate'")."""

from __future__ import annotations

import pytest
import yaml

from orrery.bi.tools import PROMPTS

BI = PROMPTS.parent
SHIPPED = sorted({t for layer in (BI / "semantic").glob("*.yaml") for t in yaml.safe_load(layer.read_text())["tables"]})


@pytest.mark.parametrize("name", ["query_parts", "query_builder", "plan"])
def test_the_sql_steps_prompts_name_no_table_of_a_shipped_database(name):
    text = (BI / "prompts" / f"{name}.md").read_text()
    assert len(SHIPPED) > 10  # both shipped layers were read
    assert [t for t in SHIPPED if f"{t}." in text] == []
