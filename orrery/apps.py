"""Apps as plugins: each app registers an `App` in the `orrery.apps` entry point group.

The CLI mounts each app's commands and the server lists and runs its agents; neither imports an app by
name, so the core never depends on one. An app's registration module must stay light (no numpy, no
model): everything heavy is named by a "module:attr" string and imported on use.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

from orrery.errors import ConfigError


@dataclass(frozen=True)
class App:
    name: str
    description: str
    agent: str  # "module:attr" of a factory: (llm: str | Model | None = None, **options) -> agent with run/stream
    inputs: dict[str, str] = field(default_factory=dict)  # input name -> what it is (shown by the server)
    cli: str | None = None  # "module:attr" of a typer.Typer mounted as `orrery <name>`, or of one command
    cli_commands: tuple[str, ...] = ()  # extra top-level commands ("module:attr" of functions), e.g. `orrery demo`
    extra: str = ""  # the pip extra holding its dependencies: `pip install 'orrery[<extra>]'`

    def make_agent(self, llm: Any = None, **options: Any) -> Any:
        return load_ref(self.agent)(llm, **options)


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
