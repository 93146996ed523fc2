"""Credits as the job system sees them (jobs.wiring.Billing): a job's reservation, capture
and release, and the price of a measured input; installed by the composition root
(soundstage/app_tasks.py)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from soundstage.core.principal import Principal
from soundstage.credits import rates
from soundstage.credits import service as credits


class JobBilling:
    def reserve(
        self, session: Session, principal: Principal, amount: int, operation: str, job_id: str
    ) -> str:
        return credits.reserve(session, principal, amount, operation, job_id).id

    def extend(self, session: Session, reservation_id: str, amount: int) -> None:
        credits.extend(session, reservation_id, amount)

    def capture(self, session: Session, reservation_id: str, amount: int) -> None:
        credits.capture(session, reservation_id, amount)

    def release(self, session: Session, reservation_id: str) -> None:
        credits.release(session, reservation_id)

    def price_for_duration(self, operation: str, duration_ms: int) -> int:
        return rates.for_duration(rates.Operation(operation), duration_ms)
