"""The research agent's four tools: search, add_source, edit_note, submit.

The tools keep their state in ``ctx.deps`` (a :class:`ResearchState`, the agent's ``deps_type``) and read
run-level search filters (``before``, and optionally ``after``/``source``) from
``ctx.options``, which ``agent.run(question, before=...)`` sets. The model never chooses the
date bound: ``search`` takes only a query, and ``add_source`` only accepts ids that a bounded
search of this run returned, so no document after the bound can reach the model or the board.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from orrery.errors import ToolError
from orrery.events import stage
from orrery.grounding import ungrounded
from orrery.research.anchors import Anchors
from orrery.research.board import SourceBoard
from orrery.research.search import SearchBackend
from orrery.research.types import Document
from orrery.tools.core import RunContext, Tool, tool

SEARCH_FILTERS = ("before", "after", "source")
SNIPPET_CHARS = 240


@dataclass
class ResearchState:
    """What the tools share within one run."""

    index: SearchBackend
    k: int = 5
    board: SourceBoard = field(default_factory=SourceBoard)
    seen: dict[str, Document] = field(default_factory=dict)  # every document a search returned
    queries: list[str] = field(default_factory=list)
    probability: float | None = None
    rationale: str = ""
    guided: bool = False  # for small models: pick a source after each search, stop searching when enough
    max_sources: int = 2  # guided: once the board holds this many, only edit_note and submit are offered
    picking: bool = False  # guided: the last search found documents and none was added since
    last_ids: list[str] = field(default_factory=list)  # ids the latest search returned
    question: str = ""  # the question as asked: its own numbers (thresholds, dates) may be quoted
    ungrounded: list[str] = field(default_factory=list)  # numbers a submitted rationale quotes from nowhere
    anchors: Anchors = field(default_factory=Anchors)  # a market figure or series values the sources state
    anchor_docs: list[Document] = field(default_factory=list)  # the documents stating them


def state_of(ctx: RunContext[ResearchState]) -> ResearchState:
    return ctx.deps


def search_filters(options: dict[str, Any]) -> dict[str, Any]:
    """The run options that go to the backend's ``search`` (``before`` always, even when None)."""
    return {"before": options.get("before")} | {k: options[k] for k in SEARCH_FILTERS[1:] if k in options}


def format_results(docs: list[Document]) -> str:
    if not docs:
        return "No documents found. Try other keywords."
    lines = []
    for d in docs:
        day = d.date.date().isoformat() if d.date else "undated"
        lines.append(f"id={d.id} ({day}) {d.title}\n  {d.snippet(SNIPPET_CHARS)}")
    return "\n".join(lines)


def may_search(ctx: RunContext) -> bool:
    st = state_of(ctx)
    # Guided: a model that just repeated a query is stuck; it gets edit_note before searching again.
    stuck = (
        ctx.succeeded[-1:] == ["search"]
        and len(st.queries) >= 2
        and st.queries[-1].strip().lower() == st.queries[-2].strip().lower()
    )
    return not (st.guided and (st.picking or stuck or len(st.board) >= st.max_sources))


def may_add_source(ctx: RunContext) -> bool:
    """Only while some search result is not on the board yet."""
    st = state_of(ctx)
    unpicked = any(i not in st.board for i in st.seen)
    return unpicked and not (st.guided and len(st.board) >= st.max_sources)


@tool(available=may_search)
def search(ctx: RunContext, query: str) -> str:
    """Search dated documents published up to today's date.

    Args:
        query: a few keywords
    """
    st = state_of(ctx)
    repeated = query.strip().lower() in (q.strip().lower() for q in st.queries)
    st.queries.append(query)
    with stage("search", k=st.k, content={"orrery.search.query": query}) as s:
        docs = st.index.search(query, st.k, **search_filters(ctx.options))
        s.set(results=len(docs))
    st.seen.update((d.id, d) for d in docs)
    st.last_ids = [d.id for d in docs]
    st.picking = bool(docs)
    hint = "You already ran this search. Use add_source with an id below, or try different keywords.\n"
    return hint * repeated + format_results(docs)


