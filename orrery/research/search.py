"""Dated document search for the research agent.

Every backend implements :class:`SearchBackend`. The ``before`` bound is the one
guarantee that matters for forecasting: with a bound set, no document dated
after it, and no document without a date, is ever returned.

Bound semantics: inclusive instant, to the microsecond. A ``date`` bound means
midnight UTC at the start of that day; naive datetimes are UTC. A document dated
exactly at the bound is allowed (ForecastBench stamps freeze-time facts at
midnight of the freeze date), anything later, even by a microsecond, is not.

Indexes are built into a temporary path beside the target and swapped in only
after the build succeeded (:func:`build_index`), so a failed build leaves the old
index as it was; an ``out`` that is an input, or an existing file or folder that
is not an orrery index, is refused. At most :data:`MAX_K` results per search.

Backends:

* :class:`SqliteIndex` - SQLite FTS5 with bm25 ranking, the default.
* :class:`TantivyIndex` - tantivy, faster on large corpora.
* :class:`HttpSearch` - an online JSON search API (URL template + field mapping).
"""

from __future__ import annotations

import json
import re
import sqlite3
import sys
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, runtime_checkable
from urllib.parse import quote

import httpx
import tantivy

from orrery.errors import ConfigError, DataError
from orrery.files import input_file, remove, swap_into_place
from orrery.research.ingest import iter_documents
from orrery.research.types import EPOCH, MICROSECOND, DateLike, Document, to_micros, to_utc

__all__ = [
    "DateLeakError",
    "Document",
    "HttpSearch",
    "SearchBackend",
    "SqliteIndex",
    "TantivyIndex",
    "build_index",
    "open_index",
    "query_terms",
]

_TOKEN = re.compile(r"\w+", re.UNICODE)
KNOWN_FILTERS = frozenset({"source", "after"})
MAX_K = 100  # results per search: k=10**12 made tantivy allocate until the process aborted
INDEX_FORMAT = 2  # 2: timestamps in microseconds (1 stored whole seconds, rounding dates down)


class DateLeakError(AssertionError):
    """A local index returned a document dated after the bound: a bug, never data."""


@runtime_checkable
class SearchBackend(Protocol):
    def search(self, query: str, k: int = 5, *, before: DateLike | None = None, **filters: Any) -> list[Document]: ...

    def get(self, id: str) -> Document: ...


# --------------------------------------------------------------------------- shared helpers


STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "before",
        "by",
        "can",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "how",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "than",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "this",
        "to",
        "was",
        "were",
        "what",
        "when",
        "which",
        "who",
        "will",
        "with",
        "would",
    ]
)


def query_terms(query: str) -> list[str]:
    """Lower-cased, de-duplicated word tokens of a free-text query. Operators and punctuation
    are dropped; so are stopwords (they match nearly every document and slow bm25 down)
    unless the query has nothing else."""
    terms = list(dict.fromkeys(t.lower() for t in _TOKEN.findall(query)))
    content = [t for t in terms if t not in STOPWORDS]
    return content or terms


@dataclass(frozen=True)
class Bounds:
    """Resolved filters: inclusive bounds in epoch microseconds and an optional source set."""

    hi: int | None = None
    lo: int | None = None
    sources: tuple[str, ...] = ()

    def admits(self, doc: Document) -> bool:
        if self.hi is not None or self.lo is not None:
            if doc.date is None:
                return False
            ts = to_micros(doc.date)
            if self.hi is not None and ts > self.hi:
                return False
            if self.lo is not None and ts < self.lo:
                return False
        return not self.sources or doc.source in self.sources


def resolve_filters(before: DateLike | None, filters: Mapping[str, Any]) -> Bounds:
    unknown = set(filters) - KNOWN_FILTERS
    if unknown:
        raise TypeError(f"unknown search filters: {sorted(unknown)}; known: {sorted(KNOWN_FILTERS)}")
    source = filters.get("source")
    sources: tuple[str, ...] = (source,) if isinstance(source, str) else tuple(source or ())
    after = filters.get("after")
    return Bounds(
        hi=None if before is None else to_micros(before),
        lo=None if after is None else to_micros(after),
        sources=sources,
    )


