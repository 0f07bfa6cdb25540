"""The dated document record shared by every search backend, and date normalisation."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

DateLike = date | datetime | str | int | float
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MICROSECOND = timedelta(microseconds=1)
MAX_UNIX_SECONDS = 253402300799  # 9999-12-31T23:59:59Z: larger numbers are milliseconds or garbage


def to_utc(value: DateLike) -> datetime:
    """Normalise to an aware UTC datetime.

    A ``date`` (or ``YYYY-MM-DD`` string) is midnight UTC of that day; naive
    datetimes are taken as UTC; numbers are Unix seconds. Anything else raises ValueError.
    """
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    if isinstance(value, int | float) and not isinstance(value, bool):
        if not -MAX_UNIX_SECONDS <= value <= MAX_UNIX_SECONDS:
            raise ValueError(f"{value!r} is not a date in Unix seconds (milliseconds? divide by 1000)")
        return EPOCH + timedelta(seconds=value)
    if isinstance(value, str):
        try:
            return to_utc(datetime.fromisoformat(value.strip().replace("Z", "+00:00")))
        except ValueError:
            raise ValueError(f"{value!r} is not a date; write YYYY-MM-DD or an ISO 8601 time") from None
    raise ValueError(f"{value!r} is not a date; write YYYY-MM-DD or an ISO 8601 time")


def to_micros(value: DateLike) -> int:
    """Integer microseconds since the Unix epoch: the exact precision of a datetime, so a bound
    holds to the microsecond (a document at 00:00:00.999 is after a bound at 00:00:00)."""
    return (to_utc(value) - EPOCH) // MICROSECOND


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
            object.__setattr__(self, "date", to_utc(self.date))

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
    def from_json(cls, obj: Any) -> Document:
        """A JSONL record; ValueError naming the field that is wrong."""
        if not isinstance(obj, dict):
            raise ValueError("a document must be a JSON object with id, title, text, date, url")
        id_ = obj.get("id")
        if isinstance(id_, bool) or not isinstance(id_, str | int) or not str(id_).strip():
            raise ValueError(f"id is missing or empty (got {id_!r}); every document needs a unique string id")
        raw_date = obj.get("date")
        return cls(
            id=str(id_),
            title=str(obj.get("title") or ""),
            text=str(obj.get("text") or ""),
            date=None if raw_date in (None, "") else to_utc(raw_date),
            url=str(obj.get("url") or ""),
            source=str(obj.get("source") or ""),
        )

    def snippet(self, chars: int = 300) -> str:
        text = " ".join(self.text.split())
        return text if len(text) <= chars else text[: chars - 1].rstrip() + "…"
