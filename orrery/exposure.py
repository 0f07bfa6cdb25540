"""Who may reach a server: loopback is open, any other address needs a bearer token (both servers use this)."""

from __future__ import annotations

import ipaddress
import os

from orrery.errors import ConfigError


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_exposure(host: str, token: str | None, what: str = "the server") -> str | None:
    """The token to require (`token`, else $ORRERY_TOKEN); refuses an address off loopback without one."""
    token = token or os.environ.get("ORRERY_TOKEN") or None
    if token is None and not is_loopback(host):
        raise ConfigError(
            f"serving on {host} would let anyone on the network use {what}: pass --token "
            "(or set ORRERY_TOKEN) and give clients that bearer token, or serve on 127.0.0.1"
        )
    return token
