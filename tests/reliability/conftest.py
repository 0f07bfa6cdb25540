from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from orrery.cli import main


@dataclass
class CliRun:
    code: int
    out: str
    err: str

    def one_line_error(self, *parts: str) -> str:
        """Assert the run failed with exit 2 and one `error:` line (no traceback) holding `parts`."""
        assert self.code == 2, (self.code, self.out, self.err)
        assert "Traceback" not in self.out + self.err
        lines = self.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), self.err
        for part in parts:
            assert part in lines[0], (part, lines[0])
        return lines[0]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Callable[..., CliRun]:
    """Run `orrery ARGS` in this process through the real entry point (its error handler included)."""

    def run(*args: str | Path) -> CliRun:
        capsys.readouterr()
        monkeypatch.setattr(sys, "argv", ["orrery", *map(str, args)])
        with pytest.raises(SystemExit) as exc:
            main()
        captured = capsys.readouterr()
        return CliRun(int(exc.value.code or 0), captured.out, captured.err)

    return run
