"""The README's examples run as written (those needing the embedded model run in tests/integration)."""

import re
from pathlib import Path

import pytest

README = (Path(__file__).parents[1] / "README.md").read_text()
BLOCKS = [b for b in re.findall(r"```python\n(.*?)```", README, re.S) if 'model="local"' not in b]


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_example_runs(code, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out.strip()


PACKAGE_README = (Path(__file__).parents[1] / "orrery" / "README.md").read_text()
RUNNABLE = ("Typed run dependencies", "Walkthrough: add an app")  # the sections whose examples run as written
PACKAGE_BLOCKS = [
    b
    for section in PACKAGE_README.split("\n## ")
    if section.startswith(RUNNABLE)
    for b in re.findall(r"```python\n(.*?)```", section, re.S)
]


@pytest.mark.parametrize("code", PACKAGE_BLOCKS, ids=[f"orrery-block{i}" for i in range(len(PACKAGE_BLOCKS))])
def test_package_readme_example_prints_what_it_says(code, tmp_path, monkeypatch, capsys):
    """Each `print(...)  # shown` line of orrery/README.md's runnable sections prints what its comment shows."""
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "orrery/README.md", "exec"), {"__name__": "readme"})
    shown = re.findall(r"^print\(.*\)  # (.+)$", code, re.M)
    assert shown and capsys.readouterr().out.splitlines() == shown


def test_the_runnable_sections_are_there():
    assert len(PACKAGE_BLOCKS) == len(RUNNABLE)
