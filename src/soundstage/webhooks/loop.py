"""The delivery loop: sends due webhook deliveries on threads of its own, apart from the
audio job processes, so that slow receivers never hold up anyone's audio.

The database is the queue. One thread looks for endpoints with a due delivery and nothing in
flight (polling every `poll_interval_seconds`, sooner when woken: an attempt ended, or this
process emitted an event), claims the longest-waiting delivery of each with a lease, and
hands it to a pool of `delivery_concurrency` threads. An account has at most
`account_concurrency` of them (so one account's slow endpoints cannot take the whole pool);
an endpoint has one request in flight at a time across every worker (`begin_attempt`).
`soundstage worker` runs one loop per machine, in its main process.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.timeutil import utcnow
from soundstage.webhooks import service, tasks
from soundstage.webhooks.service import OutgoingRequest

log = logging.getLogger("soundstage.webhooks")


class DeliveryLoop:
    """`start()` it once; `stop()` stops claiming and waits for the requests in flight
    (each ends within the webhook timeout)."""

    def __init__(self, db: Database, settings: Settings) -> None:
        self.db = db
        self.settings = settings
        self.config = settings.webhooks
        self._pool = ThreadPoolExecutor(
            max_workers=self.config.delivery_concurrency, thread_name_prefix="webhook-send"
        )
        self._lock = threading.Lock()
        self._in_flight = 0
        self._per_account: Counter[str] = Counter()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="webhook-loop", daemon=True)

    def start(self) -> None:
        service.set_dispatcher(lambda _delivery_id: self._wake.set())
        self._thread.start()
        log.info(
            "webhook delivery loop started: %d in flight at most, %d per account",
            self.config.delivery_concurrency,
            self.config.account_concurrency,
        )

    def stop(self) -> None:
        if self._stopping.is_set():
            return
        self._stopping.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join()
        self._pool.shutdown(wait=True)
        service.set_dispatcher(service.dispatched.append)
        log.info("webhook delivery loop stopped")

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                started = self.fill()
            except Exception:
                log.exception("looking for due webhook deliveries failed")
                started = 0
            if started == 0:
                self._wake.wait(self.config.poll_interval_seconds)
                self._wake.clear()

    def fill(self) -> int:
        """Claim due deliveries up to the free places; returns how many were started."""
        with self._lock:
            free = self.config.delivery_concurrency - self._in_flight
            busy = {
                account
                for account, count in self._per_account.items()
                if count >= self.config.account_concurrency
            }
        if free <= 0:
            return 0
        now = utcnow()
        with self.db.read_session() as session:
            candidates = service.due_endpoints(session, now, busy, limit=2 * free)
        started = 0
        for endpoint_id, account_id in candidates:
            if started == free or self._stopping.is_set():
                break
            with self._lock:
                if self._per_account[account_id] >= self.config.account_concurrency:
                    continue
            with self.db.session() as session:
                outgoing = service.claim_next(
                    session, endpoint_id, utcnow(), tasks.lease_seconds(self.config)
                )
            if outgoing is None:
                continue  # taken by another worker meanwhile, or no longer deliverable
            with self._lock:
                self._in_flight += 1
                self._per_account[outgoing.account_id] += 1
            self._pool.submit(self._attempt, outgoing)
            started += 1
        return started

    def _attempt(self, outgoing: OutgoingRequest) -> None:
        try:
            tasks.complete_attempt(self.db, self.settings, outgoing)
        except Exception:
            # Its lease runs out and the delivery is attempted again (by any worker).
            log.exception("webhook delivery %s failed unexpectedly", outgoing.delivery_id)
        finally:
            with self._lock:
                self._in_flight -= 1
                self._per_account[outgoing.account_id] -= 1
                if self._per_account[outgoing.account_id] <= 0:
                    del self._per_account[outgoing.account_id]
            self._wake.set()
