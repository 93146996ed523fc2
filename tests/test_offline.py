"""The tests' network guard (tests/support/offline.py) holds in the test process and in the
servers and workers it starts: a connection to another machine is refused with the address,
one to this machine goes through. Were it gone, an engine could download a model during the
tests without failing any of them."""

from __future__ import annotations

import re
import socket
import subprocess
import sys

import pytest

from soundstage.config import Settings
from tests.support.offline import NetworkAtRunTime
from tests.support.processes import settings_env

# TEST-NET-1 (RFC 5737): an address no machine answers on.
ELSEWHERE = ("192.0.2.1", 443)

_CONNECT = """
import socket
try:
    socket.create_connection(("192.0.2.1", 443), timeout=5)
except OSError as exc:
    print(type(exc).__name__, exc)
"""


def test_the_test_process_connects_only_to_this_machine() -> None:
    with pytest.raises(NetworkAtRunTime, match=re.escape("192.0.2.1 port 443")):
        socket.create_connection(ELSEWHERE, timeout=5)
    with (
        socket.create_server(("127.0.0.1", 0)) as server,
        socket.create_connection(server.getsockname(), timeout=5),
    ):
        pass


def test_a_subprocess_started_as_a_worker_is_guarded_too(settings: Settings) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _CONNECT],
        env=settings_env(settings),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.startswith("NetworkAtRunTime a connection to 192.0.2.1 port 443"), (
        done.stdout,
        done.stderr,
    )