def check_bounds(docs: list[Document], bounds: Bounds) -> list[Document]:
    """Last line of defence for local indexes: a violation is a bug, so it raises."""
    for doc in docs:
        if not bounds.admits(doc):
            raise DateLeakError(f"index returned {doc.id!r} dated {doc.date} outside {bounds}")
    return docs


# --------------------------------------------------------------------------- SQLite FTS5

_SQLITE_SCHEMA = """
CREATE TABLE docs (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    text TEXT NOT NULL,
    url TEXT NOT NULL,
    source TEXT NOT NULL,
    ts INTEGER
);
CREATE INDEX docs_ts ON docs(ts);
CREATE VIRTUAL TABLE docs_fts USING fts5(
    title, text, content='docs', content_rowid='rowid', tokenize='porter unicode61'
);
"""
_SQLITE_COLUMNS = "d.id, d.title, d.text, d.url, d.source, d.ts"


def _row_to_document(row: Sequence[Any], score: float = 0.0) -> Document:
    id_, title, text, url, source, ts = row
    return Document(
        id=id_,
        title=title,
        text=text,
        date=None if ts is None else EPOCH + ts * MICROSECOND,
        url=url,
        source=source,
        score=score,
    )


class SqliteIndex:
    """SQLite FTS5 index; bm25 ranking (title weighted 2x); date bound applied in SQL."""

    TITLE_WEIGHT = 2.0

    def __init__(self, path: str | Path) -> None:
        self.path = input_file(path, what="index", max_bytes=sys.maxsize)  # a FIFO or device is refused
        # check_same_thread=False: batch workers share one read-only index.
        self._conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
        version = self.format_of(self._conn)
        if version != INDEX_FORMAT:
            self._conn.close()
            what = "not an orrery index" if version is None else f"an orrery index of format {version}"
            raise DataError(f"{self.path} is {what}; build it again with `orrery research index`")

    @staticmethod
    def format_of(conn: sqlite3.Connection) -> int | None:
        """The index format of an open database, or None when it is not an orrery index."""
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            version = conn.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.DatabaseError:  # "file is not a database": a CSV, a document, garbage
            return None
        return (version or 1) if {"docs", "docs_fts"} <= tables else None

    @classmethod
    def is_index(cls, path: Path) -> bool:
        if not path.is_file():
            return False
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return cls.format_of(conn) is not None
        finally:
            conn.close()

    @classmethod
    def create(cls, path: str | Path, docs: Iterable[Document]) -> SqliteIndex:
        """Build into a temporary file beside ``path``, then swap it in (see :func:`build_atomic`)."""
        return cls(build_atomic(Path(path), docs, cls._write, cls.is_index))

    @staticmethod
    def _write(path: Path, docs: Iterable[Document]) -> None:
        with sqlite3.connect(path) as conn:
            conn.executescript(_SQLITE_SCHEMA)
            conn.execute(f"PRAGMA user_version = {INDEX_FORMAT}")
            conn.executemany(
                "INSERT INTO docs (id, title, text, url, source, ts) VALUES (?, ?, ?, ?, ?, ?)",
                ((d.id, d.title, d.text, d.url, d.source, _maybe_ts(d.date)) for d in docs),
            )
            conn.execute("INSERT INTO docs_fts(docs_fts) VALUES ('rebuild')")
            conn.execute("INSERT INTO docs_fts(docs_fts) VALUES ('optimize')")
        conn.close()

    def __len__(self) -> int:
        return self._conn.execute("SELECT count(*) FROM docs").fetchone()[0]

    def search(self, query: str, k: int = 5, *, before: DateLike | None = None, **filters: Any) -> list[Document]:
        bounds = resolve_filters(before, filters)
        terms, k = query_terms(query), min(k, MAX_K)
        if not terms or k <= 0:
            return []
        match = " OR ".join(f'"{t}"' for t in terms)
        where, params = ["docs_fts MATCH ?"], [match]
        if bounds.hi is not None:
            where.append("d.ts IS NOT NULL AND d.ts <= ?")
            params.append(bounds.hi)
        if bounds.lo is not None:
            where.append("d.ts IS NOT NULL AND d.ts >= ?")
            params.append(bounds.lo)
        if bounds.sources:
            where.append(f"d.source IN ({', '.join('?' * len(bounds.sources))})")
            params.extend(bounds.sources)
        sql = (
            f"SELECT {_SQLITE_COLUMNS}, bm25(docs_fts, {self.TITLE_WEIGHT}, 1.0) AS rank "
            "FROM docs_fts JOIN docs d ON d.rowid = docs_fts.rowid "
            f"WHERE {' AND '.join(where)} ORDER BY rank LIMIT ?"
        )
        rows = self._conn.execute(sql, [*params, k]).fetchall()
        # bm25() is lower-is-better; flip so that every backend reports higher-is-better.
        return check_bounds([_row_to_document(r[:6], -r[6]) for r in rows], bounds)

    def get(self, id: str) -> Document:
        row = self._conn.execute(f"SELECT {_SQLITE_COLUMNS} FROM docs d WHERE d.id = ?", (id,)).fetchone()
        if row is None:
            raise KeyError(id)
        return _row_to_document(row)

    def close(self) -> None:
        self._conn.close()


