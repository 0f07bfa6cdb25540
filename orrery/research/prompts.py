"""The research agent's system prompt (one worked example, no numbers in it) and the question prompt."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

RULES = """You are a careful forecaster. You answer "Will X happen by D?" with a probability.
Work one step at a time: each step, call exactly one tool.

1. search(query): look for dated documents about the question (short keyword queries work best).
2. add_source(id, why): keep a search result you rely on; it goes on the source board.
3. edit_note(text): rewrite your running notes on the board (optional).
4. submit(probability, rationale): your final forecast, a number from 0 to 1. The rationale must
   cite at least one board source by its number, like [1].

The source board (your sources and notes) is shown to you every step. Base rates matter:
most things that have not happened yet do not happen by a near deadline."""

# One worked example, with placeholders where numbers go. Measured with the 0.5B embedded model
# (bench/research.md): with the probabilities of two worked examples in the prompt it copied them (0.23 on
# nearly every question) and quoted their numbers as facts ("the market gives 23%"); so no example carries
# a number, and submit refuses a rationale quoting a number that no board source or the question holds.
EXAMPLES = """Example. Question: Will the bridge reopen by <date>?
{"tool": "search", "arguments": {"query": "bridge reopening"}}
{"tool": "add_source", "arguments": {"id": "<an id from the results>", "why": "<what it says about the question>"}}
{"tool": "submit", "arguments": {"probability": <your estimate from 0 to 1>, "rationale": "<the evidence> [1]."}}"""

SYSTEM_PROMPT = f"{RULES}\n\n{EXAMPLES}"

# The search board's prompt: its only call is submit, so the loop's rules and the other three tools would be
# prompt tokens that do not pay (measured in bench/research_calibration.md, "Cost per question").
SUBMIT_PROMPT = """You are a careful forecaster. You answer "Will X happen by D?" with a probability.
The source board below holds the documents found for the question. Call submit(probability, rationale):
a number from 0 to 1, and one short sentence citing a board source by its number, like [1].
Base rates matter: most things that have not happened yet do not happen by a near deadline."""

BACKGROUND_CHARS = 600
BRIEF_CHARS = 240  # the search board's question prompt: criteria and background cut shorter
NOT_SUBMITTED = "You did not submit a forecast. Call submit(probability, rationale) citing a source on the board."


def question_prompt(
    question: str | Mapping[str, Any], before: str | None = None, *, chars: int = BACKGROUND_CHARS
) -> str:
    """The user message: the question, its resolution criteria and background (cut to ``chars``), and the date
    bound."""
    row: Mapping[str, Any] = {"question": question} if isinstance(question, str) else question
    parts = [f"Question: {row['question']}"]
    if row.get("resolution_date"):
        parts.append(f"Resolution date: {row['resolution_date']}")
    if row.get("resolution_criteria"):
        parts.append(f"Resolution criteria: {_cut(str(row['resolution_criteria']), chars)}")
    if row.get("background"):
        parts.append(f"Background: {_cut(str(row['background']), chars)}")
    if before:
        parts.append(f"Today is {before}: search only finds documents published up to this date.")
    return "\n".join(parts)


def _cut(text: str, chars: int = BACKGROUND_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= chars else text[: chars - 1].rstrip() + "…"
