"""A forecast's trials: after the search/board phase, k-1 more submit samples on the same board.

Each trial is one model call that sees the system prompt, the question and the final board (the prefix the
loop's own calls share, so a local model's prompt cache holds it), then one framing line, and may only call
``submit``. The embedded model decodes greedily, so the framings are what makes the samples differ: one asks
for the chance of No (its answer is turned back into the chance of Yes), one starts from the base rate. A
trial's rationale goes through the same checks as the loop's submit (it must cite a board source, as [n] or by
quoting a figure only a board source states; a number no source holds refuses the trial), and a refused trial
stays out of the pool.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from orrery.errors import ModelError
from orrery.events import ModelReply
from orrery.grounding import ungrounded
from orrery.llm.base import Model, stream
from orrery.messages import Message, ModelResponse, ToolSpec
from orrery.research.tools import ResearchState, cited, ungrounded_numbers

# (framing, inverted): an inverted trial asks for the chance of No.
FRAMINGS: tuple[tuple[str, bool], ...] = (
    # Trial 1 is the loop's own submit; with a board built without the loop, this line asks for it.
    ("Submit the probability that it happens. Cite the board like [1].", False),
    (
        "Answer the opposite question: submit the probability that the question resolves NO (it does not "
        "happen). Cite the board like [1].",
        True,
    ),
    (
        "Most questions like this resolve No by a near deadline. Start from that base rate, adjust it with the "
        "board's evidence, and submit the probability that it happens. Cite the board like [1].",
        False,
    ),
    (
        "Think of the strongest reason it will NOT happen, then submit the probability that it happens. Cite the "
        "board like [1].",
        False,
    ),
    (
        "Weigh only what the board's sources say and submit the probability that it happens. Cite the board like [1].",
        False,
    ),
)
MAX_TRIALS = len(FRAMINGS)
TRIAL_TOKENS = 160


@dataclass
class Trial:
    n: int  # 1 = the loop's own submit
    probability: float | None  # the chance of Yes (an inverted trial's answer already turned round)
    rationale: str = ""
    inverted: bool = False
    error: str = ""  # why the trial was refused (then probability is None)
    seconds: float = 0.0  # its model call

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def trial_messages(prefix: Sequence[Message], board: str, n: int, anchor_line: str) -> list[Message]:
    framing = FRAMINGS[n - 1][0]
    return [
        *prefix,
        Message("user", board, pinned=True),
        Message("user", " ".join(p for p in (anchor_line, framing) if p)),
    ]


def check_trial(args: dict[str, Any], st: ResearchState) -> tuple[float | None, str, str]:
    """``(probability, rationale, error)`` of one submit call, checked like the submit tool checks it."""
    try:
        p = float(args.get("probability"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None, "", "no probability"
    rationale = str(args.get("rationale", "")).strip()
    if not 0.0 <= p <= 1.0:
        return None, rationale, f"probability {p} outside [0, 1]"
    if not cited(rationale, st.board) and not quotes_a_source(rationale, st):
        return None, rationale, "the rationale cites no board source"
    if bad := ungrounded_numbers(rationale, st, p):
        return None, rationale, f"the rationale quotes {', '.join(bad)}, which no source holds"
    return p, rationale, ""


def quotes_a_source(rationale: str, st: ResearchState) -> bool:
    """A rationale that quotes a number some board source states (and the question does not) refers to it: the
    0.5B model repeats the anchor line's figures far more often than it writes [1]."""
    board = [f"{d.title} {d.text}" for src in st.board.sources if (d := st.seen.get(src.id)) is not None]
    beyond_question = set(ungrounded(rationale, [st.question]))
    return bool(beyond_question - set(ungrounded(rationale, [st.question, *board])))


def run_trial(
    model: Model,
    messages: list[Message],
    submit_spec: ToolSpec,
    st: ResearchState,
    n: int,
    *,
    catalogue: Sequence[ToolSpec] | None = None,
) -> tuple[Trial, ModelReply]:
    """One submit sample (trial ``n`` >= 2) and the model reply event it produced."""
    inverted = FRAMINGS[n - 1][1]
    t0 = time.monotonic()
    response: ModelResponse | None = None
    try:
        for delta in stream(
            model, messages, [submit_spec], tool_choice="required", max_tokens=TRIAL_TOKENS, catalogue=catalogue
        ):
            response = delta.response or response
    except ModelError as exc:  # one failed sample leaves the others standing
        response = ModelResponse(content="", tool_calls=[])
        reply = ModelReply(response, time.monotonic() - t0)
        return Trial(n, None, inverted=inverted, error=f"model error: {exc}", seconds=reply.seconds), reply
    assert response is not None
    reply = ModelReply(response, time.monotonic() - t0)
    call = next((c for c in response.tool_calls if c.name == "submit"), None)
    if call is None or call.error:
        return Trial(n, None, inverted=inverted, error="no submit call", seconds=reply.seconds), reply
    p, rationale, error = check_trial(call.arguments, st)
    if p is not None and inverted:
        p = 1.0 - p
    return Trial(n, p, rationale, inverted, error, reply.seconds), reply
