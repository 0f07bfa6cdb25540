"""Round 56 (bench/bi.md, round 56, class E): SQL the model wrote that ends inside a string ('... sex = 'FEMAL', its reply
cut off) does not tokenize; the query builder asks for the repair as for any failing query instead of raising
sqlglot's TokenError (held-out #21: 'gentoo flipper length, males compared with females' ended as an error)."""

from __future__ import annotations

from orrery.bi import tools
from orrery.bi.tools import build_sql

CUT = "SELECT AVG(b.mass_g) FROM birds AS b JOIN species AS s ON b.species_id = s.id WHERE s.common_name = 'Gent"
WHOLE = "SELECT AVG(b.mass_g) FROM birds AS b JOIN species AS s ON b.species_id = s.id WHERE s.common_name = 'Gentoo'"


def test_sql_cut_off_inside_a_string_is_repaired_not_raised(birds, monkeypatch):
    replies = iter([CUT, WHOLE])
    monkeypatch.setattr(tools, "write_sql", lambda *_: next(replies))
    built = build_sql(birds, "fallback", "", ["birds", "species"], [], "mean mass of gentoos", lambda o: o[0])
    assert built["repaired"] and "'Gentoo'" in built["sql"], built
