"""Read documents from JSONL, Markdown and HTML files for indexing.

* JSONL: one object a line with ``id, title, text, date, url`` (``source`` optional).
* Markdown: ``---`` front matter (``title``, ``date``, ``id``, ``url``, ``source``;
  simple ``key: value`` lines) or else the first ``#`` heading as title.
* HTML: ``<title>`` (else first ``<h1>``), visible text via :mod:`html.parser`,
  date from ``<meta name="date|article:published_time|dc.date|pubdate">`` or
  the first ``<time datetime>``.

Markdown and HTML files without a date take the file's mtime only when
``mtime_dates`` is set; otherwise they are undated.

Only regular files are read, each up to :data:`orrery.files.MAX_INPUT_BYTES`; a bad line, date or
id is a one-line :class:`~orrery.errors.DataError` naming the file and line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

from orrery.errors import DataError
from orrery.files import input_file, read_lines, read_text
from orrery.research.types import Document, to_utc

JSONL_SUFFIXES = frozenset({".jsonl"})
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
HTML_SUFFIXES = frozenset({".html", ".htm"})
DATE_META_NAMES = frozenset({"date", "article:published_time", "dc.date", "pubdate", "publish-date"})
_SKIP_TAGS = frozenset({"script", "style", "noscript", "template", "head"})
_BLOCK_TAGS = frozenset({"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article"})


def iter_documents(paths: Iterable[Path], *, mtime_dates: bool = False) -> Iterator[tuple[str, Document]]:
    """``(where, document)`` for every supported file under ``paths``; ``where`` is ``file:line``
    (JSONL) or the file, for error messages."""
    for path in paths:
        if not path.is_dir():
            input_file(path, what="source")  # a FIFO or device named on the command line is refused
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for file in files:
            yield from read_file(file, root=path if path.is_dir() else path.parent, mtime_dates=mtime_dates)


def read_file(path: Path, *, root: Path, mtime_dates: bool = False) -> Iterator[tuple[str, Document]]:
    suffix = path.suffix.lower()
    if suffix in JSONL_SUFFIXES:
        yield from jsonl_records(path)
    elif suffix in MARKDOWN_SUFFIXES:
        yield str(path), _located(path, lambda: read_markdown(path, root=root, mtime_dates=mtime_dates))
    elif suffix in HTML_SUFFIXES:
        yield str(path), _located(path, lambda: read_html(path, root=root, mtime_dates=mtime_dates))


def _located(where: Path | str, make: Callable[[], Document]) -> Document:
    try:
        return make()
    except ValueError as exc:  # a bad date or id in the file: say where
        raise DataError(f"{where}: {exc}") from None


def jsonl_records(path: Path) -> Iterator[tuple[str, Document]]:
    for n, line in read_lines(path, what="source"):
        if line.strip():
            where = f"{path}:{n}"
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(f"{where}: not a JSON object ({exc.msg}); one document per line") from None
            yield where, _located(where, lambda obj=obj: Document.from_json(obj))


def read_jsonl(path: Path) -> Iterator[Document]:
    for _, doc in jsonl_records(path):
        yield doc


def _mtime(path: Path) -> datetime:
    return datetime.fromtimestamp(path.stat().st_mtime, UTC)


def _doc_id(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()


# --------------------------------------------------------------------------- Markdown

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*(?:\n|\Z)", re.DOTALL)
_HEADING = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)


def parse_front_matter(text: str) -> tuple[dict[str, str], str]:
    """Split ``key: value`` front matter from the body; values lose surrounding quotes."""
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}, text
    meta: dict[str, str] = {}
    for line in match.group(1).splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip():
            meta[key.strip().lower()] = value.strip().strip("'\"")
    return meta, text[match.end() :]


def read_markdown(path: Path, *, root: Path, mtime_dates: bool = False) -> Document:
    meta, body = parse_front_matter(read_text(path, what="source"))
    heading = _HEADING.search(body)
    title = meta.get("title") or (heading.group(1) if heading else path.stem)
    raw_date = meta.get("date")
    date = to_utc(raw_date) if raw_date else (_mtime(path) if mtime_dates else None)
    return Document(
        id=meta.get("id") or _doc_id(path, root),
        title=title,
        text=body.strip(),
        date=date,
        url=meta.get("url") or path.resolve().as_uri(),
        source=meta.get("source", ""),
    )


# --------------------------------------------------------------------------- HTML


class _HtmlExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title = ""
        self.h1 = ""
        self.date = ""
        self.chunks: list[str] = []
        self._stack: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = {k.lower(): v or "" for k, v in attrs}
        if tag == "meta":
            name = (attr.get("name") or attr.get("property") or "").lower()
            if name in DATE_META_NAMES and not self.date:
                self.date = attr.get("content", "")
            return
        if tag == "time" and not self.date and attr.get("datetime"):
            self.date = attr["datetime"]
        if tag in _BLOCK_TAGS:
            self.chunks.append("\n")
        if tag in ("br", "img", "hr", "input", "link"):
            return  # void elements never close
        self._stack.append(tag)
        if tag in _SKIP_TAGS:
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag not in self._stack:
            return
        while self._stack:
            open_tag = self._stack.pop()
            if open_tag in _SKIP_TAGS:
                self._skip -= 1
            if open_tag == tag:
                break
        if tag in _BLOCK_TAGS:
            self.chunks.append("\n")

    def handle_data(self, data: str) -> None:
        current = self._stack[-1] if self._stack else ""
        if current == "title":
            self.title += data
        elif self._skip == 0:
            if current == "h1":
                self.h1 += data
            self.chunks.append(data)

    def text(self) -> str:
        lines = (" ".join(line.split()) for line in "".join(self.chunks).splitlines())
        return "\n".join(line for line in lines if line)


def html_to_text(html: str) -> str:
    """Visible text of an HTML fragment or page, one line per block element."""
    parser = _HtmlExtractor()
    parser.feed(html)
    parser.close()
    return parser.text()


def read_html(path: Path, *, root: Path, mtime_dates: bool = False) -> Document:
    parser = _HtmlExtractor()
    parser.feed(read_text(path, what="source", errors="replace"))
    parser.close()
    title = " ".join(parser.title.split()) or " ".join(parser.h1.split()) or path.stem
    date = to_utc(parser.date) if parser.date else (_mtime(path) if mtime_dates else None)
    return Document(
        id=_doc_id(path, root),
        title=title,
        text=parser.text(),
        date=date,
        url=path.resolve().as_uri(),
    )