# --------------------------------------------------------------------------- tantivy


def _tantivy_schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_text_field("title", stored=True, tokenizer_name="en_stem")
    builder.add_text_field("text", stored=True, tokenizer_name="en_stem")
    builder.add_text_field("url", stored=True, tokenizer_name="raw", index_option="basic")
    builder.add_text_field("source", stored=True, tokenizer_name="raw", index_option="basic")
    builder.add_integer_field("ts", stored=True, indexed=True, fast=True)
    return builder.build()


class TantivyIndex:
    """tantivy index in a directory; date bound applied as a range query on ``ts``."""

    TITLE_BOOST = 2.0

    MARKER = "orrery-index.json"  # in the folder beside tantivy's files: {"format": INDEX_FORMAT}

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        version = self.format_of(self.path)
        if version != INDEX_FORMAT:
            what = "not an orrery index" if version is None else f"an orrery index of format {version}"
            raise DataError(f"{self.path} is {what}; build it again with `orrery research index`")
        self._index = tantivy.Index(_tantivy_schema(), path=str(self.path), reuse=True)
        self._schema = self._index.schema

    @classmethod
    def format_of(cls, path: Path) -> int | None:
        if not (path.is_dir() and tantivy.Index.exists(str(path))):
            return None
        marker = path / cls.MARKER
        return json.loads(marker.read_text(encoding="utf-8"))["format"] if marker.is_file() else 1

    @classmethod
    def is_index(cls, path: Path) -> bool:
        return cls.format_of(path) is not None or (path.is_dir() and not any(path.iterdir()))

    @classmethod
    def create(cls, path: str | Path, docs: Iterable[Document], *, heap_bytes: int = 128_000_000) -> TantivyIndex:
        """Build into a temporary folder beside ``path``, then swap it in (see :func:`build_atomic`)."""
        return cls(build_atomic(Path(path), docs, lambda tmp, d: cls._write(tmp, d, heap_bytes), cls.is_index))

    @classmethod
    def _write(cls, path: Path, docs: Iterable[Document], heap_bytes: int) -> None:
        path.mkdir()
        index = tantivy.Index(_tantivy_schema(), path=str(path), reuse=False)
        writer = index.writer(heap_size=heap_bytes, num_threads=1)
        try:
            for d in docs:
                fields: dict[str, Any] = {
                    "id": d.id,
                    "title": d.title,
                    "text": d.text,
                    "url": d.url,
                    "source": d.source,
                }
                if d.date is not None:
                    fields["ts"] = to_micros(d.date)
                writer.add_document(tantivy.Document(**fields))
        except BaseException:
            writer.rollback()  # stop the writer's threads before the caller removes the folder
            writer.wait_merging_threads()
            raise
        writer.commit()
        writer.wait_merging_threads()
        (path / cls.MARKER).write_text(json.dumps({"format": INDEX_FORMAT}), encoding="utf-8")

    def __len__(self) -> int:
        return self._searcher().num_docs

    def _searcher(self) -> tantivy.Searcher:
        self._index.reload()
        return self._index.searcher()

    def _filter_queries(self, bounds: Bounds) -> list[tantivy.Query]:
        queries = []
        if bounds.hi is not None or bounds.lo is not None:
            queries.append(
                tantivy.Query.range_query(self._schema, "ts", tantivy.FieldType.Integer, bounds.lo, bounds.hi)
            )
        if bounds.sources:
            queries.append(tantivy.Query.term_set_query(self._schema, "source", list(bounds.sources)))
        return queries

    def search(self, query: str, k: int = 5, *, before: DateLike | None = None, **filters: Any) -> list[Document]:
        bounds = resolve_filters(before, filters)
        terms, k = query_terms(query), min(k, MAX_K)
        if not terms or k <= 0:
            return []
        text_query = self._index.parse_query(
            " ".join(terms), ["title", "text"], field_boosts={"title": self.TITLE_BOOST}
        )
        clauses = [(tantivy.Occur.Must, text_query)]
        clauses += [(tantivy.Occur.Must, q) for q in self._filter_queries(bounds)]
        searcher = self._searcher()
        hits = searcher.search(tantivy.Query.boolean_query(clauses), limit=k, count=False).hits
        return check_bounds([self._to_document(searcher.doc(addr), score) for score, addr in hits], bounds)

    def get(self, id: str) -> Document:
        searcher = self._searcher()
        hits = searcher.search(tantivy.Query.term_query(self._schema, "id", id), limit=1, count=False).hits
        if not hits:
            raise KeyError(id)
        return self._to_document(searcher.doc(hits[0][1]))

    @staticmethod
    def _to_document(doc: tantivy.Document, score: float = 0.0) -> Document:
        ts = doc.get_first("ts")
        return Document(
            id=doc.get_first("id"),
            title=doc.get_first("title"),
            text=doc.get_first("text"),
            date=None if ts is None else EPOCH + ts * MICROSECOND,
            url=doc.get_first("url") or "",
            source=doc.get_first("source") or "",
            score=float(score),
        )


