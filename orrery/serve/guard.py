"""The server's boundary: what a request may be before any route sees it, and the checks on every id and path.

`Guard` is pure ASGI (FastAPI's @middleware("http") would wrap streamed responses and hide a client's
disconnect from the run). In order, a request is refused when:
- its Host is not one this server answers to (DNS rebinding: a page on evil.example resolved to 127.0.0.1);
- it carries an Origin other than the server's own or one given with `--cors` (a cross-site page);
- it names a token in its URL (URLs end up in logs, history and Referer headers);
- its path has a `.` or `..` segment (also when sent percent-encoded: the path is checked decoded);
- it is a POST whose Content-Type is not `application/json` (`multipart/form-data` for /uploads): a page on
  another site can send `text/plain` or a form without asking the browser first;
- its body has no Content-Length or is over the limit (JSON bodies and uploads have their own).
"""

from __future__ import annotations

import ipaddress
import json
import logging
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from fastapi import HTTPException
from starlette.responses import JSONResponse

from orrery.apps import ID_PATTERN
from orrery.exposure import is_loopback

ID = re.compile(ID_PATTERN)
LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1"}
WILDCARD = {"0.0.0.0", "::", ""}
MAX_DEPTH = 64  # JSON nesting a request body may have (an AG-UI body needs about 8)
UPLOAD_PATH = "/uploads"
FRAMING = 64 * 2**10  # multipart headers around an upload of the limit


def check_id(what: str, value: str) -> str:
    """`value` if it is an id (1-64 letters, digits, '_' or '-'); a 400 naming `what` otherwise."""
    if not isinstance(value, str) or not ID.match(value):
        raise HTTPException(400, f"{what} {str(value)[:80]!r} is not an id: use 1-64 letters, digits, '_' or '-'")
    return value


def inside(root: Path, *parts: str) -> Path:
    """`root/parts...` resolved (symlinks followed); a ValueError when it is not inside `root`."""
    base = root.resolve()
    path = base.joinpath(*parts).resolve()
    if not path.is_relative_to(base) or path == base:
        raise ValueError(f"{'/'.join(parts)} leads outside the server's folder {base}")
    return path


def parse_json(raw: bytes) -> Any:
    """A JSON body at most MAX_DEPTH deep; ValueError with the reason otherwise (never RecursionError)."""
    try:
        value = json.loads(raw, parse_constant=_not_json)
    except RecursionError:
        raise ValueError(f"the JSON is nested deeper than {MAX_DEPTH} levels") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"the body is not UTF-8 ({exc.reason})") from None
    level, stack = 0, [(value, 1)]
    while stack:  # iterative: a body just under the recursion limit must not blow the stack here either
        node, level = stack.pop()
        if level > MAX_DEPTH:
            raise ValueError(f"the JSON is nested deeper than {MAX_DEPTH} levels")
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        stack.extend((child, level + 1) for child in children)
    return value


def _not_json(word: str) -> Any:
    raise ValueError(f"{word} is not JSON (JSON has no NaN or Infinity)")


def host_name(header: str) -> str | None:
    try:
        name = urlsplit(f"//{header}").hostname
    except ValueError:
        return None
    return name.rstrip(".") if name else None


class Hosts:
    """The Host names this server answers to: the one it is bound to, every loopback name when it is bound to
    loopback, those and any IP address when it listens on all of them (rebinding needs a DNS name), and
    `--allowed-host`."""

    def __init__(self, bound: str, allowed: Iterable[str] = ()):
        self.wildcard = bound in WILDCARD
        local = is_loopback(bound) or self.wildcard  # all addresses include the loopback ones
        self.names = {n.lower().strip("[]") for n in (bound, *allowed) if n} | (LOOPBACK_NAMES if local else set())

    def __call__(self, header: str) -> bool:
        name = host_name(header)
        if name is None:
            return False
        if name in self.names:
            return True
        if self.wildcard:
            try:
                ipaddress.ip_address(name)
                return True
            except ValueError:
                return False
        return False


class Guard:
    def __init__(self, app: Any, *, hosts: Hosts, origins: Iterable[str], body_limit: int, upload_limit: int):
        self.app, self.hosts, self.origins = app, hosts, {o.rstrip("/") for o in origins}
        self.body_limit, self.upload_limit = body_limit, upload_limit

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] == "http" and (refusal := self.refusal(scope)) is not None:
            status, message = refusal
            await JSONResponse({"error": message}, status)(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def refusal(self, scope: dict) -> tuple[int, str] | None:
        headers: dict[bytes, bytes] = {}
        for k, v in scope["headers"]:
            headers.setdefault(k.lower(), v)
        host = headers.get(b"host", b"").decode("latin-1")
        if not self.hosts(host):
            return 403, (
                f"this server does not answer to the host {host[:100]!r}; open it by the address it "
                "listens on, or start it with --allowed-host NAME"
            )
        origin = headers.get(b"origin", b"").decode("latin-1").rstrip("/")
        if origin and origin not in self.origins and origin != f"{scope.get('scheme', 'http')}://{host}":
            return 403, (
                f"requests from the web page at {origin[:100]!r} are refused; start the server with "
                "--cors ORIGIN to let that page use it"
            )
        if "token" in parse_qs(scope.get("query_string", b"").decode("latin-1")):
            return 400, (
                "a token in a URL ends up in logs and history: send it in an 'Authorization: Bearer' "
                "header, or sign in on the web app's page"
            )
        if any(part in (".", "..") for part in scope["path"].split("/")):
            return 400, "a path with '.' or '..' segments names nothing here"
        if scope["method"] in ("POST", "PUT", "PATCH", "DELETE"):
            return self._body(scope["path"], headers)
        return None

    def _body(self, path: str, headers: dict[bytes, bytes]) -> tuple[int, str] | None:
        media = headers.get(b"content-type", b"").decode("latin-1").split(";")[0].strip().lower()
        upload = path == UPLOAD_PATH
        wanted = "multipart/form-data" if upload else "application/json"
        if media != wanted:
            return 415, f"send the body as {wanted}, not {media or 'a body without a Content-Type'!r}"
        length = headers.get(b"content-length")
        if length is None:
            return 411, "send a Content-Length header (chunked bodies are not accepted)"
        limit = self.upload_limit + FRAMING if upload else self.body_limit
        if not length.isdigit() or int(length) > limit:
            what = f"an upload's limit of {self.upload_limit}" if upload else f"the server's limit of {limit}"
            return 413, f"the body is larger than {what} bytes"
        return None


class RedactTokens(logging.Filter):
    """Access-log lines never carry a `token=` query value (such requests are refused, but still logged)."""

    PATTERN = re.compile(r"(?i)(token=)[^&\s]*")

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(self.PATTERN.sub(r"\1***", a) if isinstance(a, str) else a for a in record.args)
        return True
