"""Round 76: what the slice's SQL pattern costs the embedded model (grammar size, seconds per reply) and whether
llguidance keeps it, also on the bounded retry (`budget`). One dev database, a few questions; no scoring.

    PYTHONPATH=$PWD python bench/bi_r76_probe.py [db]    # at commit 5411058: the shipped local.py drops `pattern`
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import loading  # noqa: E402

QUESTIONS = ("transition metals - mean electronegativity", "total sales per country")


def main() -> None:
    from orrery.bi.compose import PARTS_SCHEMA
    from orrery.bi.constrain import constrained, sql_pattern
    from orrery.bi.tools import prompt
    from orrery.llm.local import LocalModel
    from orrery.messages import Message

    db = sys.argv[1] if len(sys.argv) > 1 else "chinook"
    bi = loading.load("bi_nokeys").context_for(db)
    model = LocalModel()
    model.load()
    system = prompt("query_parts").format(dialect=bi.engine.dialect)
    for q in QUESTIONS:
        tables = bi.semantic.retrieve(q)
        pattern = sql_pattern(bi.semantic, tables, aliases=False)
        user = f"Schema:\n{bi.semantic.render(tables, q)}\n\nQuestion: {q}"
        for name, schema in (("free", PARTS_SCHEMA), ("constrained", constrained(PARTS_SCHEMA, pattern))):
            for budget in (None, 200):
                request, _ = model._prepare(
                    [Message("system", system), Message("user", user)], (), "none", schema, 256, None, budget
                )
                t = time.monotonic()
                reply = model.chat(request)["choices"][0]["message"]["content"]
                row = {"q": q, "schema": name, "budget": budget, "pattern_chars": len(pattern or "")}
                row |= {"s": round(time.monotonic() - t, 2), "reply": json.loads(reply)}
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