# --------------------------------------------------------------------------- HTTP


def _dig(obj: Any, dotted: str) -> Any:
    for part in dotted.split(".") if dotted else []:
        obj = obj[int(part)] if isinstance(obj, list) else obj.get(part)
        if obj is None:
            return None
    return obj


@dataclass
class HttpSearch:
    """Search through an online JSON API.

    ``url_template`` is formatted with ``query`` (URL-quoted) and ``k``, e.g.
    ``"https://api.example.com/search?q={query}&count={k}"``. ``results_path`` is
    the dotted path to the result list in the response JSON and ``fields`` maps
    :class:`Document` fields to dotted paths inside each result. The bound goes
    out as the ``before_param`` query parameter (ISO 8601) and is enforced again
    here: the API may ignore it, so undated and later results are dropped.
    """

    url_template: str
    results_path: str = "results"
    fields: Mapping[str, str] = field(
        default_factory=lambda: {
            "id": "id",
            "title": "title",
            "text": "text",
            "date": "date",
            "url": "url",
            "source": "source",
            "score": "score",
        }
    )
    before_param: str | None = "before"
    get_template: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    client: httpx.Client = field(default_factory=lambda: httpx.Client(timeout=30.0))
    _seen: dict[str, Document] = field(default_factory=dict, init=False, repr=False)

    def search(self, query: str, k: int = 5, *, before: DateLike | None = None, **filters: Any) -> list[Document]:
        bounds, k = resolve_filters(before, filters), min(k, MAX_K)
        if not query.strip() or k <= 0:
            return []
        params: dict[str, str] = {}
        if before is not None and self.before_param:
            params[self.before_param] = to_utc(before).isoformat()
        # Merge rather than pass params=: httpx would drop the template's own query string.
        url = httpx.URL(self.url_template.format(query=quote(query), k=k)).copy_merge_params(params)
        response = self.client.get(url, headers=dict(self.headers))
        response.raise_for_status()
        results = _dig(response.json(), self.results_path) or []
        docs = [d for d in map(self._to_document, results) if bounds.admits(d)][:k]
        self._seen.update((d.id, d) for d in docs)
        return docs

    def get(self, id: str) -> Document:
        if self.get_template is None:
            return self._seen[id]
        response = self.client.get(self.get_template.format(id=quote(id, safe="")), headers=dict(self.headers))
        response.raise_for_status()
        return self._to_document(response.json())

    def _to_document(self, item: Mapping[str, Any]) -> Document:
        value = {name: _dig(item, path) for name, path in self.fields.items()}
        url = str(value.get("url") or "")
        raw_date = value.get("date")
        return Document(
            id=str(value.get("id") or url),
            title=str(value.get("title") or ""),
            text=str(value.get("text") or ""),
            date=None if raw_date in (None, "") else to_utc(raw_date),
            url=url,
            source=str(value.get("source") or ""),
            score=float(value.get("score") or 0.0),
        )