def offer_ids(ctx: RunContext, params: dict[str, Any]) -> dict[str, Any]:
    """Constrain ``id`` to the search results not on the board yet (the latest search first), so
    a model cannot invent one; a grammar-constrained model then always sends a valid id."""
    st = state_of(ctx)
    ids = [i for i in dict.fromkeys([*st.last_ids, *st.seen]) if i not in st.board]
    if ids:
        params["properties"]["id"]["enum"] = ids
    return params


@tool(available=may_add_source, refine=offer_ids)
def add_source(ctx: RunContext, id: str, why: str) -> str:
    """Keep a search result on the source board.

    Args:
        id: the id of a document from the search results
        why: one sentence on what it tells you
    """
    st = state_of(ctx)
    doc = st.seen.get(id.strip())
    if doc is None:
        shown = ", ".join(list(st.seen)[-5:]) or "none yet"
        raise ToolError(f"unknown id {id!r}: add_source takes an id from this run's search results (recent: {shown}).")
    st.board.add_document(doc, why)
    st.picking = False
    return f"Added [{len(st.board)}] {doc.title}. The board now has {len(st.board)} sources."


def may_edit_note(ctx: RunContext) -> bool:
    """Guided: not while a search result waits to be picked, and never twice in a row."""
    st = state_of(ctx)
    return not (st.guided and (st.picking or ctx.succeeded[-1:] == ["edit_note"]))


@tool(available=may_edit_note)
def edit_note(ctx: RunContext, text: str) -> str:
    """Replace your notes on the source board.

    Args:
        text: the new notes
    """
    state_of(ctx).board.edit_note(text)
    return "Notes updated."


def has_source(ctx: RunContext) -> bool:
    return len(state_of(ctx).board) > 0


def cited(rationale: str, board: SourceBoard) -> list[str]:
    """Ids of board sources the rationale cites, as ``[n]`` or by id."""
    numbers = {int(n) for n in re.findall(r"\[(\d+)\]", rationale)}
    return [s.id for n, s in enumerate(board.sources, 1) if n in numbers or s.id in rationale]


@tool(available=has_source)
def submit(ctx: RunContext, probability: float, rationale: str) -> str:
    """Submit the final forecast.

    Args:
        probability: chance the question resolves Yes, from 0 to 1
        rationale: short reasoning citing board sources like [1]
    """
    st = state_of(ctx)
    if not 0.0 <= probability <= 1.0:
        raise ToolError(f"probability must be between 0 and 1, got {probability}. Submit again.")
    if not cited(rationale, st.board):
        raise ToolError(
            f"the rationale cites no source on the board. Cite one by its number [1]..[{len(st.board)}], "
            f"for example: {json.dumps(rationale.strip()[:80] + ' [1]')}"
        )
    bad = ungrounded_numbers(rationale, st, probability)
    if bad and not st.ungrounded:  # one rewrite, then the forecast stands and the numbers are reported
        st.ungrounded = bad
        raise ToolError(
            f"the rationale quotes {', '.join(bad)}, which neither the board's sources nor the question "
            "contain. Submit again with only numbers from the sources (or none)."
        )
    st.ungrounded = bad
    st.probability, st.rationale = probability, rationale.strip()
    ctx.finish(json.dumps({"probability": probability, "rationale": st.rationale}))
    beside = st.anchors.describe(st.board.numbers())
    return f"Submitted {probability:.3f}." + (f" Beside it: {beside}" if beside else "")


def ungrounded_numbers(rationale: str, st: ResearchState, probability: float) -> list[str]:
    """Numbers in the rationale found in no board source's document, nor an anchor's, nor the question, nor the
    forecast itself (as 0.7 or 70%). Citation marks like [1] are not numbers."""
    texts = [f"{d.title} {d.text}" for src in st.board.sources if (d := st.seen.get(src.id)) is not None]
    texts += [f"{d.title} {d.text}" for d in st.anchor_docs]
    texts.append(st.question)
    return ungrounded(re.sub(r"\[\d+\]", "", rationale), texts, allowed=(probability, 100 * probability))


def research_tools() -> list[Tool]:
    return [search, add_source, edit_note, submit]
