"""Fakes and factories shared by the research tests (imported by name: tests/ has no packages)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from orrery.research.search import HttpSearch, SearchBackend, SqliteIndex, TantivyIndex, query_terms
from orrery.research.types import Document

VOCAB = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


def random_corpus(rng: random.Random, n: int = 300) -> list[Document]:
    """Documents over a small vocabulary, dated across 2024-2025 to the second; ~15% undated."""
    docs = []
    for i in range(n):
        words = rng.choices(VOCAB, k=rng.randint(3, 12))
        date = None if rng.random() < 0.15 else EPOCH + timedelta(seconds=rng.randint(0, 2 * 365 * 86400))
        docs.append(
            Document(
                id=f"d{i}",
                title=" ".join(words[:2]),
                text=" ".join(words),
                date=date,
                url=f"https://example.org/{i}",
                source=rng.choice(["news", "blog"]),
            )
        )
    return docs


def fake_api(docs: list[Document], *, honour_before: bool) -> httpx.MockTransport:
    """A search API over ``docs``: term-count ranking, optionally ignoring the date bound."""
    by_id = {d.id: d for d in docs}

    def as_item(d: Document, score: float) -> dict[str, Any]:
        return {
            "doc": {"key": d.id, "headline": d.title, "body": d.text, "link": d.url},
            "meta": {"published": None if d.date is None else d.date.isoformat(), "relevance": score},
        }

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.startswith("/doc/"):
            d = by_id[request.url.path.removeprefix("/doc/")]
            return httpx.Response(200, json=as_item(d, 0.0))
        terms = set(query_terms(request.url.params["q"]))
        bound = request.url.params.get("published_before")
        scored = []
        for d in docs:
            if honour_before and bound and (d.date is None or d.date > datetime.fromisoformat(bound)):
                continue
            score = sum(w in terms for w in d.text.split())
            if score:
                scored.append((score, d))
        scored.sort(key=lambda x: (-x[0], x[1].id))
        return httpx.Response(200, json={"data": {"hits": [as_item(d, s) for s, d in scored]}})

    return httpx.MockTransport(handler)


def http_backend(docs: list[Document], *, honour_before: bool = False) -> HttpSearch:
    return HttpSearch(
        url_template="https://api.example.org/search?q={query}&n={k}",
        results_path="data.hits",
        fields={
            "id": "doc.key",
            "title": "doc.headline",
            "text": "doc.body",
            "url": "doc.link",
            "date": "meta.published",
            "score": "meta.relevance",
        },
        before_param="published_before",
        get_template="https://api.example.org/doc/{id}",
        client=httpx.Client(transport=fake_api(docs, honour_before=honour_before)),
    )


BackendFactory = Callable[[list[Document], Path], SearchBackend]

FACTORIES: dict[str, BackendFactory] = {
    "sqlite": lambda docs, tmp: SqliteIndex.create(tmp / "index.sqlite", docs),
    "tantivy": lambda docs, tmp: TantivyIndex.create(tmp / "tantivy", docs),
    "http": lambda docs, tmp: http_backend(docs),
    "http-honouring": lambda docs, tmp: http_backend(docs, honour_before=True),
}
LOCAL = ["sqlite", "tantivy"]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path
