"""One signed delivery attempt: claim (with a lease), send, record. The delivery loop
(`webhooks.loop`) runs them on its own threads; `attempt_delivery` does one by id.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

from standardwebhooks import Webhook

from soundstage import __version__
from soundstage.config import Settings, WebhookSettings
from soundstage.core.db import Database
from soundstage.core.timeutil import utcnow
from soundstage.media import fetch
from soundstage.webhooks import service
from soundstage.webhooks.service import AttemptResult, OutgoingRequest

USER_AGENT = f"Soundstage-Webhooks/{__version__}"
# Allowance beyond the timeout for DNS and bookkeeping before another worker may take over.
LEASE_MARGIN_SECONDS = 30.0


def attempt_delivery(db: Database, settings: Settings, delivery_id: str) -> float | None:
    """One attempt of a delivery, if it is due and its endpoint still receives. Returns the
    delay in seconds before the next attempt, or None when there is nothing more to do
    (succeeded, failed for good, not due, or taken by another worker)."""
    with db.session() as session:
        outgoing = service.begin_attempt(
            session, delivery_id, utcnow(), lease_seconds(settings.webhooks)
        )
    if outgoing is None:
        return None
    return complete_attempt(db, settings, outgoing)


def lease_seconds(config: WebhookSettings) -> float:
    """An attempt ends within the timeout (one deadline for DNS, connect and answer)."""
    return config.timeout_seconds + LEASE_MARGIN_SECONDS


def complete_attempt(db: Database, settings: Settings, outgoing: OutgoingRequest) -> float | None:
    """Send a claimed delivery and record how it went; the delay before the next attempt,
    or None. No transaction is open while the receiver answers."""
    result = send(outgoing, settings.webhooks, settings.fetch_allow_hosts)
    with db.session() as session:
        return service.finish_attempt(session, outgoing, result, settings.webhooks)


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
    """POST the payload under the fetching rules: the address is checked again on every
    attempt and the connection pinned to it; redirects are not followed; one total timeout."""
    attempted_at = utcnow()
    started = time.monotonic()
    status_code: int | None = None
    error: str | None = None
    try:
        status_code = fetch.post(
            outgoing.url,
            outgoing.body,
            signed_headers(outgoing, attempted_at),
            policy=service.endpoint_policy(allow_hosts, config.timeout_seconds),
            param="url",
        )
    except (fetch.NameNotResolved, fetch.AddressNotAllowed):
        # The attempts are listed to the account: no more DNS oracle here than at creation.
        refused = service.refused_address()
        error = f"{refused.code}: {refused.message}"
    except (fetch.UrlNotAllowed, fetch.MediaUnreachable) as exc:
        error = f"{exc.code}: {exc.message}"
    elapsed = time.monotonic() - started
    return AttemptResult(status_code, error, round(elapsed * 1000), attempted_at)
