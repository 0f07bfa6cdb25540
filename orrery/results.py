"""One result protocol: what every app's result offers the server, the CLI and `orrery mcp`.

A run's result (`Final.result`) has a `status` (the one `orrery.events.Status`), an `output` (the text a person
reads), `data` (JSON-ready: what `result.json` and an MCP client get), `views()` (typed views the web app and the
CLI draw) and `files()` (what the server saves in the run's folder). The consumers read these alone, so a new
app is served and shown without any code of its own in them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field
from pydantic_core import to_jsonable_python

from orrery.events import Status

Number = float | None  # JSON has no NaN or infinity: those are null
Cell = str | int | float | bool | None


class View(BaseModel):
    """A view the web app draws by its `view` name: sent as CUSTOM `orrery.<view>`, or, for a view with a `slot`,
    kept in the run's state under that key (drawn beside the conversation and saved with the thread)."""

    model_config = ConfigDict(extra="forbid")
    view: str
    slot: ClassVar[str | None] = None

    def payload(self) -> dict[str, Any]:
        """What the web app gets: JSON, NaN and infinity as null."""
        return _finite(self.model_dump(mode="json", exclude={"view"}))


class Table(View):
    """Rows as records (`{column: value}`) or as lists under `columns`."""

    view: Literal["table"] = "table"
    title: str = ""
    columns: list[str] | None = None
    rows: list[dict[str, Cell]] | list[list[Cell]]
    sql: str | None = None  # the query that made it, shown under the table


class Chart(View):
    """Lines or bars (`x`, `series`), or candlesticks (`x`, `open`, `high`, `low`, `close`, `overlays`)."""

    view: Literal["chart"] = "chart"
    style: Literal["line", "bar", "candlestick"]
    title: str = ""
    x: list[str]
    series: dict[str, list[Number]] = Field(default_factory=dict)
    open: list[Number] = Field(default_factory=list)
    high: list[Number] = Field(default_factory=list)
    low: list[Number] = Field(default_factory=list)
    close: list[Number] = Field(default_factory=list)
    overlays: dict[str, list[Number]] = Field(default_factory=dict)


class Forecast(View):
    """A forecast: each series' history, its forecasts with `lo_80..hi_95` bands, the anomalies found."""

    view: Literal["forecast"] = "forecast"
    best_model: str | None
    beats_baseline: bool
    history: list[dict[str, Any]]  # unique_id, ds (YYYY-MM-DD), y
    forecasts: list[dict[str, Any]]  # unique_id, ds, model, mean, lo_80, hi_80, lo_95, hi_95
    anomalies: list[dict[str, Any]]  # unique_id, ds, y, ...


class Source(BaseModel):
    model_config = ConfigDict(extra="allow")  # an app's own fields (doc_id, url, published) come along
    title: str = ""
    date: str | None = None
    why: str = ""


class Board(View):
    """A research board: the sources kept, the notes, the probability given."""

    view: Literal["board"] = "board"
    slot: ClassVar[str | None] = "board"
    sources: list[Source]
    notes: Any = None
    probability: float | None = None


@runtime_checkable
class Result(Protocol):
    """What every app's result is (a dataclass field or a property for each)."""

    @property
    def status(self) -> Status: ...

    @property
    def output(self) -> Any: ...  # the text a person reads (a typed run's value renders as JSON: `text_of`)

    @property
    def data(self) -> dict[str, Any]: ...

    def views(self) -> list[View]: ...

    def files(self) -> dict[str, Callable[[Path], Any]]: ...  # file name -> writer of that file at a path


ENDINGS = frozenset({"paused", "cancelled", "error"})  # the statuses a client handles apart from "completed"


def ending(result: Result) -> str:
    """How the server ends the run: paused, cancelled, error, or completed for every other status."""
    return result.status if result.status in ENDINGS else "completed"


def text_of(result: Result) -> str:
    """The output as text: a typed run's value as JSON."""
    out = result.output
    return out if isinstance(out, str) else "" if out is None else json.dumps(jsonable(out), ensure_ascii=False)


def jsonable(value: Any) -> Any:
    """JSON-ready: models and dataclasses as dicts, numpy scalars as numbers, dates and other objects as strings,
    NaN and infinity as null."""
    return _finite(to_jsonable_python(value, fallback=_scalar_or_text))


def _scalar_or_text(value: Any) -> Any:
    """A one-value numpy/pandas object as its number, anything else unknown to pydantic as its text."""
    return value.item() if hasattr(value, "item") and getattr(value, "size", 1) == 1 else str(value)


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value
