from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta, timezone

import httpx
import pytest
from research_fakes import EPOCH, VOCAB, http_backend, random_corpus

from orrery.research.search import (
    DateLeakError,
    SearchBackend,
    SqliteIndex,
    TantivyIndex,
    check_bounds,
    query_terms,
    resolve_filters,
)
from orrery.research.types import Document, to_utc


def random_bound(rng: random.Random) -> date | datetime:
    """Dates, naive datetimes (UTC) and datetimes in other zones across the corpus span."""
    moment = EPOCH + timedelta(seconds=rng.randint(-86400, 2 * 365 * 86400))
    kind = rng.randrange(3)
    if kind == 0:
        return moment.date()
    if kind == 1:
        return moment.replace(tzinfo=None)
    return moment.astimezone(timezone(timedelta(hours=rng.randint(-11, 12))))


def test_date_bound_is_never_crossed(make_backend) -> None:
    """Property over 300 random queries: nothing dated after the bound, nothing undated;
    and for local indexes the filter runs inside the engine, so k hits come back
    whenever k eligible documents match."""
    rng = random.Random(20251016)
    docs = random_corpus(rng)
    backend: SearchBackend = make_backend(docs)
    is_local = isinstance(backend, SqliteIndex | TantivyIndex)
    for _ in range(300):
        query = " ".join(rng.sample(VOCAB, rng.randint(1, 3)))
        bound, k = random_bound(rng), rng.randint(1, 20)
        hits = backend.search(query, k, before=bound)
        limit = to_utc(bound)
        assert all(h.date is not None and h.date <= limit for h in hits), (query, bound)
        terms = set(query.split())
        eligible = [d for d in docs if d.date is not None and d.date <= limit and terms & set(d.text.split())]
        assert {h.id for h in hits} <= {d.id for d in eligible}
        if is_local or backend.before_param:
            assert len(hits) == min(k, len(eligible)), (query, bound, k)


def test_bound_is_inclusive_to_the_second(make_backend) -> None:
    at = datetime(2025, 10, 16, tzinfo=UTC)
    docs = [
        Document("on", "alpha", "alpha", at),
        Document("after", "alpha", "alpha", at + timedelta(seconds=1)),
        Document("before", "alpha", "alpha", at - timedelta(days=1)),
        Document("undated", "alpha", "alpha", None),
    ]
    backend = make_backend(docs)
    assert {h.id for h in backend.search("alpha", 10, before=date(2025, 10, 16))} == {"on", "before"}
    # 02:00 in UTC+2 is midnight UTC: the same instant.
    plus_two = datetime(2025, 10, 16, 2, tzinfo=timezone(timedelta(hours=2)))
    assert {h.id for h in backend.search("alpha", 10, before=plus_two)} == {"on", "before"}
    assert {h.id for h in backend.search("alpha", 10, before=at - timedelta(seconds=1))} == {"before"}
    assert {h.id for h in backend.search("alpha", 10)} == {"on", "after", "before", "undated"}


def test_after_and_source_filters(make_local) -> None:
    docs = [
        Document("old", "alpha", "alpha", datetime(2024, 1, 1), source="news"),
        Document("new", "alpha", "alpha", datetime(2025, 1, 1), source="news"),
        Document("blog", "alpha", "alpha", datetime(2025, 1, 1), source="blog"),
    ]
    backend = make_local(docs)
    assert {h.id for h in backend.search("alpha", 10, after=date(2024, 6, 1))} == {"new", "blog"}
    assert {h.id for h in backend.search("alpha", 10, source="news")} == {"old", "new"}
    assert {h.id for h in backend.search("alpha", 10, source=["blog"], before=date(2025, 6, 1))} == {"blog"}
    with pytest.raises(TypeError, match="unknown search filters"):
        backend.search("alpha", 10, befor=date(2025, 1, 1))


