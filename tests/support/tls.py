"""A throwaway certificate authority for the clients that force TLS (the vendors' realtime
SDKs always open wss://): a server certificate for 127.0.0.1 and localhost, and the client
side's trust in it, made fresh for a test session, never written outside its folder."""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path

import trustme


@dataclass(frozen=True)
class Certificate:
    """The files of a server certificate issued by a test authority."""

    # The authority's certificate: what a client trusts (SSL_CERT_FILE, `verify=`).
    ca_file: Path
    # The server's certificate chain and its private key (`soundstage serve --ssl-*`).
    cert_file: Path
    key_file: Path

    def client_context(self) -> ssl.SSLContext:
        """A client context that trusts this authority only, and checks host names."""
        return ssl.create_default_context(cafile=str(self.ca_file))


def issue(folder: Path) -> Certificate:
    """A new authority and a certificate it issued for 127.0.0.1 and localhost, in `folder`."""
    authority = trustme.CA()
    server = authority.issue_cert("127.0.0.1", "localhost")
    folder.mkdir(parents=True, exist_ok=True)
    certificate = Certificate(
        ca_file=folder / "ca.pem",
        cert_file=folder / "server.pem",
        key_file=folder / "server.key",
    )
    authority.cert_pem.write_to_path(str(certificate.ca_file))
    server.cert_chain_pems[0].write_to_path(str(certificate.cert_file))
    for more in server.cert_chain_pems[1:]:
        more.write_to_path(str(certificate.cert_file), append=True)
    server.private_key_pem.write_to_path(str(certificate.key_file))
    return certificate
