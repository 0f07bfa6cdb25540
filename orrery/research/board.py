"""The source board: the agent's pinned, always-current evidence state.

The loop re-injects :meth:`SourceBoard.render` as one message every step, so
the model keeps its chosen sources and notes even when older turns are cut.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from orrery.research.types import DateLike, Document, to_utc

EMPTY_SOURCES = "(no sources yet: use add_source to keep evidence you rely on)"
EMPTY_NOTES = "(empty)"


@dataclass(frozen=True)
class Source:
    id: str
    title: str
    date: str | None  # ISO date (YYYY-MM-DD) or None when the document is undated
    why: str
    url: str = ""


def _iso_day(value: DateLike | None) -> str | None:
    return None if value is None else to_utc(value).date().isoformat()


@dataclass
class SourceBoard:
    sources: list[Source] = field(default_factory=list)
    notes: str = ""

    def add(self, id: str, title: str, date: DateLike | None, why: str, url: str = "") -> Source:
        """Add a source; adding an id again replaces it in place (e.g. a better ``why``)."""
        source = Source(id=id, title=title, date=_iso_day(date), why=why.strip(), url=url)
        for i, old in enumerate(self.sources):
            if old.id == id:
                self.sources[i] = source
                return source
        self.sources.append(source)
        return source

    def add_document(self, doc: Document, why: str) -> Source:
        return self.add(doc.id, doc.title, doc.date, why, doc.url)

    def remove(self, id: str) -> None:
        before = len(self.sources)
        self.sources = [s for s in self.sources if s.id != id]
        if len(self.sources) == before:
            raise KeyError(id)

    def __contains__(self, id: object) -> bool:
        return any(s.id == id for s in self.sources)

    def __len__(self) -> int:
        return len(self.sources)

    def numbers(self) -> dict[str, int]:
        """Each source's id -> its number on the board, as cited ([1] is the first)."""
        return {s.id: n for n, s in enumerate(self.sources, 1)}

    def edit_note(self, text: str) -> None:
        """Replace the notes (the model rewrites its running summary)."""
        self.notes = text.strip()

    def render(self) -> str:
        lines = [f"# Source board ({len(self.sources)} sources)", "", "## Sources"]
        if not self.sources:
            lines.append(EMPTY_SOURCES)
        for n, s in enumerate(self.sources, 1):
            lines.append(f"[{n}] {s.title} ({s.date or 'undated'}) id={s.id}")
            if s.url:
                lines.append(f"    url: {s.url}")
            lines.append(f"    why: {s.why}")
        lines += ["", "## Notes", self.notes or EMPTY_NOTES]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"sources": [asdict(s) for s in self.sources], "notes": self.notes}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SourceBoard:
        return cls(sources=[Source(**s) for s in data.get("sources", [])], notes=data.get("notes", ""))
