"""Round 28 of the approved memory (issue 26): a kept term read inside a longer phrase that means something else. No
model: which phrases the code reads as a person's kept term (`ExampleMemory.said`, the reader of every check).

- `set`: round 27's paraphrase set (bench/bi_memory_r27_set.py, all 16 groups), each (kept, said) pair said inside
  round 27's question ("which one has the highest {said} ?"), the kept term asked as 'not held' (no layer column
  needed): wrong matches (a near phrase read as the kept term) and right ones (a phrasing of the same group read
  by its words); and each kept phrasing said as itself in OWN's questions (must all match).
- `sample`: round 26's 14 questions (bench/bi_memory_r26.py's SAMPLE), each term kept -> its gold column on the
  question's database: whether the shape check's reading (`decline.kept_reading`) rewrites the question as the
  person mapped it (`as_kept`), and, kept 'not held', declines it ("you said ...").

Run with PYTHONPATH at the base code (before) and at this branch (after):

    PYTHONPATH=$PWD python bench/bi_memory_r28.py --out bench/results/bi_memory_r28_here.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402

TEMPLATE = "which one has the highest {} ?"  # round 27's question level
OWN = [  # a kept term said as itself: written before any run, no question of a bench set
    "which one has the highest {} ?",
    "{} by region in 1990",
    "brazil's {} in 1990",
    "how many {} does it have",
    "what is the {} of each one?",
    "show {}, 1990 vs 2000",
    "list the 5 with the lowest {}",
]


def _memory(tmp: str) -> Any:
    from orrery.bi.examples import ExampleMemory, open_examples

    return ExampleMemory(open_examples(f"{tmp}/s.db", embedder=None))


def _said(memory: Any, layer: Any, kept: str, question: str) -> bool:
    """Whether `question` is read as saying `kept` (kept 'not held' on connection 'c')."""
    memory.keep_field("c", layer, kept, None)
    hit = bool(memory.said("c", layer, question))
    for k in memory.fields("c"):
        memory.examples.remove("c", k.id)
    memory.anew()
    return hit


def _mapped(memory: Any, layer: Any, kept: str, question: str) -> bool:
    """Whether the planner's term `kept` is mapped to the kept answer while `question` is asked (`asking`, this
    branch; the base has no question to read it in: mapped wherever the planner lists it)."""
    memory.keep_field("c", layer, kept, None)
    if hasattr(memory, "asking"):
        memory.asking("c", question, None)
    hit = memory.mapped("c", kept) is not None
    for k in memory.fields("c"):
        memory.examples.remove("c", k.id)
    memory.anew()
    return hit


def set_level() -> dict[str, Any]:
    from orrery.bi.examples import _core, _said_at, field_term
    from orrery.bi.semantic import Semantic

    s = _load("bi_memory_r27_set")
    layer = Semantic.from_dict({"database": "d", "tables": {}})
    rows, own = [], []
    with tempfile.TemporaryDirectory() as tmp:
        memory = _memory(tmp)
        for kept, said, match, group in s.pairs(list(s.GROUPS)):
            if field_term(kept) is not None:
                hit = _said(memory, layer, kept, TEMPLATE.format(said))
                planned = _mapped(memory, layer, kept, TEMPLATE.format(said))
                rows.append(
                    {"kept": kept, "said": said, "match": match, "group": group, "read": hit, "mapped": planned}
                )
        for g in s.GROUPS.values():
            for kept in (k for k in g["same"] if field_term(k) is not None):
                own += [{"kept": kept, "question": q.format(kept), "read": None} for q in OWN]
        for o in own:
            o["read"] = _said(memory, layer, o["kept"], o["question"])
            o["mapped"] = _mapped(memory, layer, o["kept"], o["question"])
    wrong = [r for r in rows if r["read"] and not r["match"]]
    right = [r for r in rows if r["read"] and r["match"]]
    # the planner lists the kept term's words for a near phrase that says them ('population' of 'male population')
    said_in = [r for r in rows if not r["match"] and _said_at(_core(r["kept"]), r["said"])]
    return {
        "pairs": len(rows),
        "wrong": len(wrong),
        "right": len(right),
        "wrong_pairs": [(r["kept"], r["said"]) for r in wrong],
        "right_pairs": [(r["kept"], r["said"]) for r in right],
        "planner_term_near": len(said_in),
        "planner_term_near_mapped": sum(r["mapped"] for r in said_in),
        "own_said": len(own),
        "own_read": sum(o["read"] for o in own),
        "own_missed": [o["question"] for o in own if not o["read"]],
        "own_mapped": sum(o["mapped"] for o in own),
    }


def sample_level() -> list[dict[str, Any]]:
    from orrery.bi.agent import BIAgent
    from orrery.bi.decline import kept_reading
    from orrery.bi.examples import teach, use_examples
    from orrery.llm.scripted import ScriptedModel

    r26, bnk = _load("bi_memory_r26"), _load("bi_nokeys")
    records, out = r26.stored(), []
    for which, question, term, column in r26.SAMPLE:
        engine = bnk.engine_for(records[(which, question)]["db"])
        row = {"set": which, "question": question, "term": term, "column": column}
        for arm, kept in (("kept", column), ("not_held", None)):
            with tempfile.TemporaryDirectory() as tmp:
                agent = use_examples(
                    BIAgent(ScriptedModel([]), engine, store=f"{tmp}/s.db", prose=False), f"{tmp}/s.db", embedder=None
                )
                agent.bi.approved.keep_field(engine.name, agent.bi.semantic, term, kept)
                teach(agent.bi, question)  # as the agent does before the shape check
                decline, read = kept_reading(agent.bi, question)
                mapped = agent.bi.approved.mapped(engine.name, term) is not None  # the planner listing the term
            row[arm] = read if arm == "kept" else decline
            row[f"{arm}_mapped"] = mapped
        row["kept_read"] = row["kept"] != question
        row["not_held_declined"] = bool(row["not_held"] and "you said the data does not hold" in row["not_held"])
        row["mapped"] = row["kept_mapped"] and row["not_held_mapped"]
        out.append(row)
        print(f"{row['kept_read']!s:5} {row['not_held_declined']!s:5} {question[:60]!r} -> {row['kept']!r}", flush=True)
    return out


def main() -> None:
    import orrery

    p = argparse.ArgumentParser()
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args()
    code = orrery.__file__
    level = set_level()
    print(json.dumps({k: v for k, v in level.items() if not k.endswith("pairs")}), flush=True)
    print("wrong:", level["wrong_pairs"], "\nright:", level["right_pairs"], flush=True)
    sample = sample_level()
    assert sys.modules["orrery"].__file__ == code, "the measured orrery changed on import"
    summary = {
        "code": code,
        "set": level,
        "sample_kept_read": sum(r["kept_read"] for r in sample),
        "sample_not_held_declined": sum(r["not_held_declined"] for r in sample),
        "sample_mapped": sum(r["mapped"] for r in sample),
        "sample": sample,
    }
    args.out.write_text(json.dumps(summary, indent=1, default=str))
    print(json.dumps({k: v for k, v in summary.items() if k not in ("set", "sample")}), flush=True)


if __name__ == "__main__":
    main()
