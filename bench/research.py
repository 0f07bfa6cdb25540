"""Search latency of the research backends on a 10k-document index; Brier hook for later.

Corpus: the shipped ForecastBench documents (orrery/research/data/forecastbench,
~3k dated documents) cut into passages of at most 80 words (title kept, "part i"
appended). Until there are 10,000 passages, further rounds add variants of every
passage: round r shifts its date r*30 days earlier and rotates its words by 7*r
positions (same vocabulary, different phrase order and date), so term statistics
stay realistic and date filters hit a spread of dates.

Queries: 200 shipped questions (every n-th row). "short" = first 6 query terms
(what an agent types), "long" = the full question text. Each is run with k=10,
bounded at the question's freeze date ("bounded") and without a bound ("open").

    python bench/research.py            # writes bench/results/research.json and bench/research.md
    python bench/research.py --brier 12 # the embedded model on 12 resolved questions -> Brier

:func:`add_brier` merges a Brier summary (from orrery.research.batch.brier_summary)
into the same files once the agent has produced trajectories. :func:`run_brier` runs the
research agent with the embedded model on a deterministic sample of resolved shipped
questions (round-robin over sources, by id hash), bounded at each question's freeze date,
and records its Brier score beside the always-0.5 and market-value baselines.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import statistics
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from orrery.research.batch import BrierSummary, write_json_atomic
from orrery.research.corpus import documents_path, load_questions
from orrery.research.ingest import read_jsonl
from orrery.research.search import BACKENDS, SearchBackend, query_terms
from orrery.research.types import Document

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results" / "research.json"
REPORT = ROOT / "research.md"
N_DOCS = 10_000
CHUNK_WORDS = 80
N_QUERIES = 200
K = 10
WARMUP = 20


def chunks(doc: Document, words: int = CHUNK_WORDS) -> Iterator[Document]:
    tokens = doc.text.split()
    for i in range(0, max(len(tokens), 1), words):
        part = i // words + 1
        yield replace(
            doc, id=f"{doc.id}#p{part}", title=f"{doc.title} (part {part})", text=" ".join(tokens[i : i + words])
        )


def variant(doc: Document, r: int) -> Document:
    tokens = doc.text.split()
    shift = (7 * r) % max(len(tokens), 1)
    return replace(
        doc,
        id=f"{doc.id}#v{r}",
        text=" ".join(tokens[shift:] + tokens[:shift]),
        date=None if doc.date is None else doc.date - timedelta(days=30 * r),
    )


def synthesise(n: int = N_DOCS) -> list[Document]:
    passages = [c for d in read_jsonl(documents_path()) for c in chunks(d)]
    out = list(passages)
    r = 1
    while len(out) < n:
        out.extend(variant(p, r) for p in passages[: n - len(out)])
        r += 1
    return out[:n]


def queries(n: int = N_QUERIES) -> list[tuple[str, str, date]]:
    rows = load_questions()
    step = max(len(rows) // n, 1)
    picked = rows[::step][:n]
    return [
        (" ".join(query_terms(q["question"])[:6]), q["question"], date.fromisoformat(q["freeze_date"])) for q in picked
    ]


def percentiles(ms: list[float]) -> dict[str, float]:
    cuts = statistics.quantiles(ms, n=100, method="inclusive")
    return {"p50_ms": round(cuts[49], 3), "p95_ms": round(cuts[94], 3), "mean_ms": round(statistics.fmean(ms), 3)}


def measure(index: SearchBackend, qs: list[tuple[str, str, date]]) -> dict[str, dict[str, float]]:
    for short, _, bound in qs[:WARMUP]:
        index.search(short, K, before=bound)
    results = {}
    for shape in ("short", "long"):
        for bounded in (True, False):
            ms = []
            for short, long, bound in qs:
                text = short if shape == "short" else long
                start = time.perf_counter()
                index.search(text, K, before=bound if bounded else None)
                ms.append((time.perf_counter() - start) * 1000)
            results[f"{shape}/{'bounded' if bounded else 'open'}"] = percentiles(ms)
    return results


def size_bytes(path: Path) -> int:
    return path.stat().st_size if path.is_file() else sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def run_search_bench() -> dict[str, Any]:
    docs = synthesise()
    qs = queries()
    out: dict[str, Any] = {
        "corpus": {
            "documents": len(docs),
            "dated": sum(d.date is not None for d in docs),
            "mean_words": round(statistics.fmean(len(d.text.split()) for d in docs), 1),
            "recipe": f"shipped ForecastBench documents, {CHUNK_WORDS}-word passages, then date-shifted word-rotated variants",
        },
        "queries": {"count": len(qs), "k": K, "warmup": WARMUP},
        "machine": {"python": platform.python_version(), "platform": platform.platform(), "cpus": _cpus()},
        "backends": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, cls in BACKENDS.items():
            path = Path(tmp) / f"index-{name}"
            start = time.perf_counter()
            index = cls.create(path, docs)
            build_s = time.perf_counter() - start
            out["backends"][name] = {
                "build_s": round(build_s, 2),
                "index_mb": round(size_bytes(path) / 1e6, 2),
                "latency": measure(index, qs),
            }
    return out


def _cpus() -> int:
    return len(os.sched_getaffinity(0))


def render(results: dict[str, Any]) -> str:
    c = results["corpus"]
    lines = [
        "# Research search benchmark",
        "",
        f"{c['documents']:,} documents ({c['dated']:,} dated, {c['mean_words']} words on average): {c['recipe']}.",
        f"{results['queries']['count']} queries from shipped questions, k={results['queries']['k']}, "
        f"after {results['queries']['warmup']} warm-up queries. 'short' = first 6 terms, 'long' = whole question; "
        "'bounded' = before=freeze date, 'open' = no bound. "
        f"Machine: {results['machine']['cpus']} CPUs, Python {results['machine']['python']}.",
        "",
        "| backend | build s | index MB | query | p50 ms | p95 ms | mean ms |",
        "|---|---:|---:|---|---:|---:|---:|",
    ]
    for name, b in results["backends"].items():
        for shape, lat in b["latency"].items():
            lines.append(
                f"| {name} | {b['build_s']} | {b['index_mb']} | {shape} | {lat['p50_ms']} | {lat['p95_ms']} | {lat['mean_ms']} |"
            )
    brier = results.get("brier")
    runs = results.get("brier_runs", {})
    lines += [
        "",
        "## Brier",
        "",
        "The runs below are single submits, before forecasts were pooled and calibrated; the calibrated "
        "pipeline's Brier per source (raw, pooled, calibrated out of fold, always 0.5, market) is in "
        "research_calibration.md (`bench/research_calibration.py`).",
        "",
    ]
    if not brier:
        lines.append("Not measured yet: needs agent trajectories (see `add_brier`).")
    for label, s in (brier or {}).items():
        lines += [
            f"### {label}",
            "",
            f"- questions scored: {s['n']}; Brier {_fmt(s['brier'])} vs always-0.5 {_fmt(s['always_half'])}",
            f"- with a market value: {s['n_market']}; Brier {_fmt(s['brier_on_market'])} vs market {_fmt(s['market'])}",
        ]
        if label in runs:
            r = runs[label]
            lines.append(
                f"- run: {r['questions']} questions, {r['statuses']}, "
                f"{r['seconds_per_question']:.1f} s per question ({r['setup']})"
            )
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def save(results: dict[str, Any]) -> None:
    write_json_atomic(RESULTS, results)
    REPORT.write_text(render(results), encoding="utf-8")


def add_brier(label: str, summary: BrierSummary) -> dict[str, Any]:
    """Merge one Brier summary (e.g. label "qwen-0.5b/2025-10-26") into the saved results."""
    results = json.loads(RESULTS.read_text(encoding="utf-8"))
    results.setdefault("brier", {})[label] = summary.to_dict()
    save(results)
    return results


def brier_sample(n: int) -> list[dict[str, Any]]:
    """``n`` resolved shipped questions, round-robin over sources, each source's in id-hash order."""
    by_source: dict[str, list[dict[str, Any]]] = {}
    for q in sorted(
        (q for q in load_questions() if q["resolution"] is not None),
        key=lambda q: hashlib.sha1(q["id"].encode()).hexdigest(),
    ):
        by_source.setdefault(q["source"], []).append(q)
    picked: list[dict[str, Any]] = []
    while len(picked) < n and any(by_source.values()):
        for rows in by_source.values():
            if rows and len(picked) < n:
                picked.append(rows.pop(0))
    return picked


