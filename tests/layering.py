"""Which files of an app reach a private name of the core (`orrery.agent`, `orrery.tools`, `orrery.llm`).

A reach is: importing a `_name` (or a `_module`) from the core; `X._name` where X was imported from the core
(a module, a class); in a class built on a core class, a method that overrides a private method of it, or
`self._name` / `super()._name` where the core class defines `_name`. `tests/core/test_layering.py` fails on any;
run as a script to print them.
Not seen: `obj._name` on an object whose type the code does not name (no type inference)."""

from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
import sys
from pathlib import Path

CORE = ("orrery.agent", "orrery.tools", "orrery.llm")
ROOT = Path(__file__).parents[1] / "orrery"


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _is_core(module: str | None) -> bool:
    return bool(module) and any(module == c or module.startswith(c + ".") for c in CORE)


def _core_private_names(obj: object) -> set[str]:
    """The private names a core class (and its core bases) defines: methods, class attributes, `self._x = ...`."""
    names: set[str] = set()
    for cls in getattr(obj, "__mro__", ()):
        if not _is_core(getattr(cls, "__module__", "")):
            continue
        names |= {n for n in vars(cls) if _private(n)}
        try:
            tree = ast.parse(inspect.getsource(cls).lstrip())  # lstrip: a class nested in a block is indented
        except (OSError, TypeError, SyntaxError):
            continue
        names |= {
            n.attr
            for n in ast.walk(tree)
            if isinstance(n, ast.Attribute)
            and _private(n.attr)
            and isinstance(n.value, ast.Name)
            and n.value.id == "self"
        }
    return names


def violations(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    found, core = _core_imports(tree)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and _private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in core
        ):
            found.append(f"{node.lineno}: uses {node.value.id}.{node.attr}")
        elif isinstance(node, ast.ClassDef):
            found += _subclass_reaches(node, core)
    return sorted(set(found), key=lambda s: int(s.split(":")[0]))


def _core_imports(tree: ast.Module) -> tuple[list[str], dict[str, object]]:
    """The imports of private core names, and {local name: the core object it names}."""
    found, core = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and _is_core(node.module):
            for a in node.names:
                if _private(a.name) or any(_private(p) for p in node.module.split(".")):
                    found.append(f"{node.lineno}: imports {node.module}.{a.name}")
                with contextlib.suppress(ImportError, AttributeError):
                    core[a.asname or a.name] = getattr(importlib.import_module(node.module), a.name)
        elif isinstance(node, ast.Import):
            core |= {a.asname: importlib.import_module(a.name) for a in node.names if _is_core(a.name) and a.asname}
    return found, core


def _subclass_reaches(cls: ast.ClassDef, core: dict[str, object]) -> list[str]:
    private = set().union(
        *(_core_private_names(core[b.id]) for b in cls.bases if isinstance(b, ast.Name) and b.id in core)
    )
    if not private:
        return []
    found = [
        f"{n.lineno}: {cls.name} overrides {n.name}"
        for n in cls.body
        if isinstance(n, ast.FunctionDef) and n.name in private
    ]
    for n in ast.walk(cls):
        if (
            isinstance(n, ast.Attribute)
            and n.attr in private
            and (
                isinstance(n.value, ast.Name)
                and n.value.id == "self"
                or isinstance(n.value, ast.Call)
                and isinstance(n.value.func, ast.Name)
                and n.value.func.id == "super"
            )
        ):
            found.append(f"{n.lineno}: {cls.name} reaches {n.attr}")
    return found


NOT_APPS = {"agent", "tools", "llm", "serve", "__pycache__"}  # the core, and the server every app is served by
APP_MODULES = ("chat.py",)  # apps kept in one module at the package root


def app_files(root: Path = ROOT) -> list[Path]:
    """Every module of every app: each folder under orrery/ that is not the core or the server (bi, markets,
    forecast, research, mcp, recall, and any app added later), and the root's app modules."""
    apps = [d for d in sorted(root.iterdir()) if d.is_dir() and d.name not in NOT_APPS and any(d.glob("*.py"))]
    return [p for d in apps for p in sorted(d.rglob("*.py"))] + [root / m for m in APP_MODULES if (root / m).exists()]


def app_violations(root: Path = ROOT) -> dict[str, list[str]]:
    """{file: reaches} for every app module (`app_files`)."""
    out = {}
    for p in app_files(root):
        if found := violations(p):
            out[str(p.relative_to(root.parent))] = found
    return out


if __name__ == "__main__":
    result = app_violations()
    for file, found in result.items():
        print(file, *found, sep="\n  ")
    sys.exit(1 if result else 0)
