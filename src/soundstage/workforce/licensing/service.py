"""The license lifecycle.

    requested --creator accepts--> accepted --buyer completes--> completed --term ends--> expired
        |  \\--creator declines--> declined          |
        \\------buyer cancels-----> cancelled <-------/

The quote (amount, 1% success fee, total) is computed once, when the license is requested,
from the creator's rate card, and never changes. `expired` is not stored: a completed license
reads as expired once `ends_at` has passed (reads never write). Any other move is 409
`license_state_conflict`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from soundstage.core.ids import new_id
from soundstage.core.pagination import PageParams, paginate
from soundstage.core.principal import Principal
from soundstage.core.timeutil import utcnow
from soundstage.models import License
from soundstage.models.workforce import LicenseStatus
from soundstage.workforce.errors import LicenseNotFound, LicenseStateConflict, UsageNotOffered
from soundstage.workforce.licensing import pricing, repository
from soundstage.workforce.licensing.schemas import LicenseOut, LicenseRequest, PricingOut
from soundstage.workforce.media import service as media
from soundstage.workforce.talent import service as talent
from soundstage.workforce.vocabulary import CURRENCY

# Who may make each move, from which states.
_ACCEPTABLE = (LicenseStatus.REQUESTED,)
_COMPLETABLE = (LicenseStatus.ACCEPTED,)
_CANCELLABLE = (LicenseStatus.REQUESTED, LicenseStatus.ACCEPTED)


def status_of(license_: License, now: datetime | None = None) -> str:
    ended = license_.ends_at is not None and license_.ends_at <= (now or utcnow())
    return "expired" if license_.status == LicenseStatus.COMPLETED and ended else license_.status


def license_out(license_: License) -> LicenseOut:
    """The license with its status as of now (`expired` is derived) and its pricing grouped."""
    return LicenseOut(
        id=license_.id,
        creator_id=license_.creator_id,
        usage_type=license_.usage_type,
        territory=license_.territory,
        duration_months=license_.duration_months,
        status=status_of(license_),
        amount_cents=license_.amount_cents,
        success_fee_cents=license_.success_fee_cents,
        total_cents=license_.total_cents,
        pricing=PricingOut(
            base_fee_cents=license_.base_fee_cents,
            territory_multiplier=license_.territory_multiplier,
            term_multiplier=license_.term_multiplier,
        ),
        decline_reason=license_.decline_reason,
        created_at=license_.created_at,
        accepted_at=license_.accepted_at,
        declined_at=license_.declined_at,
        cancelled_at=license_.cancelled_at,
        completed_at=license_.completed_at,
        starts_at=license_.starts_at,
        ends_at=license_.ends_at,
    )


def request_license(session: Session, buyer: Principal, body: LicenseRequest) -> License:
    """A license request with its quote; 404 for an unknown creator, 422 when the creator's
    rate card does not offer the usage type."""
    creator = talent.require_creator(session, body.creator_id)
    base_fee = talent.base_fee_cents(session, creator.id, body.usage_type)
    if base_fee is None:
        raise UsageNotOffered(
            f"usage_type: {creator.display_name} does not offer `{body.usage_type}` licenses; "
            "see the creator's rate_card.",
            param="usage_type",
        )
    quote = pricing.quote(base_fee, body.territory, body.duration_months, CURRENCY)
    license_ = License(
        id=new_id("lic"),
        account_id=buyer.account_id,
        environment=buyer.environment,
        creator_id=creator.id,
        usage_type=body.usage_type,
        territory=body.territory,
        duration_months=body.duration_months,
        status=LicenseStatus.REQUESTED,
        currency=quote.charge.currency,
        base_fee_cents=quote.base_fee_cents,
        territory_multiplier=str(quote.territory_multiplier),
        term_multiplier=str(quote.term_multiplier),
        amount_cents=quote.charge.amount_cents,
        success_fee_cents=quote.charge.fee_cents,
        total_cents=quote.charge.total_cents,
        created_at=utcnow(),
    )
    repository.add(session, license_)
    return license_


def get_owned(session: Session, buyer: Principal, license_id: str) -> License:
    stmt = repository.owned_query(buyer)
    found = repository.first(session, stmt.where(License.id == license_id))
    if found is None:
        raise LicenseNotFound(f"No such license: {license_id}", param="license_id")
    return found


def get_addressed(session: Session, talent_account: Principal, license_id: str) -> License:
    """A license addressed to a creator the caller's account speaks for (404 otherwise)."""
    stmt = repository.addressed_query(talent_account)
    found = repository.first(session, stmt.where(License.id == license_id))
    if found is None:
        raise LicenseNotFound(f"No such license: {license_id}", param="license_id")
    return found