def test_ranking_prefers_rare_terms_titles_and_repetition(make_local) -> None:
    filler = [Document(f"f{i}", "common words", "common words here " * 3, datetime(2025, 1, 1)) for i in range(30)]
    docs = [
        *filler,
        Document("title", "Nuclear fusion milestone", "a report on energy", datetime(2025, 1, 1)),
        Document(
            "once", "Energy news", "fusion appears once in a long text about common words here", datetime(2025, 1, 1)
        ),
        Document("rare", "misc", "common zeppelin", datetime(2025, 1, 1)),
    ]
    backend = make_local(docs)
    hits = backend.search("fusion", 5)
    assert [h.id for h in hits] == ["title", "once"]
    assert hits[0].score > hits[1].score > 0
    # A rare term outweighs a term that is in every filler document.
    assert backend.search("common zeppelin", 1)[0].id == "rare"


def test_stemming_and_query_syntax_is_neutralised(make_local) -> None:
    docs = [Document("a", "Elections in 2026", "The electorate elected a new parliament.", datetime(2025, 1, 1))]
    backend = make_local(docs)
    assert [h.id for h in backend.search("election", 3)] == ["a"]
    for nasty in ['"unbalanced', "AND OR NOT", "title:elections", "elect* -(parliament", "", "   ", "NEAR(x y)"]:
        backend.search(nasty, 3)  # must not raise a syntax error
    assert backend.search("", 3) == []


def test_get_roundtrip(make_backend) -> None:
    doc = Document("x-1", "Title", "alpha body", datetime(2025, 3, 4, 5, 6, 7, tzinfo=UTC), "https://e.org/x", "news")
    backend = make_backend([doc, Document("y", "other", "bravo", None)])
    hit = backend.search("alpha", 1)[0]
    assert (hit.id, hit.title, hit.text, hit.date, hit.url) == (doc.id, doc.title, doc.text, doc.date, doc.url)
    got = backend.get("x-1")
    assert (got.id, got.title, got.text, got.date, got.url) == (doc.id, doc.title, doc.text, doc.date, doc.url)


def test_get_unknown_id_raises(make_local) -> None:
    backend = make_local([Document("a", "t", "alpha", None)])
    with pytest.raises(KeyError):
        backend.get("nope")


def test_check_bounds_raises_on_a_leak() -> None:
    bounds = resolve_filters(date(2025, 1, 1), {})
    late = Document("late", "t", "x", datetime(2025, 1, 2))
    with pytest.raises(DateLeakError):
        check_bounds([late], bounds)
    with pytest.raises(DateLeakError):
        check_bounds([Document("undated", "t", "x", None)], bounds)


def test_http_sends_the_bound_and_maps_fields() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        items = [
            {"u": "https://a", "t": "A", "s": "alpha", "when": "2025-01-01T00:00:00Z"},
            {"u": "https://b", "t": "B", "s": "alpha", "when": "2025-06-01T00:00:00Z"},
            {"u": "https://c", "t": "C", "s": "alpha"},
        ]
        return httpx.Response(200, json={"items": items})

    backend = http_backend([])
    backend.client = httpx.Client(transport=httpx.MockTransport(handler))
    backend.results_path = "items"
    backend.fields = {"url": "u", "title": "t", "text": "s", "date": "when"}
    hits = backend.search("alpha & beta", 5, before=datetime(2025, 3, 1, 1, tzinfo=timezone(timedelta(hours=1))))
    assert [h.id for h in hits] == ["https://a"]  # id falls back to url; later and undated dropped
    assert seen[0].url.params["published_before"] == "2025-03-01T00:00:00+00:00"
    assert seen[0].url.params["q"] == "alpha & beta"
    backend.get_template = None
    assert backend.get("https://a").title == "A"  # served from results already seen
    with pytest.raises(KeyError):
        backend.get("https://b")


def test_http_errors_surface() -> None:
    backend = http_backend([])
    backend.client = httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(503)))
    with pytest.raises(httpx.HTTPStatusError):
        backend.search("alpha", 3, before=date(2025, 1, 1))


def test_query_terms_drop_operators_duplicates_and_stopwords() -> None:
    assert query_terms('Will the "Fed" cut rates AND rates?') == ["fed", "cut", "rates"]
    assert query_terms("will the") == ["will", "the"]  # nothing else left: keep them
    assert query_terms("--- ***") == []
