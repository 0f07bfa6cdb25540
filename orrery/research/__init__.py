"""Research agent: judgmental forecasting ("Will X happen by D?" -> a probability) over dated search.

Modules: search (SearchBackend, SqliteIndex, TantivyIndex, HttpSearch, build_index), corpus, board, batch,
tools (search, add_source, edit_note, submit), agent (ResearchAgent, ResearchResult), runner (run_batch),
cli (the `orrery research` commands).
"""

from orrery.research.agent import ResearchAgent, ResearchResult, Trajectory
from orrery.research.runner import BatchResult, run_batch

__all__ = ["BatchResult", "ResearchAgent", "ResearchResult", "Trajectory", "run_batch"]