def list_owned(
    session: Session,
    buyer: Principal,
    page: PageParams,
    *,
    status: str | None,
    creator_id: str | None,
) -> tuple[list[License], bool]:
    stmt = repository.owned_query(buyer)
    return paginate(session, _filtered(stmt, status, creator_id), License, page, LicenseNotFound)


def list_addressed(
    session: Session, talent_account: Principal, page: PageParams, *, status: str | None
) -> tuple[list[License], bool]:
    stmt = repository.addressed_query(talent_account)
    return paginate(session, _filtered(stmt, status, None), License, page, LicenseNotFound)


def _filtered(stmt: Any, status: str | None, creator_id: str | None) -> Any:
    if status is not None:
        stmt = stmt.where(repository.status_is(status, utcnow()))
    if creator_id is not None:
        stmt = stmt.where(License.creator_id == creator_id)
    return stmt


def _move(
    session: Session,
    license_: License,
    from_states: tuple[LicenseStatus, ...],
    values: dict[str, Any],
    verb: str,
) -> License:
    if not repository.transition(session, license_.id, from_states, values):
        current = status_of(repository.refresh(session, license_))
        allowed = " or ".join(from_states)
        raise LicenseStateConflict(
            f"Only a license that is {allowed} can be {verb}; this one is {current}."
        )
    return repository.refresh(session, license_)


def accept(session: Session, license_: License) -> License:
    """The creator's yes."""
    return _move(
        session,
        license_,
        _ACCEPTABLE,
        {"status": LicenseStatus.ACCEPTED, "accepted_at": utcnow()},
        "accepted",
    )


def decline(session: Session, license_: License, reason: str | None) -> License:
    """The creator's no."""
    values = {"status": LicenseStatus.DECLINED, "declined_at": utcnow(), "decline_reason": reason}
    return _move(session, license_, _ACCEPTABLE, values, "declined")


def cancel(session: Session, license_: License) -> License:
    """The buyer withdraws before completion."""
    return _move(
        session,
        license_,
        _CANCELLABLE,
        {"status": LicenseStatus.CANCELLED, "cancelled_at": utcnow()},
        "cancelled",
    )


def complete(session: Session, buyer: Principal, license_: License) -> License:
    """The buyer concludes the agreement: the term starts now, and the creator's media are
    granted to the buyer until it ends."""
    now = utcnow()
    values = {
        "status": LicenseStatus.COMPLETED,
        "completed_at": now,
        "starts_at": now,
        "ends_at": pricing.term_ends_at(now, license_.duration_months),
    }
    completed = _move(session, license_, _COMPLETABLE, values, "completed")
    media.grant(session, buyer, completed.id, talent.demos_of(session, completed.creator_id))
    return completed


# --- what each endpoint calls: one function, answering the response body ---------------------


def post_license(session: Session, buyer: Principal, body: LicenseRequest) -> LicenseOut:
    return license_out(request_license(session, buyer, body))


def list_buyer_licenses(
    session: Session,
    buyer: Principal,
    page: PageParams,
    *,
    status: str | None,
    creator_id: str | None,
) -> tuple[list[LicenseOut], bool]:
    found, has_more = list_owned(session, buyer, page, status=status, creator_id=creator_id)
    return [license_out(x) for x in found], has_more


def list_creator_licenses(
    session: Session, talent_account: Principal, page: PageParams, *, status: str | None
) -> tuple[list[LicenseOut], bool]:
    found, has_more = list_addressed(session, talent_account, page, status=status)
    return [license_out(x) for x in found], has_more


def get_buyer_license(session: Session, buyer: Principal, license_id: str) -> LicenseOut:
    return license_out(get_owned(session, buyer, license_id))


def complete_buyer_license(session: Session, buyer: Principal, license_id: str) -> LicenseOut:
    return license_out(complete(session, buyer, get_owned(session, buyer, license_id)))


def cancel_buyer_license(session: Session, buyer: Principal, license_id: str) -> LicenseOut:
    return license_out(cancel(session, get_owned(session, buyer, license_id)))


def answer_license(
    session: Session,
    principal: Principal,
    license_id: str,
    *,
    accepted: bool,
    reason: str | None = None,
    sandbox_buyer: bool = False,
) -> LicenseOut:
    """The creator's answer: by the account that speaks for the creator, or in sandbox by the
    buyer playing the creator (`sandbox_buyer`, on the buyer's own license)."""
    find = get_owned if sandbox_buyer else get_addressed
    license_ = find(session, principal, license_id)
    return license_out(
        accept(session, license_) if accepted else decline(session, license_, reason)
    )
