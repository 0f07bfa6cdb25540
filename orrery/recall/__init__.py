"""Long-term memory: observations and turns kept across runs per user/app/thread, searched by full text and
vectors, read by agents through the `recall` tool or a context hook; approved question -> SQL examples."""

from orrery.recall.agents import (
    STATE_KEY,
    LongTermMemory,
    RecallContext,
    Recorder,
    attach,
    memories_block,
    memory_state,
    recall,
    recall_tool,
)
from orrery.recall.examples import ApprovedExamples, Example
from orrery.recall.store import Item, MemoryStore, Retention, Scope, open_memory

__all__ = ["STATE_KEY", "ApprovedExamples", "Example", "Item", "LongTermMemory", "MemoryStore", "RecallContext",
           "Recorder", "Retention", "Scope", "attach", "memories_block", "memory_state", "open_memory", "recall",
           "recall_tool"]
