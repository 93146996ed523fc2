"""Downloads a user-supplied media URL to a file without letting it reach private networks."""

from __future__ import annotations

import errno
import ipaddress
import os
import re
import secrets
import socket
import ssl
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

import httpcore
import httpx

from soundstage.core.errors import InvalidField

__all__ = [
    "AddressNotAllowed",
    "FetchPolicy",
    "FetchResult",
    "MediaTooLarge",
    "MediaUnreachable",
    "NameNotResolved",
    "UrlNotAllowed",
    "fetch_to_file",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_SCHEMES = {"http": 80, "https": 443}
_REDIRECTS = {301, 302, 303, 307, 308}
# DNS names as they go on the wire (after IDNA); anything else (%, \, spaces) is refused so
# the name we check is the name the resolver sees.
_HOSTNAME = re.compile(r"^[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?$")
# RFC 3986 reserved and unreserved characters plus "%": kept as they are in a request target;
# everything else (spaces, non-ASCII) is percent-encoded.
_TARGET_SAFE = "/?:@!$&'()*+,;=-._~%[]"

# Covered by `is_global` today; listed so a change in `ipaddress` cannot reopen them.
_ALWAYS_REFUSED = tuple(
    ipaddress.ip_network(net)
    for net in (
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",  # CGNAT; holds Alibaba's metadata service 100.100.100.200
        "127.0.0.0/8",
        "169.254.0.0/16",  # link-local; holds the EC2/GCP/Azure metadata 169.254.169.254
        "172.16.0.0/12",
        "192.168.0.0/16",
        "::/128",
        "::1/128",
        "fc00::/7",  # unique local; holds EC2's IPv6 metadata fd00:ec2::254
        "fe80::/10",
    )
)
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


class UrlNotAllowed(InvalidField):
    """An input URL that is not http(s), or whose host does not resolve or resolves to a
    private, loopback, link-local or metadata address (after DNS, on every redirect; one
    answer for both, word for word, so that no caller can map the service's network's DNS)."""

    code = "url_not_allowed"


class MediaUnreachable(InvalidField):
    """An input URL could not be fetched (the connection failed, an HTTP error status, too
    many redirects, too slow)."""

    code = "media_unreachable"


class MediaTooLarge(InvalidField):
    """An input URL's body is over the fetch size cap."""

    code = "media_too_large"


class AddressNotAllowed(UrlNotAllowed):
    """The host resolved (or is a literal address) to an address the rules refuse."""


class NameNotResolved(UrlNotAllowed):
    """The host name did not resolve, or not in time. Raised with the very status, code and
    message of AddressNotAllowed (`_not_public`): telling "no such name" from "a private
    address" apart would be a DNS oracle on the network this server sits in."""


def _not_public(param: str) -> str:
    """The one message of NameNotResolved and AddressNotAllowed."""
    return f"{param} must resolve to public internet addresses only"


@dataclass(frozen=True)
class FetchPolicy:
    max_bytes: int = 500 * 1024**2
    # Wall time of the whole download: resolution, every redirect hop and the body.
    timeout_seconds: float = 300
    connect_timeout_seconds: float = 10
    max_redirects: int = 5
    # Host names or IPs, optionally "host:port" ("[v6]:port"), exempt from the address rules
    # (self-hosted media servers, tests). Matched against the URL's host as written, never
    # against what a name resolves to: any name can be pointed at an allowed address.
    allow_hosts: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        for entry in self.allow_hosts:
            _allow_entry(entry)  # a malformed entry fails at start-up, not on a user's request


@dataclass(frozen=True)
class FetchResult:
    final_url: str
    size_bytes: int
    content_type: str | None
    redirects: int


def fetch_to_file(
    url: str, dest: Path, *, policy: FetchPolicy, param: str = "audio_url"
) -> FetchResult:
    """Download `url` into `dest`; raise UrlNotAllowed, MediaUnreachable or MediaTooLarge.

    `dest` appears only once the download is complete; a failed download leaves nothing behind.
    """
    deadline = _Deadline(time.monotonic() + policy.timeout_seconds)
    allowed = {_allow_entry(entry) for entry in policy.allow_hosts}
    ssl_context = httpx.create_ssl_context()  # certifi, or SSL_CERT_FILE / SSL_CERT_DIR
    part = dest.with_name(f".{dest.name}.{secrets.token_hex(6)}.part")
    try:
        target = _parse(url, param, allowed)
        for hop in range(policy.max_redirects + 1):
            addresses = _resolve_and_check(target, param, policy, deadline)
            with _exchange(target, addresses, ssl_context, policy, deadline, param) as response:
                if response.status in _REDIRECTS:
                    location = _header(response, b"location")
                    if location is None:
                        raise MediaUnreachable(
                            f"the server answered {response.status} without a Location",
                            param=param,
                        )
                    if hop == policy.max_redirects:
                        raise MediaUnreachable(
                            f"the server redirected more than {policy.max_redirects} times",
                            param=param,
                        )
                    target = _parse(urljoin(target.url, location), param, allowed)
                    continue
                if not 200 <= response.status < 300:
                    raise MediaUnreachable(f"the server answered {response.status}", param=param)
                size = _save_body(response, part, policy, param)
                os.replace(part, dest)
                return FetchResult(
                    final_url=target.url,
                    size_bytes=size,
                    content_type=_header(response, b"content-type"),
                    redirects=hop,
                )
        raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover
    finally:
        part.unlink(missing_ok=True)


def check_url(url: str, *, policy: FetchPolicy, param: str) -> None:
    """Apply the address rules to `url` (resolving it) without connecting: for URLs that
    are stored now and called later, such as webhook endpoints."""
    deadline = _Deadline(time.monotonic() + policy.timeout_seconds)
    target = _parse(url, param, {_allow_entry(entry) for entry in policy.allow_hosts})
    _resolve_and_check(target, param, policy, deadline)


def post(url: str, body: bytes, headers: dict[str, str], *, policy: FetchPolicy, param: str) -> int:
    """POST `body` to `url` under the same rules as fetching (checked and pinned address,
    total time cap); redirects are not followed. Returns the answer's status code."""
    deadline = _Deadline(time.monotonic() + policy.timeout_seconds)
    target = _parse(url, param, {_allow_entry(entry) for entry in policy.allow_hosts})
    addresses = _resolve_and_check(target, param, policy, deadline)
    ssl_context = httpx.create_ssl_context()
    with _exchange(
        target,
        addresses,
        ssl_context,
        policy,
        deadline,
        param,
        method="POST",
        body=body,
        extra_headers=headers,
    ) as response:
        return response.status


@dataclass(frozen=True)
class _Target:
    scheme: str
    host: str  # lower-case ASCII; IPv6 without brackets
    port: int
    request_target: str
    url: str
    allowed: bool


def _parse(url: str, param: str, allowed: set[tuple[str, int | None]]) -> _Target:
    def refuse(why: str) -> UrlNotAllowed:
        return UrlNotAllowed(f"{param} {why}", param=param)

    if len(url) > 8192:
        raise refuse("is too long")
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in url):
        raise refuse("contains control characters")
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in _SCHEMES:
        raise refuse("must be an http or https URL")
    if parts.username is not None or parts.password is not None:
        raise refuse("must not contain credentials")
    try:
        port = parts.port
    except ValueError:
        raise refuse("has an invalid port") from None
    if port == 0:
        raise refuse("has an invalid port")
    port = port or _SCHEMES[scheme]
    host = parts.hostname
    if not host:
        raise refuse("has no host")
    if "[" in parts.netloc:
        try:
            literal = ipaddress.ip_address(host)
        except ValueError:
            raise refuse("has an invalid IPv6 address") from None
        if literal.version != 6:
            raise refuse("has an invalid IPv6 address")
        host = str(literal)
        if "%" in host:  # a zone id ("[fe80::1%25eth0]") picks a local interface
            raise refuse("must not name a network interface")
        authority = f"[{host}]"
    else:
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise refuse("has an invalid host name") from None
        if len(host) > 253 or not _HOSTNAME.match(host):
            raise refuse("has an invalid host name")
        authority = host
    if port != _SCHEMES[scheme]:
        authority = f"{authority}:{port}"
    request_target = quote(parts.path or "/", safe=_TARGET_SAFE)
    if parts.query:
        request_target += "?" + quote(parts.query, safe=_TARGET_SAFE)
    return _Target(
        scheme=scheme,
        host=host,
        port=port,
        request_target=request_target,
        url=f"{scheme}://{authority}{request_target}",
        allowed=(host, None) in allowed or (host, port) in allowed,
    )


