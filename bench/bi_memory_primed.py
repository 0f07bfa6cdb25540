"""The embedded model with every call started from one fixed cache state, for bench/bi_memory.py's `--primed` runs.

llama.cpp reuses the longest cached prefix of a prompt, from the slot or from the prompt states it keeps in memory
(`cache_ram_mib`), and a prompt processed from another split point can decode differently at temperature 0: the
second of two back-to-back answers of one question could differ from the first (grown_v5r). Here the memory of
prompt states is off and a one-token priming request precedes every call, so each call reuses the same few
template tokens whatever was asked before: its reply is a function of its request alone (`check_determinism`
measures that). Then a reply can be memoized by its request (`Primed.memo`): the memory's condition of a question
re-uses the empty condition's reply for a request that is the same in both, charging its recorded seconds, so only
the calls the memory changed are decoded again. A change between the two conditions is then the memory's.
"""

from __future__ import annotations

import copy
import hashlib
import json
import time
from collections.abc import Iterator, Sequence
from typing import Any

from orrery.llm.local import LocalModel
from orrery.messages import Message, ToolSpec

PRIME = {"messages": [{"role": "user", "content": "ok"}], "max_tokens": 1, "temperature": 0.0, "cache_prompt": True}


def request_key(messages: Sequence[Message], tools: Sequence[ToolSpec], **rest: Any) -> str:
    """What the model is shown, without the random tool-call ids: equal keys render equal prompts and grammars
    (`rest`: the other options of `stream`, by name; left out and None are the same)."""
    rest = {k: v for k, v in rest.items() if v is not None}
    shown = [[m.role, m.content, [[c.name, c.arguments] for c in m.tool_calls], m.name, m.pinned] for m in messages]
    catalogue = rest.pop("catalogue", None) or ()
    body = [shown, [t.to_openai() for t in tools], [t.to_openai() for t in catalogue], rest]
    return hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()


class Primed(LocalModel):
    """`LocalModel` with no memory of prompt states, primed before each call; `memo=True` replays a reply
    already decoded for the same request (within one question: `forget` between questions)."""

    def __init__(self, memo: bool = True, **kwargs: Any):
        super().__init__(cache_ram_mib=0, **kwargs)
        self.memo = memo
        self._replies: dict[str, tuple[list[Any], float]] = {}
        self.replayed_s = 0.0  # seconds the replayed calls took when they were decoded
        self.calls = self.replays = 0

    def forget(self) -> None:
        self._replies.clear()

    def stream(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), **options: Any) -> Iterator[Any]:
        """`LocalModel.stream`'s reply (the same options), decoded after the priming request or replayed."""
        key = request_key(messages, tools, **options)
        self.calls += 1
        if self.memo and key in self._replies:
            deltas, seconds = self._replies[key]
            self.replays += 1
            self.replayed_s += seconds
            yield from copy.deepcopy(deltas)
            return
        t0 = time.perf_counter()
        self.chat(PRIME)
        deltas = list(super().stream(messages, tools, **options))
        self._replies[key] = (copy.deepcopy(deltas), time.perf_counter() - t0)
        yield from deltas


def check_determinism(items: list[dict[str, Any]], repeats: int, answer: Any, engine_for: Any) -> dict[str, Any]:
    """Each question asked `repeats` times in a row, primed and with no memo (every call decoded), then with the
    ordinary cache: whether the SQL and status were the same every time, and the seconds of each answer."""
    import tempfile

    sessions = tempfile.mkdtemp(prefix="bi-memory-determinism-")
    out: dict[str, Any] = {"repeats": repeats, "questions": []}
    for label, model in (("primed", Primed(memo=False)), ("cached", LocalModel())):
        for item in items:
            got = [
                answer(model, engine_for(item["db"]), item, sessions, f"{label}{i}{item['question'][:8]}")
                for i in range(repeats)
            ]
            answers = [(g["status"], g["sql"]) for g in got]
            row = {"mode": label, "db": item["db"], "question": item["question"], "same": len(set(answers)) == 1}
            out["questions"].append(row | {"answers": answers, "seconds": [g["seconds"] for g in got]})
            print(f"{label} {row['same']} {item['question']} {[g['seconds'] for g in got]}", flush=True)
    return out
