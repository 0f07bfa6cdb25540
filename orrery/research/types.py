"""The dated document record shared by every search backend, and date normalisation."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

DateLike = date | datetime | str | int | float


def to_utc(value: DateLike) -> datetime:
    """Normalise to an aware UTC datetime.

    A ``date`` (or ``YYYY-MM-DD`` string) is midnight UTC of that day; naive
    datetimes are taken as UTC; numbers are Unix seconds.
    """
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value, UTC)
    if isinstance(value, str):
        return to_utc(datetime.fromisoformat(value.strip().replace("Z", "+00:00")))
    raise TypeError(f"not a date: {value!r}")


def to_timestamp(value: DateLike) -> int:
    """Whole Unix seconds, rounded down (a document at 12:00:00.5 counts as 12:00:00)."""
    return int(to_utc(value).timestamp() // 1)


@dataclass(frozen=True)
class Document:
    id: str
    title: str
    text: str
    date: datetime | None = None
    url: str = ""
    source: str = ""
    score: float = 0.0

    def __post_init__(self) -> None:
        if self.date is not None:
            # Whole seconds in UTC: the precision every index stores.
            object.__setattr__(self, "date", to_utc(to_timestamp(self.date)))

    def to_json(self) -> dict[str, Any]:
        """The JSONL record :func:`orrery.research.search.build_index` reads (score dropped)."""
        return {
            "id": self.id,
            "title": self.title,
            "text": self.text,
            "date": None if self.date is None else self.date.isoformat(),
            "url": self.url,
            "source": self.source,
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Document:
        raw_date = obj.get("date")
        return cls(
            id=str(obj["id"]),
            title=str(obj.get("title") or ""),
            text=str(obj.get("text") or ""),
            date=None if raw_date in (None, "") else to_utc(raw_date),
            url=str(obj.get("url") or ""),
            source=str(obj.get("source") or ""),
        )

    def snippet(self, chars: int = 300) -> str:
        text = " ".join(self.text.split())
        return text if len(text) <= chars else text[: chars - 1].rstrip() + "…"