# --------------------------------------------------------------------------- building / opening


def _maybe_ts(value: datetime | None) -> int | None:
    return None if value is None else to_micros(value)


BACKENDS = {"sqlite": SqliteIndex, "tantivy": TantivyIndex}


def build_atomic(
    out: Path,
    docs: Iterable[Document],
    write: Callable[[Path, Iterable[Document]], None],
    is_index: Callable[[Path], bool],
) -> Path:
    """Write an index into a temporary path beside ``out`` and swap it in only after success.
    ``out`` may be missing or an index (replaced); anything else is refused, so a user's
    file or folder is never overwritten. A build that fails leaves ``out`` as it was."""
    if out.exists() and not is_index(out):
        kind = "folder" if out.is_dir() else "file"
        raise DataError(
            f"--out {out} is an existing {kind} that is not an orrery index; choose a new path (nothing was changed)"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        write(tmp, docs)
        swap_into_place(tmp, out)
    except BaseException:
        remove(tmp)
        raise
    return out


def build_index(
    paths: str | Path | Sequence[str | Path],
    out: str | Path,
    backend: str = "sqlite",
    *,
    mtime_dates: bool = False,
) -> SqliteIndex | TantivyIndex:
    """Index JSONL, Markdown and HTML files (or folders of them) into ``out``.

    ``out`` is a SQLite file for ``backend="sqlite"`` and a directory for
    ``backend="tantivy"``. With ``mtime_dates`` Markdown/HTML files without a
    date take their modification time; otherwise they stay undated (and so are
    never returned under a date bound). Bad input (a bad line, date or id, no
    documents at all) raises :class:`DataError` before ``out`` is touched.
    """
    if backend not in BACKENDS:
        raise ConfigError(f"unknown backend {backend!r}; choose from {sorted(BACKENDS)}")
    sources = [Path(p) for p in ([paths] if isinstance(paths, str | Path) else paths)]
    check_out(sources, Path(out))
    docs = _unique(iter_documents(sources, mtime_dates=mtime_dates), sources)
    return BACKENDS[backend].create(out, docs)


def check_out(sources: Sequence[Path], out: Path) -> None:
    """Refuse an ``out`` that is one of the inputs or holds one (building there would destroy it)."""
    target = out.resolve()
    for src in sources:
        src = src.resolve()
        if src == target or target in src.parents:
            raise DataError(f"--out {out} is or contains the input {src}; choose another path (nothing was changed)")


def _unique(located: Iterable[tuple[str, Document]], sources: Sequence[Path]) -> Iterator[Document]:
    seen: dict[str, str] = {}
    for where, doc in located:
        if doc.id in seen:
            raise DataError(f"{where}: duplicate document id {doc.id!r} (first at {seen[doc.id]}); ids must be unique")
        seen[doc.id] = where
        yield doc
    if not seen:
        names = ", ".join(map(str, sources))
        raise DataError(f"no documents found in {names}: pass .jsonl, .md or .html files (nothing was changed)")


def open_index(path: str | Path) -> SqliteIndex | TantivyIndex:
    """Open an index made by :func:`build_index`: a directory is tantivy, a file SQLite."""
    path = Path(path)
    if not path.exists():
        raise DataError(f"index {path} does not exist; build one with `orrery research index`")
    return TantivyIndex(path) if path.is_dir() else SqliteIndex(path)


def documents_to_jsonl(docs: Iterable[Document], path: str | Path) -> int:
    """Write documents as the JSONL that :func:`build_index` reads; returns the count."""
    n = 0
    with Path(path).open("w", encoding="utf-8") as fh:
        for doc in docs:
            fh.write(json.dumps(doc.to_json(), ensure_ascii=False) + "\n")
            n += 1
    return n
