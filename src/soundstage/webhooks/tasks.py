"""Job bodies of webhooks: one signed delivery attempt, and the sweeper's list of due ones.

The queue calls `attempt_delivery` for each id it is handed (see `service.set_dispatcher`)
and again after the delay it returns; a sweeper calls `due_deliveries` to pick up what the
queue lost (a crashed worker, a dispatch that failed after commit).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from urllib.parse import urlsplit, urlunsplit

import httpx
from standardwebhooks import Webhook

from soundstage import __version__
from soundstage.config import Settings, WebhookSettings
from soundstage.core.db import Database
from soundstage.core.timeutil import utcnow
from soundstage.webhooks import service
from soundstage.webhooks.addresses import checked_address
from soundstage.webhooks.errors import UrlNotAllowed
from soundstage.webhooks.service import AttemptResult, OutgoingRequest

USER_AGENT = f"Soundstage-Webhooks/{__version__}"
# Allowance beyond the timeout for DNS and bookkeeping before another worker may take over.
LEASE_MARGIN_SECONDS = 30.0


def attempt_delivery(db: Database, settings: Settings, delivery_id: str) -> float | None:
    """One attempt of a delivery, if it is due and its endpoint still receives. Returns the
    delay in seconds before the next attempt, or None when there is nothing more to do
    (succeeded, failed for good, not due, or taken by another worker)."""
    config = settings.webhooks
    # httpx's timeout applies per phase (connect, send, first answer bytes), so an attempt
    # can take a few times the timeout before it gives up.
    lease_seconds = 3 * config.timeout_seconds + LEASE_MARGIN_SECONDS
    with db.session() as session:
        outgoing = service.begin_attempt(session, delivery_id, utcnow(), lease_seconds)
    if outgoing is None:
        return None
    # No transaction is open while the receiver answers.
    result = send(outgoing, config, settings.fetch_allow_hosts)
    with db.session() as session:
        return service.finish_attempt(session, delivery_id, result, config)


def due_deliveries(db: Database, now: datetime, limit: int = 1000) -> list[str]:
    """Ids of pending deliveries whose next attempt is due, oldest due first."""
    with db.read_session() as session:
        return service.due_delivery_ids(session, now, limit)


def signed_headers(outgoing: OutgoingRequest, at: datetime) -> dict[str, str]:
    """Standard Webhooks headers. The webhook-id is the event's id, the same on every retry;
    the timestamp is this attempt's, so that receivers can refuse replays."""
    seconds = int(at.timestamp())
    signature = Webhook(outgoing.secret).sign(
        outgoing.webhook_id, datetime.fromtimestamp(seconds, UTC), outgoing.body.decode()
    )
    return {
        "webhook-id": outgoing.webhook_id,
        "webhook-timestamp": str(seconds),
        "webhook-signature": signature,
        "content-type": "application/json",
        "user-agent": USER_AGENT,
    }


def send(
    outgoing: OutgoingRequest, config: WebhookSettings, allow_hosts: list[str]
) -> AttemptResult:
    """POST the payload to the endpoint's checked address, without following redirects."""
    attempted_at = utcnow()
    started = time.monotonic()
    status_code: int | None = None
    error: str | None = None
    try:
        address = checked_address(outgoing.url, allow_hosts)
        url, headers, extensions = _pinned(outgoing.url, address)
        headers.update(signed_headers(outgoing, attempted_at))
        # trust_env=False: a proxy from the environment would connect elsewhere than checked.
        with (
            httpx.Client(timeout=config.timeout_seconds, trust_env=False) as client,
            client.stream(
                "POST", url, content=outgoing.body, headers=headers, extensions=extensions
            ) as response,
        ):
            # The status is the answer; the body is not read.
            status_code = response.status_code
    except UrlNotAllowed as exc:
        error = f"url_not_allowed: {exc.message}"
    except httpx.TimeoutException:
        error = f"timeout: no answer within {config.timeout_seconds:g} s"
    except httpx.HTTPError as exc:
        error = f"connection_error: {type(exc).__name__}: {exc}"
    elapsed = time.monotonic() - started
    if error is None and elapsed > config.timeout_seconds:
        error = f"timeout: answered after {elapsed:.1f} s"
    return AttemptResult(status_code, error, round(elapsed * 1000), attempted_at)


def _pinned(url: str, address: str) -> tuple[str, dict[str, str], dict[str, str]]:
    """`url` aimed at `address`, with the original host in Host and, for TLS, in SNI and
    certificate checks: the connection goes to the address that was checked, and nowhere
    else, even if the name resolves differently a moment later."""
    parts = urlsplit(url)
    host = f"[{address}]" if ":" in address else address
    netloc = f"{host}:{parts.port}" if parts.port else host
    pinned = urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, ""))
    extensions = {"sni_hostname": parts.hostname or ""} if parts.scheme == "https" else {}
    return pinned, {"host": parts.netloc}, extensions
