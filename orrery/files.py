"""Reading user files and replacing outputs without ever losing data.

* :func:`input_file` / :func:`read_lines` / :func:`read_text`: only regular files (a FIFO would
  block the read, ``/dev/zero`` would never end) and never more than a size cap.
* :func:`write_atomic` / :func:`atomic_path`: a file written beside its target (text, bytes, or by a
  writer given the temporary path), flushed to disk and renamed over the target, so a crash leaves the old
  file or the new one, never half of one.
* :func:`swap_into_place`: move a freshly built file or folder over its target in one step, so a
  reader sees the old one or the new one, and a failed build leaves the old one untouched.
* :func:`cache_dir`: the one folder for what orrery can rebuild (model weights, indexes, databases).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from orrery.errors import DataError


def cache_dir() -> Path:
    """$XDG_CACHE_HOME/orrery (default ~/.cache/orrery); what a user makes goes to `sessions.data_dir()`."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "orrery"


MAX_INPUT_BYTES = 1 << 30  # 1 GiB: far above any corpus file we ship, far below this machine's memory


def input_file(path: str | Path, *, what: str = "input", max_bytes: int | None = None) -> Path:
    """``path`` if it is a regular file of at most ``max_bytes`` (default MAX_INPUT_BYTES); a
    one-line DataError otherwise."""
    path, max_bytes = Path(path), MAX_INPUT_BYTES if max_bytes is None else max_bytes
    try:
        st = path.stat()  # stat never opens: a FIFO cannot block here
    except FileNotFoundError:
        raise DataError(f"{what} {path} does not exist; check the path") from None
    except OSError as exc:
        raise DataError(f"{what} {path} cannot be read: {exc.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file (a FIFO, socket or device)"
        raise DataError(f"{what} {path} is {kind}; pass a regular file")
    if st.st_size > max_bytes:
        raise DataError(f"{what} {path} is {st.st_size:,} bytes, over the {max_bytes:,}-byte limit; split it")
    return path


def read_lines(path: str | Path, *, what: str = "input", max_bytes: int | None = None) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of a UTF-8 text file, streamed, stopping with a DataError past the cap
    (the file may grow while it is read)."""
    max_bytes = MAX_INPUT_BYTES if max_bytes is None else max_bytes
    path = input_file(path, what=what, max_bytes=max_bytes)
    seen = 0
    with path.open("rb") as fh:
        for n, raw in enumerate(fh, 1):
            seen += len(raw)
            if seen > max_bytes:
                raise DataError(f"{what} {path} grew past the {max_bytes:,}-byte limit while being read")
            try:
                yield n, raw.decode("utf-8-sig" if n == 1 else "utf-8")  # a byte-order mark is not data
            except UnicodeDecodeError:
                raise DataError(f"{what} {path} line {n} is not UTF-8 text; convert the file to UTF-8") from None


def read_text(path: str | Path, *, what: str = "input", max_bytes: int | None = None, errors: str = "strict") -> str:
    max_bytes = MAX_INPUT_BYTES if max_bytes is None else max_bytes
    path = input_file(path, what=what, max_bytes=max_bytes)
    with path.open("rb") as fh:
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise DataError(f"{what} {path} grew past the {max_bytes:,}-byte limit while being read")
    try:
        return data.decode("utf-8", errors=errors)
    except UnicodeDecodeError:
        raise DataError(f"{what} {path} is not UTF-8 text; convert the file to UTF-8") from None


def remove(path: Path) -> None:
    """Remove a file or folder this process built (never a user's path)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_path(path: str | Path, *, mode: int = 0o644) -> Iterator[Path]:
    """A temporary path in ``path``'s folder (hidden, with ``path``'s suffix, so writers that pick a format by
    extension still do) to write the new file at; on a normal exit it is flushed to disk, given ``mode`` and
    renamed over ``path``, and the folder is flushed; on an exception it is removed and ``path`` is untouched."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=f".tmp{path.suffix}", dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        _fsync(tmp)
        os.chmod(tmp, mode)  # mkstemp makes it owner-only
        os.replace(tmp, path)
        with contextlib.suppress(OSError):  # the rename itself on disk; not every file system allows it
            _fsync(path.parent)
    finally:
        tmp.unlink(missing_ok=True)


def write_atomic(
    path: str | Path, data: str | bytes | Callable[[Path], object], *, mode: int = 0o644, encoding: str = "utf-8"
) -> Path:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_path`): text, bytes, or a function that writes
    the file at the temporary path it is given (``frame.to_parquet``, ``figure.savefig``)."""
    path = Path(path)
    with atomic_path(path, mode=mode) as tmp:
        if isinstance(data, str):
            tmp.write_text(data, encoding=encoding)
        elif isinstance(data, bytes | bytearray | memoryview):
            tmp.write_bytes(data)
        else:
            data(tmp)
    return path


_AT_FDCWD, _RENAME_EXCHANGE = -100, 2


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step with Linux renameat2(RENAME_EXCHANGE); False where unsupported.
    By hand because neither os nor shutil exposes an atomic swap of two folders."""
    fn = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if fn is None:
        return False
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def swap_into_place(new: Path, target: Path) -> None:
    """Put ``new`` (a built file or folder beside ``target``) at ``target``; the old ``target``, if
    any, is removed only once the new one is in place."""
    if not target.exists() or new.is_file():
        os.replace(new, target)  # atomic for files, and for a folder onto a missing or empty one
        return
    if _exchange(new, target):
        remove(new)  # now holds the old target
        return
    old = target.with_name(f"{new.name}.old")  # fallback: a short window where target is missing
    os.rename(target, old)
    try:
        os.rename(new, target)
    except BaseException:
        os.rename(old, target)
        raise
    remove(old)