def run_brier(n: int = 12, max_rounds: int = 6, wall_time: float = 120.0, note: str = "") -> dict[str, Any]:
    """The embedded model through the research agent on ``n`` resolved questions; records the Brier."""
    from orrery.llm.local import LocalModel
    from orrery.research.corpus import demo_index
    from orrery.research.runner import run_batch

    questions = brier_sample(n)
    with tempfile.TemporaryDirectory() as tmp:
        index = demo_index(Path(tmp) / "demo.sqlite")
        batch = run_batch(
            questions,
            Path(tmp) / "out",
            LocalModel(),
            workers=1,
            index=index,
            k=3,
            max_rounds=max_rounds,
            wall_time=wall_time,
        )
    summary = batch.summary
    label = f"qwen2.5-coder-0.5b (embedded), {n} resolved questions" + (f", {note}" if note else "")
    results = add_brier(label, BrierSummary(**summary["brier"]))
    results.setdefault("brier_runs", {})[label] = {
        "questions": summary["questions"],
        "statuses": summary["statuses"],
        "seconds_per_question": summary["seconds_per_question"],
        "setup": f"max {max_rounds} steps, wall time {wall_time:.0f} s, k=3, guided tools, "
        f"{_cpus()} CPUs, llama.cpp in process",
        "rows": summary["rows"],
    }
    save(results)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--brier", type=int, metavar="N", help="run the embedded model on N resolved questions")
    parser.add_argument("--note", default="", help="appended to the Brier label (e.g. the prompt variant)")
    args = parser.parse_args()
    if args.brier:
        run_brier(args.brier, note=args.note)
        print(REPORT.read_text(encoding="utf-8"))
        return
    results = run_search_bench()
    if RESULTS.exists():  # keep Brier figures recorded earlier
        saved = json.loads(RESULTS.read_text(encoding="utf-8"))
        results["brier"] = saved.get("brier", {})
        results["brier_runs"] = saved.get("brier_runs", {})
    save(results)
    print(REPORT.read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
