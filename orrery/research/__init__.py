"""Research agent: judgmental forecasting ("Will X happen by D?" -> a probability) over dated search.

Modules: search (SearchBackend, SqliteIndex, TantivyIndex, HttpSearch, build_index), corpus, board, batch,
tools (search, add_source, edit_note, submit), agent (ResearchAgent, ResearchResult), runner (run_batch),
cli (the `orrery research` commands). Names load lazily (PEP 562): the app's registration stays light.
"""

from importlib import import_module
from typing import Any

_EXPORTS = {
    "ResearchAgent": "agent",
    "ResearchResult": "agent",
    "Trajectory": "agent",
    "BatchResult": "runner",
    "run_batch": "runner",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'orrery.research' has no attribute {name!r}")
    return getattr(import_module(f"orrery.research.{_EXPORTS[name]}"), name)
