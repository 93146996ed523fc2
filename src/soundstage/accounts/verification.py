"""Buyer verification: unverified -> pending (details submitted) -> verified | rejected.
A rejected buyer may submit again; a verified one may not change its details here.

The gate (`VerifiedBuyerDep`) guards what the spec gates, "workforce discovery and licensing",
and nothing else: the routes in GATED_ROUTES, each of which says GATE_SENTENCE in its OpenAPI
description (tests/workforce/test_gate.py holds the app to both)."""

from __future__ import annotations

from typing import Annotated, Final

from fastapi import Depends
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from soundstage.accounts import repository
from soundstage.accounts.errors import BuyerNotVerified, VerificationStateConflict
from soundstage.accounts.schemas import BuyerVerificationOut, BuyerVerificationSubmit
from soundstage.core.deps import DatabaseDep, PrincipalDep
from soundstage.core.ids import new_id
from soundstage.core.principal import Principal
from soundstage.core.tenancy import Owner, owner_key
from soundstage.core.timeutil import utcnow
from soundstage.models import BuyerVerification
from soundstage.models.accounts import BuyerVerificationStatus

# The sentence every gated endpoint's description carries.
GATE_SENTENCE: Final = "Requires a verified buyer account (403 `buyer_not_verified`)."

# Every route behind the gate: discovery (talent listings, search, profiles) and licensing
# (license requests, the buyer's licenses and the media they grant). Campaign briefs are open
# to any account (their matches are withheld until the buyer is verified); the creator's side
# of licensing (`/workforce/talent/licenses…`) sells, so it is not a buyer's gate.
GATED_ROUTES: Final = (
    "GET /api/v1/workforce/discover",
    "GET /api/v1/workforce/search",
    "GET /api/v1/workforce/creators/{creator_id}",
    "POST /api/v1/workforce/licensing",
    "GET /api/v1/workforce/licenses",
    "GET /api/v1/workforce/licenses/{license_id}",
    "POST /api/v1/workforce/licenses/{license_id}/complete",
    "POST /api/v1/workforce/licenses/{license_id}/cancel",
    "GET /api/v1/workforce/media",
)


def _record(session: Session, owner: Owner) -> BuyerVerification:
    record = repository.get_verification(session, owner)
    if record is None:
        account_id, environment = owner_key(owner)
        record = BuyerVerification(
            id=new_id("bv"),
            account_id=account_id,
            environment=environment,
            status=BuyerVerificationStatus.UNVERIFIED,
            created_at=utcnow(),
            updated_at=utcnow(),
        )
        repository.add(session, record)
    return record


def to_out(record: BuyerVerification | None, environment: str) -> BuyerVerificationOut:
    """The buyer's verification, or `unverified` in `environment` when none was submitted."""
    if record is None:
        return BuyerVerificationOut(
            environment=environment,
            status=BuyerVerificationStatus.UNVERIFIED,
            legal_name=None,
            country=None,
            contact_email=None,
            tax_id=None,
            submitted_at=None,
            verified_at=None,
            rejected_at=None,
            updated_at=None,
        )
    return BuyerVerificationOut.model_validate(record, from_attributes=True)


def get_status(session: Session, principal: Principal) -> BuyerVerificationOut:
    record = repository.get_verification(session, principal)
    return to_out(record, principal.environment)


def submit(
    session: Session, principal: Principal, details: BuyerVerificationSubmit
) -> BuyerVerificationOut:
    record = _record(session, principal)
    if record.status == BuyerVerificationStatus.VERIFIED:
        raise VerificationStateConflict("This buyer account is already verified.")
    now = utcnow()
    record.legal_name = details.legal_name
    record.country = details.country
    record.contact_email = str(details.contact_email)
    record.tax_id = details.tax_id
    record.status, record.submitted_at, record.rejected_at, record.updated_at = (
        BuyerVerificationStatus.PENDING,
        now,
        None,
        now,
    )
    session.flush()
    return to_out(record, principal.environment)


def decide(
    session: Session, owner: Owner, *, approve: bool, require_pending: bool
) -> BuyerVerificationOut:
    """Approve or reject. Operators (CLI) may verify at any state; sandbox helpers act on a
    pending submission only, as a reviewer would."""
    record = _record(session, owner)
    if require_pending and record.status != BuyerVerificationStatus.PENDING:
        raise VerificationStateConflict(
            f"Only a pending verification can be decided; this one is {record.status}. "
            "Submit details with POST /api/v1/buyers/verification first."
        )
    now = utcnow()
    if approve:
        record.status, record.verified_at, record.rejected_at = (
            BuyerVerificationStatus.VERIFIED,
            now,
            None,
        )
    else:
        record.status, record.rejected_at, record.verified_at = (
            BuyerVerificationStatus.REJECTED,
            now,
            None,
        )
    record.updated_at = now
    session.flush()
    return to_out(record, record.environment)


def is_verified(session: Session, principal: Principal) -> bool:
    """Whether the caller's account is a verified buyer in the key's environment."""
    record = repository.get_verification(session, principal)
    return record is not None and record.status == BuyerVerificationStatus.VERIFIED


async def require_verified_buyer(db: DatabaseDep, principal: PrincipalDep) -> Principal:
    """Dependency of the GATED_ROUTES: 403 `buyer_not_verified` until verification passes.
    It reads in a unit of its own (a dependency never takes the request's session)."""

    def read() -> BuyerVerification | None:
        with db.read_session() as session:
            return repository.get_verification(session, principal)

    record = await run_in_threadpool(read)
    if record is None or record.status != BuyerVerificationStatus.VERIFIED:
        status = record.status if record else BuyerVerificationStatus.UNVERIFIED
        raise BuyerNotVerified(
            f"This endpoint requires a verified buyer account (status: {status}). "
            "Submit details with POST /api/v1/buyers/verification."
        )
    return principal


VerifiedBuyerDep = Annotated[Principal, Depends(require_verified_buyer)]