def _allow_entry(entry: str) -> tuple[str, int | None]:
    """("host", port or None) from "host", "host:port", "v6", "[v6]" or "[v6]:port"."""
    text = entry.strip().lower()
    if text.count(":") > 1 and not text.startswith("["):
        text = f"[{text}]"  # a bare IPv6 address
    parts = urlsplit(f"//{text}")
    try:
        port = parts.port
    except ValueError:
        port = -1
    host = parts.hostname
    if not host or port == -1 or port == 0 or parts.username is not None or parts.path:
        raise ValueError(f"invalid allow_hosts entry {entry!r}: expected host, IP or host:port")
    try:
        host = str(ipaddress.ip_address(host))
    except ValueError:
        host = host.encode("idna").decode("ascii")
    return host, port


def _resolve_and_check(
    target: _Target, param: str, policy: FetchPolicy, deadline: _Deadline
) -> list[str]:
    """The addresses `target` resolves to, all of them checked; no connection is made here."""
    timeout = min(policy.connect_timeout_seconds, deadline.remaining())
    answer: list[Any] = []

    def lookup() -> None:
        try:
            answer.append(socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM))
        except (OSError, UnicodeError) as exc:
            answer.append(exc)

    # getaddrinfo has no timeout of its own; a daemon thread lets a hung resolver be abandoned.
    thread = threading.Thread(target=lookup, name="fetch-resolve", daemon=True)
    thread.start()
    thread.join(max(timeout, 0))
    if not answer or isinstance(answer[0], BaseException):
        # Not resolved (or not in time): the same answer as a private address.
        raise NameNotResolved(_not_public(param), param=param)
    addresses: list[str] = []
    for family, _, _, _, sockaddr in answer[0]:
        if family in (socket.AF_INET, socket.AF_INET6) and sockaddr[0] not in addresses:
            addresses.append(str(sockaddr[0]))
    if not addresses:
        raise NameNotResolved(_not_public(param), param=param)
    if not target.allowed and any(_refused(address) for address in addresses):
        # Deliberately vague: naming the address would let callers map internal DNS.
        raise AddressNotAllowed(_not_public(param), param=param)
    return addresses


