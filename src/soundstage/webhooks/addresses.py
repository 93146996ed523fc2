"""Where a webhook may be sent: a stand-in for the SSRF rules of `core/fetch.py` until that
module offers them publicly (today it exports only `fetch_to_file`, a GET download).

Registration and every delivery call `checked_address`; a delivery then connects to the
address it returned and to no other, so a DNS answer that changes after the check
(rebinding) cannot redirect it.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Collection
from urllib.parse import urlsplit

from soundstage.webhooks.errors import UrlNotAllowed


def checked_address(url: str, allow_hosts: Collection[str]) -> str:
    """The IP address to connect to for `url`. Raises UrlNotAllowed when the host does not
    resolve, or resolves to any address that is not public (loopback, private, link-local
    and so the cloud metadata address, reserved...), unless the host is in `allow_hosts`."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("http", "https") or not host:
        raise UrlNotAllowed("Webhook URLs are http:// or https:// with a host.", param="url")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise UrlNotAllowed(f"The host {host} does not resolve.", param="url") from exc
    addresses = [str(info[4][0]) for info in infos]
    # Entries are "host", "host:port" or "[v6]:port", matched against the URL as written
    # (like `fetch_allow_hosts` for media), never against what the name resolves to.
    allowed = {entry.strip().lower() for entry in allow_hosts}
    bracketed = f"[{host}]" if ":" in host else host
    listed = bool(allowed & {host, bracketed, f"{bracketed}:{port}"})
    # Every address must pass, not just the first: the connection could use any of them.
    if not listed and not all(ipaddress.ip_address(a).is_global for a in addresses):
        raise UrlNotAllowed(
            f"The host {host} resolves to a private or reserved address.", param="url"
        )
    return addresses[0]
