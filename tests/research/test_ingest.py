from __future__ import annotations

import os
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from research_fakes import write_jsonl

from orrery.errors import ConfigError, DataError
from orrery.research.ingest import html_to_text, parse_front_matter
from orrery.research.search import SqliteIndex, TantivyIndex, build_index, open_index

MTIME = datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC)

PAGE = """<!doctype html><html><head><title> Central bank  raises rates </title>
<meta name="article:published_time" content="2025-09-01T12:00:00+02:00">
<style>.x { color: red }</style><script>var secret = "zebra";</script></head>
<body><h1>Rates up</h1><p>The central bank raised its policy rate.</p><div>Markets fell.<br>Bonds too, quasar.</div>
</body></html>"""


def make_tree(root: Path) -> Path:
    root.mkdir()
    write_jsonl(
        root / "docs.jsonl",
        [
            {"id": "j1", "title": "JSON doc", "text": "quasar news", "date": "2025-02-03", "url": "https://j/1"},
            {"id": "j2", "title": "Undated JSON", "text": "quasar rumours", "date": None, "url": "https://j/2"},
        ],
    )
    md = root / "notes"
    md.mkdir()
    (md / "front.md").write_text(
        '---\ntitle: "Front matter title"\ndate: 2025-01-15\nid: md-front\n---\n# Ignored heading\nquasar body\n'
    )
    (md / "heading.md").write_text("Intro line\n\n# Heading Title #\n\nquasar in markdown\n")
    html = root / "site" / "deep"
    html.mkdir(parents=True)
    (html / "page.html").write_text(PAGE)
    (html / "bare.htm").write_text("<html><body><h1>Only heading</h1><p>quasar bare</p></body></html>")
    (root / "site" / "ignored.txt").write_text("quasar in a text file is not indexed")
    for path in [md / "heading.md", html / "bare.htm"]:
        os.utime(path, (MTIME.timestamp(), MTIME.timestamp()))
    return root


@pytest.mark.parametrize("backend", ["sqlite", "tantivy"])
def test_build_index_reads_every_file_type(tmp_path: Path, backend: str) -> None:
    tree = make_tree(tmp_path / "src")
    index = build_index([tree / "docs.jsonl", tree / "notes", tree / "site"], tmp_path / "out", backend=backend)
    assert isinstance(index, SqliteIndex if backend == "sqlite" else TantivyIndex)
    assert len(index) == 6
    got = {d.id: d for d in index.search("quasar", 10)}
    assert set(got) == {"j1", "j2", "md-front", "heading.md", "deep/page.html", "deep/bare.htm"}
    assert got["j1"].date == datetime(2025, 2, 3, tzinfo=UTC) and got["j1"].url == "https://j/1"
    assert got["md-front"].title == "Front matter title"
    assert got["md-front"].date == datetime(2025, 1, 15, tzinfo=UTC)
    assert got["heading.md"].title == "Heading Title"
    assert got["heading.md"].date is None  # mtime dates are opt-in
    assert got["deep/bare.htm"].title == "Only heading" and got["deep/bare.htm"].date is None
    page = index.get("deep/page.html")
    assert page.title == "Central bank raises rates"
    assert page.date == datetime(2025, 9, 1, 10, tzinfo=UTC)
    assert "zebra" not in page.text and "color" not in page.text
    assert page.text.splitlines() == [
        "Rates up",
        "The central bank raised its policy rate.",
        "Markets fell.",
        "Bonds too, quasar.",
    ]
    assert type(open_index(tmp_path / "out")) is type(index)
    # Undated files never pass a bound.
    assert {d.id for d in index.search("quasar", 10, before=date(2030, 1, 1))} == {"j1", "md-front", "deep/page.html"}


def test_mtime_dates_are_opt_in(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "src")
    index = build_index(tree, tmp_path / "out.sqlite", mtime_dates=True)
    assert index.get("notes/heading.md").date == MTIME
    assert index.get("site/deep/bare.htm").date == MTIME
    assert index.get("md-front").date == datetime(2025, 1, 15, tzinfo=UTC)  # front matter wins


def test_duplicate_ids_and_unknown_backend_are_refused(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "a.jsonl", [{"id": "x", "title": "", "text": "a"}, {"id": "x", "title": "", "text": "b"}])
    with pytest.raises(DataError, match=r"a.jsonl:2: duplicate document id 'x' \(first at .*a.jsonl:1\)"):
        build_index(tmp_path / "a.jsonl", tmp_path / "out.sqlite")
    assert not (tmp_path / "out.sqlite").exists()
    with pytest.raises(ConfigError, match="unknown backend"):
        build_index(tmp_path / "a.jsonl", tmp_path / "out", backend="lucene")


def test_front_matter_and_html_helpers() -> None:
    meta, body = parse_front_matter("---\nTitle: A: B\nurl: 'https://x'\n---\nbody\n")
    assert meta == {"title": "A: B", "url": "https://x"} and body == "body\n"
    assert parse_front_matter("no front matter") == ({}, "no front matter")
    assert html_to_text("<p>a &amp; b</p><p>c</p><script>x</script>") == "a & b\nc"
