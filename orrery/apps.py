"""Apps as plugins: each app registers an `App` in the `orrery.apps` entry point group.

The CLI mounts each app's commands and the server lists and runs its agents; neither imports an app by
name, so the core never depends on one. An app's registration module must stay light (no numpy, no
model): everything heavy is named by a "module:attr" string and imported on use.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from orrery.errors import ConfigError

ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"  # every id a client names (thread, run, upload): never a path
UPLOAD = "upload"  # the JSON schema `format` of an input that is an upload id


# The types an app's inputs are made of: none of them can name a path, a URL or a database file.
UploadId = Annotated[str, Field(pattern=ID_PATTERN, json_schema_extra={"format": UPLOAD})]
Name = Annotated[str, Field(pattern=r"^[A-Za-z0-9_][A-Za-z0-9_ .-]{0,127}$")]  # a word: no slash, colon or backslash
Column = Annotated[str, Field(min_length=1, max_length=200)]  # a column of the user's own table


class Inputs(BaseModel):
    """Base of an app's declared inputs: unknown names are refused (the user's words are the run's message)."""

    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class App:
    name: str
    description: str
    agent: str  # "module:attr" of a factory: (model: str | Model | None = None, **options) -> agent with run/stream
    # The inputs besides the user's words (always the run's message): an `Inputs` subclass the server validates.
    inputs: type[BaseModel] = Inputs
    message: str = "your request"  # what the user's words are (shown by the server)
    cli: str | None = None  # "module:attr" of a typer.Typer mounted as `orrery <name>`, or of one command
    cli_commands: tuple[str, ...] = ()  # extra top-level commands ("module:attr" of functions), e.g. `orrery demo`
    extra: str = ""  # the pip extra holding its dependencies: `pip install 'orrery[<extra>]'`

    def make_agent(self, model: Any = None, **options: Any) -> Any:
        return load_ref(self.agent)(model, **options)

    def input_model(self) -> type[BaseModel]:
        return self.inputs

    def factory_params(self) -> frozenset[str]:
        return frozenset(inspect.signature(load_ref(self.agent)).parameters)

    def split(self, inputs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """(the factory's options, the run's inputs): an input the factory takes (BI's `db`) goes to the factory,
        the others to the run (`stream(message, **inputs)`)."""
        takes = self.factory_params()
        return {k: v for k, v in inputs.items() if k in takes}, {k: v for k, v in inputs.items() if k not in takes}

    def describe(self) -> dict[str, Any]:
        """What `GET /agents` shows: the message, each input with what it is, and the inputs' JSON schema."""
        schema = self.inputs.model_json_schema()
        inputs = {"message": self.message}
        inputs |= {k: v.get("description", k) for k, v in schema.get("properties", {}).items()}
        return {"name": self.name, "description": self.description, "inputs": inputs, "schema": schema}


@functools.cache
def upload_fields(model: type[BaseModel]) -> tuple[str, ...]:
    """The inputs of `model` that are upload ids (`UploadId`, also inside `UploadId | None`)."""
    props = model.model_json_schema().get("properties", {})
    return tuple(
        name
        for name, p in props.items()
        if UPLOAD in (p.get("format"), *(alt.get("format") for alt in p.get("anyOf", ())))
    )


def load_ref(ref: str) -> Any:
    """Import "module:attr" from an installed app's registration (never from a data file)."""
    module, _, attr = ref.partition(":")
    obj = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def discover() -> dict[str, App]:
    """The installed apps by name, in registration order."""
    apps: dict[str, App] = {}
    for ep in entry_points(group="orrery.apps"):
        app = ep.load()
        if not isinstance(app, App):
            raise ConfigError(f"entry point {ep.name!r} ({ep.value}) is not an orrery.apps.App; fix the app's package")
        apps[app.name] = app
    return apps


def get(name: str) -> App:
    apps = discover()
    if name not in apps:
        raise ConfigError(f"no app named {name!r}; installed: {', '.join(apps) or 'none'}")
    return apps[name]
