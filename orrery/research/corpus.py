"""ForecastBench questions and a dated document corpus built from them.

Source: ForecastBench question and resolution sets by the Forecasting Research
Institute, CC BY-SA 4.0 (https://github.com/forecastingresearch/forecastbench-datasets).
The files written here are adaptations and carry the same licence; the licence
text and attribution ship beside them in ``orrery/research/data/forecastbench``.

Two outputs:

* ``questions.jsonl`` - one row per (question set, question, resolution date):
  ``id, source, source_id, question_set, question, resolution_criteria,
  background, freeze_date, forecast_due_date, resolution_date, market_value,
  freeze_value, freeze_value_explanation, resolution, url``. ``market_value`` is
  the market/crowd probability at the freeze date (market sources only);
  ``resolution`` is 0/1 when resolved, else null.
* ``documents.jsonl`` - dated documents that really existed at the freeze date:
  question backgrounds (deduplicated, dated at the first freeze they appear in)
  and the market value / data value of every question at every freeze date.

The shipped package data is a stratified sample of questions (see
:data:`SHIPPED_PER_SOURCE`) with the full document corpus. Rebuild everything:

    python -m orrery.research.corpus /work/shared/data/forecastbench OUT_DIR [--per-source N]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orrery.research.ingest import html_to_text
from orrery.research.search import SqliteIndex, TantivyIndex, build_index
from orrery.research.types import Document, to_utc

DATA_DIR = Path(__file__).parent / "data" / "forecastbench"
QUESTIONS_FILE = "questions.jsonl"
DOCUMENTS_FILE = "documents.jsonl"
SHIPPED_PER_SOURCE = 8
MARKET_SOURCES = frozenset({"manifold", "metaculus", "polymarket", "infer"})
SOURCE_LABELS = {
    "manifold": "Manifold market",
    "metaculus": "Metaculus community prediction",
    "polymarket": "Polymarket market",
    "infer": "INFER crowd forecast",
    "acled": "ACLED conflict data",
    "dbnomics": "DBnomics series",
    "fred": "FRED series",
    "wikipedia": "Wikipedia data",
    "yfinance": "Yahoo Finance quote",
}
_TAG = re.compile(r"<[a-zA-Z/][^>]*>")


@dataclass(frozen=True)
class QuestionSet:
    due_date: str
    questions: list[dict[str, Any]]
    resolutions: dict[tuple[str, str], list[dict[str, Any]]]


def load_question_sets(src: Path) -> list[QuestionSet]:
    """Every ``question_sets/*-llm.json`` joined with its ``resolution_sets`` file on (source, id)."""
    sets = []
    for qpath in sorted((src / "question_sets").glob("*-llm.json")):
        qdata = json.loads(qpath.read_text(encoding="utf-8"))
        due = qdata["forecast_due_date"]
        rpath = src / "resolution_sets" / f"{due}_resolution_set.json"
        resolutions: dict[tuple[str, str], list[dict[str, Any]]] = {}
        if rpath.exists():
            for r in json.loads(rpath.read_text(encoding="utf-8"))["resolutions"]:
                resolutions.setdefault((r["source"], str(r["id"])), []).append(r)
        sets.append(QuestionSet(due, qdata["questions"], resolutions))
    return sets


_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def parse_value(value: Any) -> float | str | None:
    """A freeze value: a number, a label such as ``'No'`` or ``'200m freestyle'``, or None."""
    if value in (None, "", "N/A"):
        return None
    text = str(value).strip()
    return float(text) if _NUMBER.fullmatch(text) else text


def clean_text(text: str) -> str:
    """Backgrounds are Markdown or (INFER, some FRED) HTML; HTML becomes plain text."""
    text = html_to_text(text) if _TAG.search(text) else text
    return "\n".join(line.rstrip() for line in text.strip().splitlines()).strip()


def fill_dates(template: str, due_date: str, resolution_date: str | None) -> str:
    return template.replace("{forecast_due_date}", due_date).replace(
        "{resolution_date}", resolution_date or "the resolution date"
    )


def question_rows(qset: QuestionSet) -> Iterator[dict[str, Any]]:
    """Rows of one question set: one per known resolution date (markets have one)."""
    for q in qset.questions:
        source, source_id = q["source"], str(q["id"])
        entries = sorted(qset.resolutions.get((source, source_id), []), key=lambda r: r["resolution_date"])
        if not entries and source in MARKET_SOURCES:
            entries = [{"resolution_date": None, "resolved": False, "resolved_to": None}]
        freeze_value = parse_value(q.get("freeze_datetime_value"))
        for entry in entries:
            res_date = entry["resolution_date"]
            yield {
                "id": f"{qset.due_date}/{source}/{source_id}/{res_date or 'open'}",
                "source": source,
                "source_id": source_id,
                "question_set": qset.due_date,
                "question": fill_dates(q["question"], qset.due_date, res_date),
                "resolution_criteria": fill_dates(q.get("resolution_criteria", ""), qset.due_date, res_date),
                "background": clean_text(q.get("background") or ""),
                "freeze_date": to_utc(q["freeze_datetime"]).date().isoformat(),
                "forecast_due_date": qset.due_date,
                "resolution_date": res_date,
                "market_value": freeze_value if source in MARKET_SOURCES else None,
                "freeze_value": freeze_value,
                "freeze_value_explanation": q.get("freeze_datetime_value_explanation", ""),
                "resolution": float(entry["resolved_to"]) if entry["resolved"] else None,
                "url": q.get("url", ""),
            }


def _short_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def background_text(q: dict[str, Any]) -> str:
    parts = [clean_text(q.get("background") or "")]
    criteria = q.get("market_info_resolution_criteria") or "N/A"
    if criteria != "N/A":
        parts.append("Resolution criteria: " + clean_text(criteria))
    return "\n\n".join(p for p in parts if p)


def background_documents(sets: Iterable[QuestionSet]) -> list[Document]:
    """One document per distinct background text, dated at the earliest freeze that shows it."""
    first: dict[str, tuple[str, dict[str, Any], set[str]]] = {}
    for qset in sets:
        for q in qset.questions:
            text = background_text(q)
            if not text:
                continue
            freeze, q0, askers = first.setdefault(text, (q["freeze_datetime"], q, set()))
            askers.add(f"{q['source']}/{q['id']}")
            if to_utc(q["freeze_datetime"]) < to_utc(freeze):
                first[text] = (q["freeze_datetime"], q0, askers)
    docs = []
    for text, (freeze, q, askers) in first.items():
        label = SOURCE_LABELS.get(q["source"], q["source"])
        question = _first_line(fill_dates(q["question"], "the forecast date", None))
        title = f"{label}: {question}" if len(askers) == 1 else f"{label}: background shared by {len(askers)} questions"
        docs.append(
            Document(
                id=f"fb-bg-{_short_hash(text)}",
                title=title,
                text=text,
                date=to_utc(freeze),
                url=q.get("url", ""),
                source=f"forecastbench/{q['source']}",
            )
        )
    return docs


def value_document(q: dict[str, Any]) -> Document | None:
    """The market probability or the data value of one question at its freeze date."""
    value = parse_value(q.get("freeze_datetime_value"))
    if value is None:
        return None
    source = q["source"]
    freeze = to_utc(q["freeze_datetime"])
    day = freeze.date().isoformat()
    label = SOURCE_LABELS.get(source, source)
    question = _first_line(fill_dates(q["question"], day, None))
    explanation = (q.get("freeze_datetime_value_explanation") or "").strip()
    if source in MARKET_SOURCES and isinstance(value, float):
        text = f'On {day} the {label} for "{question}" stood at {value:.3f} ({value:.1%} chance of Yes).'
    else:
        shown = f"{value:g}" if isinstance(value, float) else value
        text = f'On {day}, {label} value for "{question}": {shown}.'
    if explanation:
        text += f" ({explanation})"
    return Document(
        id=f"fb-val-{source}-{_short_hash(str(q['id']))}-{day}",
        title=f"{label} on {day}: {question}",
        text=text + f"\nSource: {q.get('url', '')}",
        date=freeze,
        url=q.get("url", ""),
        source=f"forecastbench/{source}",
    )


def value_documents(sets: Iterable[QuestionSet]) -> list[Document]:
    docs: dict[str, Document] = {}
    for qset in sets:
        for q in qset.questions:
            doc = value_document(q)
            if doc is not None:
                docs[doc.id] = doc
    return list(docs.values())


def sample_rows(rows: list[dict[str, Any]], per_source: int | None) -> list[dict[str, Any]]:
    """Deterministic stratified sample: per question set and source, the ``per_source``
    questions with the smallest id hash, each with all its resolution dates."""
    if per_source is None:
        return rows
    keep: dict[tuple[str, str], list[str]] = {}
    for key in sorted(
        {(r["question_set"], r["source"], r["source_id"]) for r in rows}, key=lambda k: _short_hash("/".join(k))
    ):
        chosen = keep.setdefault(key[:2], [])
        if len(chosen) < per_source:
            chosen.append(key[2])
    return [r for r in rows if r["source_id"] in keep.get((r["question_set"], r["source"]), [])]


def write_jsonl(rows: Iterable[dict[str, Any]], path: Path) -> int:
    n = 0
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
            n += 1
    return n


def build_corpus(src: Path, out: Path, *, per_source: int | None = None) -> dict[str, int]:
    """Write ``questions.jsonl``, ``documents.jsonl`` and the licence into ``out``."""
    sets = load_question_sets(src)
    out.mkdir(parents=True, exist_ok=True)
    rows = sample_rows([row for qset in sets for row in question_rows(qset)], per_source)
    docs = sorted(background_documents(sets) + value_documents(sets), key=lambda d: (d.date, d.id))
    counts = {
        "questions": write_jsonl(rows, out / QUESTIONS_FILE),
        "documents": write_jsonl((d.to_json() for d in docs), out / DOCUMENTS_FILE),
    }
    shutil.copyfile(src / "LICENSE", out / "LICENSE")
    attribution = DATA_DIR / "ATTRIBUTION.md"
    if (out / attribution.name).resolve() != attribution.resolve():
        shutil.copyfile(attribution, out / attribution.name)
    return counts


def load_questions(path: Path | None = None) -> list[dict[str, Any]]:
    """Question rows from ``path`` (a file or a folder holding questions.jsonl); default: shipped sample."""
    path = DATA_DIR if path is None else Path(path)
    path = path / QUESTIONS_FILE if path.is_dir() else path
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def documents_path(folder: Path | None = None) -> Path:
    return (DATA_DIR if folder is None else Path(folder)) / DOCUMENTS_FILE


def demo_index(out: Path, backend: str = "sqlite") -> SqliteIndex | TantivyIndex:
    """Index the shipped document corpus into ``out`` (a file for sqlite, a folder for tantivy)."""
    return build_index(documents_path(), out, backend=backend)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Build ForecastBench questions + dated document corpus.")
    parser.add_argument("src", type=Path, help="folder with question_sets/, resolution_sets/, LICENSE")
    parser.add_argument("out", type=Path)
    parser.add_argument("--per-source", type=int, default=None, help="sample N questions per set and source")
    args = parser.parse_args(argv)
    counts = build_corpus(args.src, args.out, per_source=args.per_source)
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
