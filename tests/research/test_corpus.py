from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from orrery.research.corpus import DATA_DIR, build_corpus, demo_index, load_questions, parse_value
from orrery.research.ingest import read_jsonl
from orrery.research.search import build_index


def question(qid: str, source: str, freeze: str, value: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": qid,
        "source": source,
        "question": extra.pop("question", f"Will {qid} happen by {{resolution_date}}?"),
        "resolution_criteria": "See source.",
        "background": extra.pop("background", f"Background of {qid}."),
        "market_info_resolution_criteria": "N/A",
        "url": f"https://example.org/{qid}",
        "freeze_datetime": f"{freeze}T00:00:00+00:00",
        "freeze_datetime_value": value,
        "freeze_datetime_value_explanation": "The market value.",
        **extra,
    }


def write_set(src: Path, due: str, questions: list[dict[str, Any]], resolutions: list[dict[str, Any]]) -> None:
    (src / "question_sets").mkdir(parents=True, exist_ok=True)
    (src / "resolution_sets").mkdir(parents=True, exist_ok=True)
    qs = {"forecast_due_date": due, "question_set": f"{due}-llm.json", "questions": questions}
    (src / "question_sets" / f"{due}-llm.json").write_text(json.dumps(qs))
    rs = {"forecast_due_date": due, "resolutions": resolutions}
    (src / "resolution_sets" / f"{due}_resolution_set.json").write_text(json.dumps(rs))


@pytest.fixture
def mini_forecastbench(tmp_path: Path) -> Path:
    src = tmp_path / "fb"
    write_set(
        src,
        "2025-10-26",
        [
            question("m1", "manifold", "2025-10-16", "0.25"),
            question(
                "SER",
                "fred",
                "2025-10-16",
                "5.13",
                question="Will SER rise by {resolution_date} vs {forecast_due_date}?",
            ),
            question("i1", "infer", "2025-10-16", "0.1", background="<p>Huawei &amp; <b>RAN</b></p>"),
        ],
        [
            {"id": "m1", "source": "manifold", "resolution_date": "2026-01-01", "resolved_to": 1.0, "resolved": True},
            {"id": "SER", "source": "fred", "resolution_date": "2025-11-02", "resolved_to": 0.0, "resolved": True},
            {"id": "SER", "source": "fred", "resolution_date": "2025-11-25", "resolved_to": 1.0, "resolved": True},
            {"id": "i1", "source": "infer", "resolution_date": "2026-01-01", "resolved_to": 0.3, "resolved": False},
        ],
    )
    write_set(src, "2025-11-23", [question("m1", "manifold", "2025-11-13", "0.75")], [])
    (src / "LICENSE").write_text("CC BY-SA 4.0 text")
    return src


def test_build_corpus_questions(mini_forecastbench: Path, tmp_path: Path) -> None:
    counts = build_corpus(mini_forecastbench, tmp_path / "out")
    rows = {r["id"]: r for r in load_questions(tmp_path / "out")}
    assert counts["questions"] == len(rows) == 5
    m1 = rows["2025-10-26/manifold/m1/2026-01-01"]
    assert (m1["market_value"], m1["resolution"], m1["freeze_date"]) == (0.25, 1.0, "2025-10-16")
    assert m1["question"] == "Will m1 happen by 2026-01-01?"
    fred = rows["2025-10-26/fred/SER/2025-11-02"]
    assert fred["question"] == "Will SER rise by 2025-11-02 vs 2025-10-26?"
    assert fred["market_value"] is None and fred["freeze_value"] == 5.13 and fred["resolution"] == 0.0
    assert rows["2025-10-26/infer/i1/2026-01-01"]["resolution"] is None  # unresolved: no outcome
    assert rows["2025-10-26/infer/i1/2026-01-01"]["background"] == "Huawei & RAN"
    later = rows["2025-11-23/manifold/m1/open"]  # market without a resolution entry
    assert later["resolution_date"] is None and later["market_value"] == 0.75
    assert (tmp_path / "out" / "LICENSE").read_text() == "CC BY-SA 4.0 text"
    assert (tmp_path / "out" / "ATTRIBUTION.md").exists()


def test_build_corpus_documents_are_dated_at_freeze(mini_forecastbench: Path, tmp_path: Path) -> None:
    build_corpus(mini_forecastbench, tmp_path / "out")
    docs = list(read_jsonl(tmp_path / "out" / "documents.jsonl"))
    assert all(d.date is not None for d in docs)
    values = sorted((d.date, d.text) for d in docs if d.id.startswith("fb-val-manifold"))
    assert [v[0] for v in values] == [datetime(2025, 10, 16, tzinfo=UTC), datetime(2025, 11, 13, tzinfo=UTC)]
    assert "0.250 (25.0% chance of Yes)" in values[0][1] and "75.0%" in values[1][1]
    backgrounds = [d for d in docs if d.text == "Background of m1."]
    # Deduplicated across sets and dated at the first freeze it appeared at.
    assert len(backgrounds) == 1 and backgrounds[0].date == datetime(2025, 10, 16, tzinfo=UTC)


def test_the_bound_hides_later_market_values(mini_forecastbench: Path, tmp_path: Path) -> None:
    build_corpus(mini_forecastbench, tmp_path / "out")
    index = build_index(tmp_path / "out" / "documents.jsonl", tmp_path / "index.sqlite")
    early = index.search("m1 happen", 10, before=date(2025, 10, 16))
    assert any("25.0%" in d.text for d in early) and not any("75.0%" in d.text for d in early)
    assert any("75.0%" in d.text for d in index.search("m1 happen", 10, before=date(2025, 11, 13)))


def test_parse_value() -> None:
    assert parse_value("0.5") == 0.5 and parse_value("1e-3") == 0.001 and parse_value("-2") == -2.0
    assert parse_value("No") == "No" and parse_value("200m freestyle") == "200m freestyle"
    assert parse_value("N/A") is None and parse_value(None) is None


def test_shipped_data_is_small_licensed_and_dated() -> None:
    files = {p.name: p.stat().st_size for p in DATA_DIR.iterdir()}
    assert {"questions.jsonl", "documents.jsonl", "LICENSE", "ATTRIBUTION.md"} <= set(files)
    assert sum(files.values()) < 6_000_000
    assert "Attribution-ShareAlike 4.0" in (DATA_DIR / "LICENSE").read_text()
    rows = load_questions()
    assert len(rows) > 500 and len({r["id"] for r in rows}) == len(rows)
    assert {r["source"] for r in rows} >= {"manifold", "metaculus", "polymarket", "infer", "fred", "acled"}
    assert all(r["resolution"] in (None, 0.0, 1.0) for r in rows)


def test_shipped_corpus_never_leaks_past_the_freeze(tmp_path: Path) -> None:
    """Every shipped question's own text as a query, bounded at its freeze date."""
    index = demo_index(tmp_path / "demo.sqlite")
    rows = load_questions()[::7]
    for row in rows:
        bound = date.fromisoformat(row["freeze_date"])
        limit = datetime(bound.year, bound.month, bound.day, tzinfo=UTC)
        hits = index.search(row["question"], 10, before=bound)
        assert hits, row["id"]
        assert all(h.date is not None and h.date <= limit for h in hits)
