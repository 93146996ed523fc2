"""fetch_to_file over real sockets: a loopback HTTP(S) server, and listeners that must stay silent.

Loopback is private, so the serving tests allow it through `allow_hosts`; the refusal tests use
the default policy and a trap listening on 127.0.0.1, 127.0.0.2 and ::1 (one port) to prove that
no connection was even attempted. Names are mapped to addresses by replacing
`socket.getaddrinfo` (the resolver, not the fetcher), which also counts the lookups.
"""

from __future__ import annotations

import random
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from soundstage.media.fetch import (
    FetchPolicy,
    FetchResult,
    MediaTooLarge,
    MediaUnreachable,
    UrlNotAllowed,
    fetch_to_file,
)

PAYLOAD = random.Random(7).randbytes(200_000)
LOOPBACK = FetchPolicy(allow_hosts=frozenset({"127.0.0.1"}), timeout_seconds=5)
CAP = 1024 * 1024


class MediaServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.port = int(self.server_address[1])
        self.seen: list[tuple[str, str | None]] = []  # (path, Host header)
        self.sni: list[str | None] = []
        self.stop = threading.Event()
        if tls is not None:
            tls.sni_callback = lambda _sock, name, _ctx: self.sni.append(name)
            self.socket = tls.wrap_socket(self.socket, server_side=True)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: MediaServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.server.seen.append((self.path, self.headers.get("Host")))
        path = urlsplit(self.path).path
        try:
            self.route(path)
        except OSError:
            self.close_connection = True  # the client hung up, as it should at a cap

    def route(self, path: str) -> None:
        if path == "/file.wav":
            self.answer(200, PAYLOAD, content_type="audio/wav")
        elif path == "/redirect":
            target = parse_qs(urlsplit(self.path).query)["to"][0]
            self.answer(302, b"", location=target)
        elif path.startswith("/hops/"):
            left = int(path.rsplit("/", 1)[1])
            if left:
                self.answer(302, b"", location=f"/hops/{left - 1}")
            else:
                self.answer(200, PAYLOAD, content_type="audio/wav")
        elif path == "/declares-huge":
            self.send_response(200)
            self.send_header("Content-Length", str(10**12))
            self.end_headers()
            self.wfile.flush()
            self.server.stop.wait(5)  # the body never comes: a client reading it would hang
            self.close_connection = True
        elif path == "/chunked-forever":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            block = b"x" * 65536
            for _ in range(64 * CAP // len(block)):
                self.wfile.write(b"%x\r\n%b\r\n" % (len(block), block))
            self.wfile.write(b"0\r\n\r\n")
        elif path == "/unsized-forever":
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            for _ in range(1024):
                self.wfile.write(b"x" * 65536)
        elif path == "/trickle":
            self.send_response(200)
            self.send_header("Content-Length", "10000")
            self.end_headers()
            for _ in range(10000):
                self.wfile.write(b"x")
                self.wfile.flush()
                if self.server.stop.wait(0.05):
                    break
            self.close_connection = True
        else:
            self.answer(404, b"not here")

    def answer(
        self, status: int, body: bytes, *, content_type: str | None = None, location: str = ""
    ) -> None:
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        if location:
            self.send_header("Location", location)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve(tls: ssl.SSLContext | None = None) -> Iterator[MediaServer]:
    server = MediaServer(tls)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stop.set()
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def server() -> Iterator[MediaServer]:
    yield from serve()


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for media.test (and only that name)."""
    openssl = shutil.which("openssl")
    assert openssl, "openssl is missing (apt package openssl)"
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            *(openssl, "req", "-x509", "-nodes", "-days", "2"),
            *("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"),
            *("-keyout", str(key), "-out", str(cert)),
            *("-subj", "/CN=media.test", "-addext", "subjectAltName=DNS:media.test"),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


@pytest.fixture(scope="module")
def tls_server(certificate: tuple[Path, Path]) -> Iterator[MediaServer]:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*certificate)
    yield from serve(context)


class Listener:
    """Sockets that listen but never accept: any connection attempt stays in their queue."""

    def __init__(self, *hosts: str, port: int = 0) -> None:
        self.sockets: list[socket.socket] = []
        for host in hosts:
            sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
            self.sockets.append(sock)
            try:
                sock.bind((host, port))
            except OSError:
                self.close()
                raise
            port = int(sock.getsockname()[1])
            sock.listen(16)
            sock.setblocking(False)
        self.port = port

    def connections(self) -> int:
        count = 0
        for sock in self.sockets:
            while True:
                try:
                    conn, _ = sock.accept()
                except BlockingIOError:
                    break
                conn.close()
                count += 1
        return count

    def close(self) -> None:
        for sock in self.sockets:
            sock.close()


@pytest.fixture
def trap() -> Iterator[Listener]:
    """A port on which 127.0.0.1, 127.0.0.2 and ::1 all listen."""
    for _ in range(20):
        try:
            listener = Listener("127.0.0.1", "127.0.0.2", "::1")
        except OSError:
            continue  # the port was taken on one of the other addresses; pick another
        yield listener
        listener.close()
        return
    raise AssertionError("no port free on 127.0.0.1, 127.0.0.2 and ::1")


Answer = Callable[[], list[str]]


class Resolver:
    """Maps chosen names to addresses; every other lookup goes to the real resolver."""

    def __init__(self, real: Callable[..., Any]) -> None:
        self.real = real
        self.names: dict[str, Answer] = {}
        self.lookups: list[str] = []

    def __call__(self, host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in self.names:
            return self.real(host, port, *args, **kwargs)
        self.lookups.append(host)
        results: list[tuple[Any, ...]] = []
        for address in self.names[host]():
            if ":" in address:
                results.append((socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, port, 0, 0)))
            else:
                results.append((socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port)))
        return results


@pytest.fixture
def dns(monkeypatch: pytest.MonkeyPatch) -> Resolver:
    resolver = Resolver(socket.getaddrinfo)
    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    return resolver


def fetch(url: str, dest: Path, policy: FetchPolicy = LOOPBACK, **kwargs: Any) -> FetchResult:
    return fetch_to_file(url, dest, policy=policy, **kwargs)


def test_downloads_a_file(server: MediaServer, tmp_path: Path) -> None:
    dest = tmp_path / "in.wav"
    result = fetch(f"http://127.0.0.1:{server.port}/file.wav", dest)
    assert dest.read_bytes() == PAYLOAD
    assert result == FetchResult(
        final_url=f"http://127.0.0.1:{server.port}/file.wav",
        size_bytes=len(PAYLOAD),
        content_type="audio/wav",
        redirects=0,
    )
    assert list(tmp_path.iterdir()) == [dest]


REFUSED = [
    "http://127.0.0.1:{port}/",
    "https://127.0.0.1:{port}/",
    "http://127.0.0.2:{port}/",
    "http://[::1]:{port}/",
    "http://0x7f000001:{port}/",
    "http://2130706433:{port}/",
    "http://0177.0.0.1:{port}/",
    "http://017700000001:{port}/",
    "http://127.1:{port}/",
    "http://0x7f.1:{port}/",
    "http://[::ffff:127.0.0.1]:{port}/",
    "http://[::ffff:7f00:1]:{port}/",
    "http://[::127.0.0.1]:{port}/",
    "http://[64:ff9b::127.0.0.1]:{port}/",
    "http://[2002:7f00:1::]:{port}/",
    "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
    "http://localhost:{port}/",
    "http://LOCALHOST:{port}/",
    "http://0.0.0.0:{port}/",
    "http://[::]:{port}/",
    "http://10.0.0.1/",
    "http://172.16.5.4/",
    "http://192.168.1.1/",
    "http://169.254.169.254/latest/meta-data/",
    "http://100.100.100.200/latest/meta-data/",
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://[fc00::1]/",
    "http://[fe80::1]/",
    "http://[fe80::1%25lo]:{port}/",
    "http://100.64.0.1/",
    "http://224.0.0.1/",
    "http://[ff02::1]/",
    "http://255.255.255.255/",
    "http://240.0.0.1/",
    "http://198.18.0.1/",
    "file:///etc/passwd",
    "gopher://x/",
    "ftp://x/",
    "data:text/plain,hello",
    "javascript:alert(1)",
    "http:///no-host",
    "http://user:secret@127.0.0.1:{port}/",
    "http://%31%32%37.0.0.1:{port}/",
    "http://127.0.0.1:{port}\\@example.com/",
    "http://127.0.0.1:99999/",
    "http://example.com/\r\nHost: evil",
]


@pytest.mark.parametrize("template", REFUSED)
def test_refuses_without_connecting(template: str, trap: Listener, tmp_path: Path) -> None:
    with pytest.raises(UrlNotAllowed) as caught:
        fetch(
            template.format(port=trap.port), tmp_path / "in.wav", FetchPolicy(), param="media_url"
        )
    assert (caught.value.status, caught.value.code, caught.value.param) == (
        422,
        "url_not_allowed",
        "media_url",
    )
    assert trap.connections() == 0
    assert list(tmp_path.iterdir()) == []


def test_the_trap_sees_a_connection_when_one_is_made(trap: Listener, tmp_path: Path) -> None:
    policy = FetchPolicy(allow_hosts=frozenset({"127.0.0.1"}), timeout_seconds=0.3)
    with pytest.raises(MediaUnreachable, match="timed out"):
        fetch(f"http://127.0.0.1:{trap.port}/", tmp_path / "in.wav", policy)
    assert trap.connections() == 1


def test_refuses_names_that_resolve_to_private_addresses(
    dns: Resolver, trap: Listener, tmp_path: Path
) -> None:
    dns.names["intranet.test"] = lambda: ["10.1.2.3"]
    # One public and one loopback address: refused, since either might be the one used.
    dns.names["mixed.test"] = lambda: ["93.184.215.14", "127.0.0.1"]
    dns.names["mapped.test"] = lambda: ["::ffff:127.0.0.1"]
    for name in ("intranet.test", "mixed.test", "mapped.test"):
        with pytest.raises(UrlNotAllowed):
            fetch(f"http://{name}:{trap.port}/", tmp_path / "in.wav", FetchPolicy())
    assert dns.lookups == ["intranet.test", "mixed.test", "mapped.test"]
    assert trap.connections() == 0


def test_connects_to_the_address_it_checked(
    server: MediaServer, dns: Resolver, tmp_path: Path
) -> None:
    # DNS rebinding: the first answer is the one checked; a second lookup would get 127.0.0.2.
    answers = iter([["127.0.0.1"]])
    dns.names["rebind.test"] = lambda: next(answers, ["127.0.0.2"])
    other = Listener("127.0.0.2", port=server.port)
    try:
        policy = FetchPolicy(allow_hosts=frozenset({"rebind.test"}), timeout_seconds=5)
        url = f"http://rebind.test:{server.port}/file.wav"
        result = fetch(url, tmp_path / "in.wav", policy)
        assert other.connections() == 0
    finally:
        other.close()
    assert result.final_url == url
    assert (tmp_path / "in.wav").read_bytes() == PAYLOAD
    assert dns.lookups == ["rebind.test"]
    assert server.seen[-1] == ("/file.wav", f"rebind.test:{server.port}")


def test_allow_hosts_match_the_host_as_written(server: MediaServer, tmp_path: Path) -> None:
    dest = tmp_path / "in.wav"
    port = server.port
    fetch(
        f"http://127.0.0.1:{port}/file.wav",
        dest,
        FetchPolicy(allow_hosts=frozenset({f"127.0.0.1:{port}"})),
    )
    assert dest.read_bytes() == PAYLOAD
    for entries, url in [
        ({"127.0.0.1:1"}, f"http://127.0.0.1:{port}/file.wav"),  # another port
        ({"127.0.0.1"}, f"http://localhost:{port}/file.wav"),  # a name for an allowed address
        ({"127.0.0.1"}, f"http://0x7f000001:{port}/file.wav"),  # another spelling
    ]:
        with pytest.raises(UrlNotAllowed):
            fetch(url, tmp_path / "other.wav", FetchPolicy(allow_hosts=frozenset(entries)))


def test_rejects_malformed_allow_hosts() -> None:
    with pytest.raises(ValueError, match="allow_hosts"):
        FetchPolicy(allow_hosts=frozenset({"http://example.com/"}))


@pytest.mark.parametrize(
    "target",
    [
        "http://127.0.0.2:{port}/",
        "http://[::1]:{port}/",
        "http://localhost:{port}/",
        "http://10.0.0.1/",
        "http://169.254.169.254/latest/meta-data/",
        "file:///etc/passwd",
    ],
)
def test_refuses_redirects_to_forbidden_addresses(
    target: str, server: MediaServer, trap: Listener, tmp_path: Path
) -> None:
    location = target.format(port=trap.port)
    with pytest.raises(UrlNotAllowed):
        fetch(f"http://127.0.0.1:{server.port}/redirect?to={location}", tmp_path / "in.wav")
    assert trap.connections() == 0
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("hops", [2, 5])
def test_follows_redirects_up_to_the_limit(hops: int, server: MediaServer, tmp_path: Path) -> None:
    result = fetch(f"http://127.0.0.1:{server.port}/hops/{hops}", tmp_path / "in.wav")
    assert result.redirects == hops
    assert result.final_url == f"http://127.0.0.1:{server.port}/hops/0"
    assert (tmp_path / "in.wav").read_bytes() == PAYLOAD


def test_refuses_a_redirect_chain_over_the_limit(server: MediaServer, tmp_path: Path) -> None:
    with pytest.raises(MediaUnreachable, match="more than 5") as caught:
        fetch(f"http://127.0.0.1:{server.port}/hops/6", tmp_path / "in.wav")
    assert caught.value.code == "media_unreachable"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("cap", "fits"), [(len(PAYLOAD), True), (len(PAYLOAD) - 1, False)])
def test_size_cap_bounds(cap: int, fits: bool, server: MediaServer, tmp_path: Path) -> None:
    policy = FetchPolicy(allow_hosts=LOOPBACK.allow_hosts, max_bytes=cap, timeout_seconds=5)
    url = f"http://127.0.0.1:{server.port}/file.wav"
    if fits:
        assert fetch(url, tmp_path / "in.wav", policy).size_bytes == cap
    else:
        with pytest.raises(MediaTooLarge) as caught:
            fetch(url, tmp_path / "in.wav", policy)
        assert (caught.value.status, caught.value.code) == (422, "media_too_large")
        assert list(tmp_path.iterdir()) == []


def test_refuses_a_declared_size_over_the_cap_before_the_body(
    server: MediaServer, tmp_path: Path
) -> None:
    policy = FetchPolicy(allow_hosts=LOOPBACK.allow_hosts, max_bytes=CAP, timeout_seconds=5)
    # The body never comes: reading it would end in a timeout (media_unreachable) instead.
    with pytest.raises(MediaTooLarge):
        fetch(f"http://127.0.0.1:{server.port}/declares-huge", tmp_path / "in.wav", policy)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("path", ["/chunked-forever", "/unsized-forever"])
def test_stops_an_undeclared_body_at_the_cap(
    path: str, server: MediaServer, tmp_path: Path
) -> None:
    policy = FetchPolicy(allow_hosts=LOOPBACK.allow_hosts, max_bytes=CAP, timeout_seconds=5)
    with pytest.raises(MediaTooLarge):
        fetch(f"http://127.0.0.1:{server.port}{path}", tmp_path / "in.wav", policy)
    assert list(tmp_path.iterdir()) == []  # the partial download is gone


def test_a_failed_download_leaves_an_existing_file_alone(
    server: MediaServer, tmp_path: Path
) -> None:
    dest = tmp_path / "in.wav"
    dest.write_bytes(b"before")
    with pytest.raises(MediaUnreachable):
        fetch(f"http://127.0.0.1:{server.port}/missing", dest)
    assert list(tmp_path.iterdir()) == [dest]
    assert dest.read_bytes() == b"before"


def test_reports_the_status_of_a_failed_answer(server: MediaServer, tmp_path: Path) -> None:
    with pytest.raises(MediaUnreachable, match="the server answered 404") as caught:
        fetch(f"http://127.0.0.1:{server.port}/missing", tmp_path / "in.wav")
    assert (caught.value.status, caught.value.code, caught.value.param) == (
        422,
        "media_unreachable",
        "audio_url",
    )
    assert list(tmp_path.iterdir()) == []


def test_reports_a_refused_connection(tmp_path: Path) -> None:
    closed = Listener("127.0.0.1")
    closed.close()  # the port is now free and nobody listens on it
    with pytest.raises(MediaUnreachable, match="refused the connection"):
        fetch(f"http://127.0.0.1:{closed.port}/", tmp_path / "in.wav")


def test_an_unknown_host_is_answered_as_a_private_address(
    dns: Resolver, server: MediaServer, tmp_path: Path
) -> None:
    """No DNS oracle: a name that does not resolve and one that resolves to a private
    address, directly or after a redirect, give the same status, code and message."""

    def nxdomain() -> list[str]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    dns.names["nowhere.test"] = nxdomain
    dns.names["intranet.test"] = lambda: ["10.1.2.3"]
    answers = []
    for host in ("nowhere.test", "intranet.test"):
        for url in (
            f"http://{host}/a.wav",
            f"http://127.0.0.1:{server.port}/redirect?to=http://{host}/a.wav",
        ):
            with pytest.raises(UrlNotAllowed) as caught:
                fetch(url, tmp_path / "in.wav", LOOPBACK, param="media_url")
            error = caught.value
            answers.append((error.status, error.code, error.message, error.param))
    assert (
        answers
        == [
            (
                422,
                "url_not_allowed",
                "media_url must resolve to public internet addresses only",
                "media_url",
            )
        ]
        * 4
    )


def test_gives_up_after_the_total_time(server: MediaServer, tmp_path: Path) -> None:
    # The server sends a byte every 50 ms: no single read is slow, only the whole.
    policy = FetchPolicy(allow_hosts=LOOPBACK.allow_hosts, timeout_seconds=0.5)
    started = time.monotonic()
    with pytest.raises(MediaUnreachable, match=r"timed out after 0\.5 seconds"):
        fetch(f"http://127.0.0.1:{server.port}/trickle", tmp_path / "in.wav", policy)
    assert time.monotonic() - started < 2
    assert list(tmp_path.iterdir()) == []


def test_https_verifies_the_name_while_connecting_to_the_checked_address(
    tls_server: MediaServer,
    certificate: tuple[Path, Path],
    dns: Resolver,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))
    dns.names["media.test"] = lambda: ["127.0.0.1"]
    dns.names["wrong.test"] = lambda: ["127.0.0.1"]
    policy = FetchPolicy(allow_hosts=frozenset({"media.test", "wrong.test"}), timeout_seconds=5)
    result = fetch(f"https://media.test:{tls_server.port}/file.wav", tmp_path / "in.wav", policy)
    assert (tmp_path / "in.wav").read_bytes() == PAYLOAD
    assert result.final_url == f"https://media.test:{tls_server.port}/file.wav"
    assert tls_server.sni[-1] == "media.test"
    assert tls_server.seen[-1] == ("/file.wav", f"media.test:{tls_server.port}")
    # The certificate names media.test only: another name for the same address fails.
    with pytest.raises(MediaUnreachable, match=r"TLS certificate of wrong\.test is not valid"):
        fetch(f"https://wrong.test:{tls_server.port}/file.wav", tmp_path / "other.wav", policy)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["in.wav"]
