"""Round 41's no-model measure of the repair round's hint (bench/bi.md, round 41): for each stored "no table has a column
named X" error of an answerable development question (bench/bi_recompose.py's `newest()`), the hints compose's
`_hints` (of the code on PYTHONPATH) gives for X over the slice the query builder shows, with the lines of
`_layer_hints` (round 39's rule D; tools.py until round 45, compose.py since) where that code has them (what the repair round is shown), and whether they
hold the column X stands for (`MEANT`, read from the question and the gold before any measure).

    PYTHONPATH=$PWD python bench/bi_r41_hints.py out.json
"""

from __future__ import annotations

import json
import re
import sys
import types
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402

NAMED = re.compile(r"no table has a column named ((?:'[^']*'(?:, )?)+)")
TABLES = re.compile(r'"table": "([^"]*)"')
MEANT = {
    "shipping_mode": "orders.ship_mode",
    "bill_length": "penguin_obs.bill_len_mm",
    "Miles": "cars.mpg",
    "K": "phys_props.mp_k",
    "Invoice.Invoice2": "Invoice.InvoiceDate",
    "FlipperLength": "penguin_obs.flipper_mm",
    "revenue": "orders.sales",
    "ibm_cap_end": "inv_annual.mkt_val",
    "indicators.lifespan": "indicators.life_expectancy",
    "mg_weight": "frag_samples.mg_wt",
}


def main(out_path: str) -> None:
    from orrery.bi import compose, tools
    from orrery.bi.compose import _hints
    from orrery.bi.semantic import load

    rc, bnk = _load("bi_recompose"), _load("bi_nokeys")
    layers: dict[str, Any] = {}
    out: dict[str, Any] = {}
    for s, q in rc.newest():
        text = " ".join(q.get("steps", [])) + " " + (q.get("answer") or "")
        found = NAMED.search(text)
        if not q.get("gold") or not found:
            continue
        names = re.findall(r"'([^']*)'", found.group(1))
        if q["db"] not in layers:
            engine = bnk.engine_for(q["db"])
            layers[q["db"]] = load(engine.name, engine)
        semantic = layers[q["db"]]
        extra = [
            t for st in q["steps"] if st.startswith(("resolve_entities", "map_fields")) for t in TABLES.findall(st)
        ]
        tables = semantic.retrieve(q["question"], extra=extra)
        hints = _hints(semantic, names, tables)
        layer = ""
        if hasattr(compose, "_layer_hints"):  # round 45: rule D's lines come from compose, with `_hints`
            layer = compose._layer_hints(semantic, names, tables)
        elif hasattr(tools, "_layer_hints"):  # rounds 39-44
            layer = tools._layer_hints(types.SimpleNamespace(semantic=semantic), names, tables)
        hints += re.findall(r" may be ([\w.]+)", layer)
        meant = [MEANT.get(n) for n in names]
        out[f"{s}|{q['question']}"] = {
            "names": names,
            "slice": tables,
            "hints": hints,
            "meant": meant,
            "right": any(m in hints for m in meant if m),
        }
    Path(out_path).write_text(json.dumps(out, indent=1))
    print(f"{len(out)} errors, hint holds the meant column in {sum(v['right'] for v in out.values())}")
    for k, v in out.items():
        print(f"{v['right']!s:5} {k[:60]!r} {v['names']} -> {v['hints']} (slice {v['slice']})")


if __name__ == "__main__":
    main(sys.argv[1])
