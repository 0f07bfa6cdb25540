"""How a bench script loads another one as a module: by its path, registered in `sys.modules` (so its dataclasses
and `importlib` lookups resolve), never by putting bench/ on a test's sys.path (bench/mcp.py would shadow the `mcp`
package). A script run as `python bench/<script>.py` imports this one by name."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).parent


def load(name: str) -> ModuleType:
    """bench/<name>.py as the module `name` (loaded once)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
