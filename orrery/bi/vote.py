"""Agreement of candidate queries by their results (round 59, execution-guided self-consistency): the SQL step
may write a question's query more than one way (`BIAgent(candidates=N)`); each candidate is run and the result
most candidates return wins. A result is the multiset of its rows, each row its values sorted (floats rounded to
two places), so column order does not matter. A candidate that failed or found nothing has no vote; another
candidate replaces the first (today's query) only when at least two agree on its result and it outnumbers the
first's: a tie keeps the first."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

Result = frozenset[tuple[tuple[str, ...], int]]


def result_of(rows: Sequence[Sequence[Any]]) -> Result | None:
    """The rows as a multiset of value-sorted rows; None for no rows (no vote)."""
    if not rows:
        return None
    return frozenset(Counter(tuple(sorted(_norm(v) for v in row)) for row in rows).items())


def _norm(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def agreed(results: Sequence[Result | None]) -> int:
    """The index of the winning candidate: the first holding the result most candidates hold, when two or more
    hold it and more than hold the first's; else 0 (the first)."""
    votes = Counter(r for r in results if r is not None)
    if not votes:
        return 0
    best, count = votes.most_common(1)[0]
    if count < 2 or count <= votes[results[0]]:
        return 0
    return results.index(best)
