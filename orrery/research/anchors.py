"""Anchors the sources hold: a market/crowd/community probability for the question, or a data series' recent values.

A weak model's judgment is worth little beside a market that already prices the question; the calibrator
(:mod:`orrery.research.calibration`) learns how much weight each gets. Anchors come only from documents the
run's date-bounded searches return, so nothing after the bound can reach them.

Two statements are recognised (the shipped corpus writes them, and so does any corpus built with
``python -m orrery.research.corpus``):

* ``the <Label> for "<question>" stood at 0.139`` - a market, crowd or community probability;
* ``<Label> value for "<question>": 24.188`` - one value of a data series (FRED, ACLED, yfinance, ...).

A statement counts for a question when the quoted question is the asked one's first line once dates and numbers
are masked (questions on different tickers or people of one template still differ; a URL is no key: one
Wikipedia page serves many questions).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from orrery.research.types import Document

MARKET = re.compile(
    r'the (?P<label>[^"\n]{2,60}?) for "(?P<question>[^"\n]{5,400})" stood at (?P<p>0?\.\d+|[01](?:\.0+)?)\b'
)
SERIES = re.compile(
    r'(?P<label>[^"\n]{2,60}?) value for "(?P<question>[^"\n]{5,400})": (?P<v>[-+]?\d[\d,]*\.?\d*(?:[eE][-+]?\d+)?)'
)
DATE_OR_NUMBER = re.compile(r"\d{4}-\d{2}-\d{2}|the resolution date|the forecast date|[-+]?\d[\d,.]*")
SERIES_SOURCES = frozenset({"acled", "dbnomics", "fred", "wikipedia", "yfinance"})
MAX_VALUES = 6  # recent values kept for a series


@dataclass(frozen=True)
class Anchor:
    """A market/crowd probability a source states for the question."""

    probability: float
    label: str
    doc_id: str
    date: str | None


@dataclass
class Series:
    """A data series' recent values (oldest first) as the sources state them."""

    source: str  # acled, fred, ... (from the document's source, else its label)
    values: list[tuple[str | None, float]] = field(default_factory=list)
    doc_ids: list[str] = field(default_factory=list)

    @property
    def trend(self) -> float:
        """The sign of the last change (-1, 0 or 1); 0 with fewer than two values."""
        if len(self.values) < 2:
            return 0.0
        change = self.values[-1][1] - self.values[-2][1]
        return float((change > 0) - (change < 0))


@dataclass
class Anchors:
    market: Anchor | None = None
    series: Series | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "market": None if self.market is None else asdict(self.market),
            "series": None if self.series is None else {**asdict(self.series), "trend": self.series.trend},
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> Anchors:
        d = d or {}
        s = d.get("series")
        return cls(
            market=Anchor(**d["market"]) if d.get("market") else None,
            series=Series(s["source"], [tuple(v) for v in s["values"]], list(s["doc_ids"])) if s else None,
        )

    def describe(self, on_board: Mapping[str, int] | None = None) -> str:
        """One line for the model and the submit reply ('' when there is no anchor). A stating document that is on
        the board is named by its board number (``on_board``: id -> number), so a rationale repeating the line
        cites it."""

        def ref(doc_id: str) -> str:
            return f"[{on_board[doc_id]}]" if on_board and doc_id in on_board else f"({doc_id})"

        if self.market is not None:
            m = self.market
            return (
                f"Source {ref(m.doc_id)} states the {m.label} at {m.probability:.3f} on {m.date or 'an undated day'}."
            )
        if self.series is not None and self.series.values:
            shown = ", ".join(f"{v:g} ({d or 'undated'})" for d, v in self.series.values[-3:])
            refs = " ".join(dict.fromkeys(ref(i) for i in self.series.doc_ids[-3:]))
            return f"Sources {refs} give the series' recent values: {shown}."
        return ""


def mask(text: str) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return DATE_OR_NUMBER.sub("#", " ".join(first.lower().split()))


def same_question(quoted: str, question: str) -> bool:
    return mask(quoted) == mask(question)


def source_of(doc: Document, label: str) -> str:
    """``forecastbench/fred`` -> ``fred``; else the first word of the label, lower-cased."""
    name = doc.source.rsplit("/", 1)[-1] if doc.source else label.split()[0]
    return name.lower()


def find_anchors(question: str, docs: Iterable[Document], *, source: str | None = None) -> Anchors:
    """The anchors that ``docs`` state for ``question`` (the latest market figure; every series value, oldest first).
    ``source`` is the question row's, when it has one."""
    found = Anchors()
    values: dict[str, dict[float, str]] = {}  # day -> value -> the document stating it
    series_source = source
    for doc in sorted({d.id: d for d in docs}.values(), key=lambda d: (d.date is None, d.date or 0, d.id)):
        day = doc.date.date().isoformat() if doc.date else None
        if (m := MARKET.search(doc.text)) and same_question(m["question"], question):
            found.market = Anchor(float(m["p"]), m["label"].strip(), doc.id, day)  # later documents win
        elif (s := SERIES.search(doc.text)) and same_question(s["question"], question):
            values.setdefault(day or doc.id, {})[float(s["v"].replace(",", ""))] = doc.id
            series_source = series_source or source_of(doc, s["label"])
    # Two values on one day: questions of one template that differ only in a number; which is ours is unknown.
    if values and series_source in SERIES_SOURCES and all(len(v) == 1 for v in values.values()):
        kept = list(values.items())[-MAX_VALUES:]
        found.series = Series(
            series_source, [(day, next(iter(v))) for day, v in kept], [next(iter(v.values())) for _, v in kept]
        )
    return found
