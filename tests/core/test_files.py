"""orrery.files.write_atomic / atomic_path: the one way orrery replaces a file."""

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from orrery.files import atomic_path, write_atomic


def test_text_bytes_and_writer_land_whole_with_mode(tmp_path: Path):
    assert write_atomic(tmp_path / "a" / "t.json", '{"é": 1}').read_text(encoding="utf-8") == '{"é": 1}'
    assert write_atomic(tmp_path / "b.bin", b"\x00\x01").read_bytes() == b"\x00\x01"
    seen = []

    def writer(tmp: Path) -> None:
        seen.append(tmp)
        tmp.write_text("from a writer")

    out = write_atomic(tmp_path / "c.png", writer)
    assert out.read_text() == "from a writer"
    assert seen[0].parent == tmp_path and seen[0].suffix == ".png" and seen[0].name.startswith(".c.png.")
    assert stat.S_IMODE(out.stat().st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b.bin", "c.png"]  # no temporary left


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path: Path):
    target = write_atomic(tmp_path / "report.json", "old")

    def half(tmp: Path) -> None:
        tmp.write_text("ne")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        write_atomic(target, half)
    with pytest.raises(ValueError), atomic_path(target) as tmp:
        tmp.write_text("new")
        raise ValueError("checksum")
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_the_file_is_flushed_before_it_replaces_the_target(tmp_path: Path, monkeypatch):
    synced: list[str] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(os.readlink(f"/proc/self/fd/{fd}")), real(fd)))
    target = write_atomic(tmp_path / "x.txt", "data")
    assert ".x.txt." in synced[0] and synced[-1] == str(tmp_path)  # the temporary, then the folder's entry
    assert target.read_text() == "data"


@pytest.mark.integration  # a real subprocess
def test_a_process_killed_mid_write_leaves_the_old_file(tmp_path: Path):
    target = write_atomic(tmp_path / "t.txt", "old")
    script = (
        "import os, sys\nfrom orrery.files import write_atomic\n"
        "def die(tmp):\n    tmp.write_text('partial')\n    os._exit(9)\n"
        "write_atomic(sys.argv[1], die)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(target)],
        env=os.environ | {"PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    assert done.returncode == 9 and target.read_text() == "old"
