"""Long-term memory: observations and turns kept across runs per user/app/thread, searched by full text and
vectors, read by agents through the `recall` tool or a context hook; approved question -> SQL examples.

Names are imported on first use, so `orrery memory` (which needs only the store) does not import the agent core.
"""

from importlib import import_module
from typing import Any

_WHERE = {
    **dict.fromkeys(
        [
            "LongTermMemory",
            "RecallContext",
            "Recorder",
            "attach",
            "memories_block",
            "memory_state",
            "recall",
            "recall_tool",
        ],
        "orrery.recall.agents",
    ),
    **dict.fromkeys(["ApprovedExamples", "Example"], "orrery.recall.examples"),
    **dict.fromkeys(["Item", "MemoryStore", "Retention", "Scope", "open_memory"], "orrery.recall.store"),
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'orrery.recall' has no attribute {name!r}")
    return getattr(import_module(_WHERE[name]), name)