def _refused(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return True
    return _refused_ip(ip)


def _refused_ip(ip: IPAddress) -> bool:
    if isinstance(ip, ipaddress.IPv6Address):
        # IPv6 spellings of an IPv4 address are judged by that address: a public site behind
        # NAT64 or a mapped address stays reachable, ::ffff:127.0.0.1 does not.
        if ip.ipv4_mapped is not None:
            return _refused_ip(ip.ipv4_mapped)
        if ip in _NAT64:
            return _refused_ip(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
        if ip.sixtofour is not None and _refused_ip(ip.sixtofour):
            return True
        if ip.teredo is not None:
            return True  # a tunnel to any IPv4 host; never a media server
        if ip.scope_id:
            return True
    if any(ip in net for net in _ALWAYS_REFUSED if net.version == ip.version):
        return True
    return (
        not ip.is_global
        or ip.is_multicast
        or ip.is_reserved  # catches IPv4-compatible ::a.b.c.d and the rest of ::/8
        or ip.is_unspecified
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_private
    )


class _Deadline:
    """The download's total time budget, enforced on every socket operation."""

    def __init__(self, at: float) -> None:
        self.at = at

    def remaining(self) -> float:
        return self.at - time.monotonic()

    @property
    def expired(self) -> bool:
        return self.remaining() <= 0

    def clamp(self, timeout: float | None, error: type[Exception]) -> float:
        remaining = self.remaining()
        if remaining <= 0:
            raise error("the download's time budget is spent")
        return remaining if timeout is None else min(timeout, remaining)


# How the connection is pinned to the checked address (no second DNS lookup, so no DNS
# rebinding): the request goes through an httpcore pool built for this one hop whose network
# backend ignores the host name httpcore asks for and connects to the addresses that
# `_resolve_and_check` resolved and checked. Everything above the socket still uses the real
# host name: the Host header, and for https the TLS SNI and certificate verification (httpcore
# calls start_tls with server_hostname=<URL host>), so https works like any client. httpcore
# is used directly because httpx's transport does not expose the network backend; we want
# none of httpx's extras anyway (proxies from the environment would defeat the pinning).
class _PinnedBackend(httpcore.NetworkBackend):
    def __init__(self, host: str, addresses: list[str], deadline: _Deadline) -> None:
        self._host = host
        self._addresses = addresses
        self._deadline = deadline
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        if host != self._host:
            raise httpcore.ConnectError(f"this connection is pinned to {self._host}")
        failure: Exception | None = None
        for address in self._addresses:
            try:
                stream = self._inner.connect_tcp(
                    address,
                    port,
                    timeout=self._deadline.clamp(timeout, httpcore.ConnectTimeout),
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc  # try the next checked address, as browsers do
                continue
            return _DeadlineStream(stream, self._deadline)
        assert failure is not None
        raise failure

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("unix sockets are never used")


class _DeadlineStream(httpcore.NetworkStream):
    """Caps every read and write at the time left, so a trickling server cannot outlast it."""

    def __init__(self, inner: httpcore.NetworkStream, deadline: _Deadline) -> None:
        self._inner = inner
        self._deadline = deadline

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, self._deadline.clamp(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, self._deadline.clamp(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        inner = self._inner.start_tls(
            ssl_context,
            server_hostname=server_hostname,
            timeout=self._deadline.clamp(timeout, httpcore.ConnectTimeout),
        )
        return _DeadlineStream(inner, self._deadline)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


@contextmanager
def _exchange(
    target: _Target,
    addresses: list[str],
    ssl_context: ssl.SSLContext,
    policy: FetchPolicy,
    deadline: _Deadline,
    param: str,
    *,
    method: str = "GET",
    body: bytes | None = None,
    extra_headers: dict[str, str] | None = None,
) -> Iterator[httpcore.Response]:
    """One request to the pinned addresses; network failures become MediaUnreachable.
    `extra_headers` replace the defaults of the same name (one User-Agent, never two)."""
    remaining = max(deadline.remaining(), 0.001)
    authority = f"[{target.host}]" if ":" in target.host else target.host
    if target.port != _SCHEMES[target.scheme]:
        authority = f"{authority}:{target.port}"
    extra = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in (extra_headers or {}).items()]
    replaced = {name.lower() for name, _ in extra}
    defaults = [
        (b"User-Agent", b"soundstage-fetch/1"),
        (b"Accept", b"*/*"),
        # The bytes on the wire are the bytes saved and counted: no decompression bombs.
        (b"Accept-Encoding", b"identity"),
    ]
    headers = [(b"Host", authority.encode("ascii"))]
    headers += [(name, value) for name, value in defaults if name.lower() not in replaced]
    headers += [(name, value) for name, value in extra if name.lower() != b"host"]
    pool = httpcore.ConnectionPool(
        ssl_context=ssl_context,
        max_connections=1,
        retries=0,
        network_backend=_PinnedBackend(target.host, addresses, deadline),
    )
    url = httpcore.URL(
        scheme=target.scheme, host=target.host, port=target.port, target=target.request_target
    )
    extensions = {
        "timeout": {
            "connect": min(policy.connect_timeout_seconds, remaining),
            "read": remaining,
            "write": remaining,
            "pool": remaining,
        },
        "sni_hostname": target.host,
    }
    try:
        with (
            pool,
            pool.stream(
                method, url, headers=headers, content=body, extensions=extensions
            ) as response,
        ):
            yield response
    except httpcore.TimeoutException as exc:
        if deadline.expired or not isinstance(exc, httpcore.ConnectTimeout):
            raise _timed_out(policy, param) from None
        raise MediaUnreachable(f"connecting to {target.host} timed out", param=param) from None
    except httpcore.ConnectError as exc:
        raise MediaUnreachable(_connect_failure(target.host, exc), param=param) from None
    except httpcore.ProtocolError:
        raise MediaUnreachable(
            f"{target.host} did not answer with valid HTTP", param=param
        ) from None
    except httpcore.NetworkError:
        raise MediaUnreachable(
            f"the connection to {target.host} broke during the download", param=param
        ) from None


def _timed_out(policy: FetchPolicy, param: str) -> MediaUnreachable:
    return MediaUnreachable(
        f"fetching {param} timed out after {policy.timeout_seconds:g} seconds", param=param
    )


def _connect_failure(host: str, exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    if isinstance(cause, ssl.SSLCertVerificationError):
        return f"the TLS certificate of {host} is not valid: {cause.verify_message}"
    if isinstance(cause, ssl.SSLError):
        return f"the TLS handshake with {host} failed"
    if isinstance(cause, ConnectionRefusedError):
        return f"{host} refused the connection"
    if isinstance(cause, OSError) and cause.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH):
        return f"{host} is unreachable from this server"
    return f"could not connect to {host}"


def _header(response: httpcore.Response, name: bytes) -> str | None:
    for key, value in response.headers:
        if key.lower() == name:
            return value.decode("latin-1").strip()
    return None


def _save_body(response: httpcore.Response, part: Path, policy: FetchPolicy, param: str) -> int:
    declared = _header(response, b"content-length")
    if declared is not None and declared.isdigit() and int(declared) > policy.max_bytes:
        raise _too_large(policy, param)
    size = 0
    with part.open("wb") as out:
        for chunk in response.iter_stream():
            size += len(chunk)
            # The declared length can be missing (chunked, close-delimited): count what arrives.
            if size > policy.max_bytes:
                raise _too_large(policy, param)
            out.write(chunk)
    return size


def _too_large(policy: FetchPolicy, param: str) -> MediaTooLarge:
    return MediaTooLarge(
        f"the file at {param} is larger than the limit of {policy.max_bytes} bytes", param=param
    )
