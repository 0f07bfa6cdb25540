"""Round 28: the field check replayed without the model. Every declined question of the newest stored record of
every development set (bench/results/bi_nokeys_*.json; never a held-out set not yet run: heldout19) whose reason names terms ('the data has no
field [or value] for ...'): are those terms still missing under the code on sys.path (`missing_fields`), and does the
shape check (`shape_decline`) still decline the question? Answerable ones should drop; unanswerable ones must stay.

    PYTHONPATH=$PWD python bench/bi_r28_replay.py [--tag X]   # writes results/bi_r28_replay[_X].json
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
_FIELD = re.compile(r"no field (?:or value )?for (.*)$")


def _nokeys() -> Any:
    spec = importlib.util.spec_from_file_location("bi_nokeys", HERE / "bi_nokeys.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def newest_declined() -> list[dict[str, Any]]:
    """The newest record of each (set, question), kept when it was declined on named field terms."""
    newest: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}
    for path in sorted((HERE / "results").glob("bi_nokeys_*.json")):
        if "shapes" in path.name or "heldout19" in path.name or re.search(r"_r(28|32)", path.name):  # nor own runs
            continue
        data = json.loads(path.read_text())
        if not isinstance(data, dict) or "questions" not in data:
            continue
        for q in data["questions"]:
            key = (data.get("set", ""), q["question"])
            if key not in newest or data.get("date", "") > newest[key][0]:
                newest[key] = (data.get("date", ""), q)
    out = []
    for (which, _), (_, q) in sorted(newest.items()):
        m = _FIELD.search((q.get("answer") or "").split(" (")[0])
        if q.get("status") == "declined" and m:
            out.append({**q, "set": which, "terms": re.findall(r"'([^']+)'", m.group(1))})
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--tag", default="")
    args = p.parse_args()
    from orrery.bi import decline as d
    from orrery.bi.semantic import load
    from orrery.bi.tools import BIContext

    nk, contexts, rows = _nokeys(), {}, []
    for q in newest_declined():
        if q["db"] not in contexts:
            engine = nk.engine_for(q["db"])
            contexts[q["db"]] = BIContext(engine, load(engine.name, engine), None)
        bi = contexts[q["db"]]
        missing = d.missing_fields(bi, q["terms"], q["question"])
        shape = d.shape_decline(bi, q["question"])
        rows.append(
            {
                "set": q["set"],
                "question": q["question"],
                "answerable": q.get("gold") is not None,
                "terms": q["terms"],
                "missing": missing,
                "shape": shape,
            }
        )
        kind = "ANS" if q.get("gold") else "UN "
        print(
            f"{kind} {'DECLINED' if missing or shape else 'passes  '} {q['set']}: {q['question']!r} {q['terms']} -> {missing} {shape or ''}"
        )
    for answerable in (True, False):
        rs = [r for r in rows if r["answerable"] is answerable]
        still = sum(bool(r["missing"] or r["shape"]) for r in rs)
        print(f"{'answerable' if answerable else 'unanswerable'}: still declined {still}/{len(rs)}")
    out = HERE / "results" / f"bi_r28_replay{'_' + args.tag if args.tag else ''}.json"
    out.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
