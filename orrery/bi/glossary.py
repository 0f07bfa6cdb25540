"""The column glossary: the plain words a user writes for each drafted column, asked of the model once per database.

A drafted layer spells a column's name out only by rule (`semantic.ABBREVIATIONS`), so a question's everyday words
('headcount' for `population`, 'butterfat' for `bf_pct`) reach no column. When a layer is drafted with a model at
hand, one schema-constrained call per table (the columns' names, types and drafted descriptions in; up to
`PHRASES` short phrases per column out) writes them. They are added to the column's `synonyms` (what every reader
reads) and listed under its `glossary` key (which synonyms the model wrote, for the person who reviews the draft).
The replies are cached per database under the BI data folder (`bi_home()/glossary/`), keyed by the model's name,
the prompt and the tables' drafted text, so no later process or question pays for them again.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import yaml

from orrery.bi.engines import Engine
from orrery.bi.names import words
from orrery.bi.semantic import GENERIC, SHIPPED, Semantic, load, user_path
from orrery.errors import ModelError
from orrery.llm.base import Model
from orrery.messages import Message

PROMPTS = Path(__file__).parent / "prompts"
PHRASES = 3  # phrases kept per column
PHRASE_WORDS = 4  # words per phrase at most
PHRASE_CHARS = 32
CHUNK = 24  # columns per call: a wide table is asked in parts, each reply bounded
TOKENS_PER_COLUMN = 64  # max_tokens of a call: this per column asked


def layer(db: str, engine: Engine, model: Model | None) -> Semantic:
    """`semantic.load`, with the glossary merged when the layer is a draft (no analyst's or shipped file) and a
    model is at hand."""
    semantic = load(db, engine)
    if model is None or user_path(db).is_file() or (SHIPPED / f"{db}.yaml").is_file():
        return semantic
    return with_glossary(semantic, model)


def with_glossary(semantic: Semantic, model: Model) -> Semantic:
    """A copy of the layer with each column's glossary phrases in its `synonyms` and `glossary` keys."""
    return merged(semantic, glossary(semantic, model))


def glossary(semantic: Semantic, model: Model) -> dict[str, dict[str, list[str]]]:
    """{table: {column: [phrases]}}: read from the cache, else asked of the model (one call per table, per CHUNK
    columns) and cached."""
    path = _cache(semantic, model.name)
    if path.is_file():
        return json.loads(path.read_text())
    found = {t: _ask_table(model, t, semantic) for t in semantic.tables}
    from orrery.files import write_atomic

    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(found, indent=1))
    return found


def cached(semantic: Semantic, model_name: str = "local") -> Semantic | None:
    """The layer with the glossary a model of that name wrote for it, when it is cached; None otherwise (no model
    call: what a measure without the model reads)."""
    path = _cache(semantic, model_name)
    return merged(semantic, json.loads(path.read_text())) if path.is_file() else None


def merged(semantic: Semantic, found: dict[str, dict[str, list[str]]]) -> Semantic:
    out = copy.deepcopy(semantic)
    others = {words(c) for _, c, _ in out.columns()}
    for table, columns in found.items():
        for column, phrases in columns.items():
            info = out.tables.get(table, {}).get("columns", {}).get(column)
            if info is None:
                continue
            known = {words(column), *info.get("synonyms", [])}
            kept = [p for p in dict.fromkeys(map(_clean, phrases)) if _kept(p, known, others)][:PHRASES]
            if kept:
                info["synonyms"] = [*info.get("synonyms", []), *kept]
                info["glossary"] = kept
    return out


def _clean(phrase: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^a-z0-9%\- ]", " ", str(phrase).lower())).strip()


def _kept(phrase: str, known: set[str], others: set[str]) -> bool:
    """A phrase within the bounds that says something new: not the column's own name or synonym, not another
    column's exact name, not only generic words ('total', 'number')."""
    ws = phrase.split()
    return (
        0 < len(ws) <= PHRASE_WORDS
        and len(phrase) <= PHRASE_CHARS
        and phrase not in known
        and phrase not in others
        and not set(ws) <= GENERIC
    )


def _ask_table(model: Model, table: str, semantic: Semantic) -> dict[str, list[str]]:
    columns = list(semantic.tables[table]["columns"].items())
    out: dict[str, list[str]] = {}
    for i in range(0, len(columns), CHUNK):
        out |= _ask(model, table, semantic.tables[table].get("description", ""), columns[i : i + CHUNK])
    return out


def _ask(model: Model, table: str, description: str, columns: list[tuple[str, dict[str, Any]]]) -> dict[str, list]:
    names = [c for c, _ in columns]
    schema = {
        "type": "object",
        "properties": {c: _column_schema() for c in names},
        "required": names,
        "additionalProperties": False,
    }
    messages = [
        Message("system", (PROMPTS / "glossary.md").read_text()),
        *_examples(),
        Message("user", _table_text(table, description, columns)),
    ]
    try:
        reply = model.complete(
            messages, (), tool_choice="none", schema=schema, max_tokens=TOKENS_PER_COLUMN * len(names)
        )
    except ModelError:  # a reply cut at max_tokens: this part of the table keeps today's draft
        return {}
    try:
        found = json.loads(reply.content, strict=False)
    except json.JSONDecodeError:
        return {}
    return {
        c: [p for p in v.get("phrases", []) if isinstance(p, str)]
        for c, v in found.items()
        if c in names and isinstance(v, dict)
    }


def _column_schema() -> dict[str, Any]:
    """What it means in a sentence first (a 0.5B model then writes phrases of that sentence, not of the name)."""
    return {
        "type": "object",
        "properties": {
            "means": {"type": "string"},
            "phrases": {"type": "array", "items": {"type": "string"}, "maxItems": PHRASES},
        },
        "required": ["means", "phrases"],
        "additionalProperties": False,
    }


def _table_text(table: str, description: str, columns: list[tuple[str, dict[str, Any]]]) -> str:
    lines = [f"Table: {table} ({description.split(':')[0]})", "Columns:"]
    lines += [f"- {c} ({info.get('type', '')}): {info.get('description', '')}" for c, info in columns]
    return "\n".join(lines)


def _examples() -> list[Message]:
    out = []
    for entry in yaml.safe_load((PROMPTS / "glossary_examples.yaml").read_text()):
        cols = [(c["name"], {"type": c["type"], "description": c["description"]}) for c in entry["columns"]]
        out += [
            Message("user", _table_text(entry["table"], entry["description"], cols)),
            Message("assistant", json.dumps(entry["reply"])),
        ]
    return out


def _cache(semantic: Semantic, model_name: str) -> Path:
    from orrery.bi.data import bi_home

    asked = [_table_text(t, v.get("description", ""), list(v["columns"].items())) for t, v in semantic.tables.items()]
    text = json.dumps(
        [model_name, (PROMPTS / "glossary.md").read_text(), (PROMPTS / "glossary_examples.yaml").read_text(), asked]
    )
    return bi_home() / "glossary" / f"{semantic.database}-{hashlib.sha256(text.encode()).hexdigest()[:16]}.json"
