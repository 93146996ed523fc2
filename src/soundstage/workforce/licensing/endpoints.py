"""HTTP endpoints of licensing: the buyer's side (verified buyers only), the creator's side
(the account that speaks for the creator: not gated, it sells) and the sandbox helpers that
play the creator."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query

from soundstage.accounts.verification import VerifiedBuyerDep
from soundstage.core.deps import PrincipalDep, SandboxPrincipalDep, SessionDep
from soundstage.core.openapi import errors
from soundstage.core.pagination import ListResponse, PageParams, page_params
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.workforce.licensing import service
from soundstage.workforce.licensing.schemas import (
    DeclineRequest,
    LicenseOut,
    LicenseRequest,
    LicenseStatus,
)

router = APIRouter(prefix=API_V1, tags=["Workforce"], route_class=UnitOfWorkRoute)
LicenseId = Annotated[str, Path(min_length=1, max_length=40, description="The license's id.")]
PageDep = Annotated[PageParams, Depends(page_params)]
StatusQuery = Annotated[LicenseStatus | None, Query(description="Only licenses in this state.")]


@router.post("/workforce/licensing", response_model=LicenseOut, responses=errors(403, 404))
def request_license(
    body: LicenseRequest, session: SessionDep, buyer: VerifiedBuyerDep
) -> LicenseOut:
    """Request a license of a creator's voice. The answer is the license, `requested`, with
    its quote from the creator's rate card: `amount_cents` (base fee x territory multiplier x
    term multiplier, half-up), the 1% `success_fee_cents` (half-up) and `total_cents`. The
    creator then accepts or declines; the buyer completes an accepted license. 404
    `creator_not_found`, 422 `usage_not_offered`. Requires a verified buyer account (403
    `buyer_not_verified`)."""
    return service.post_license(session, buyer, body)


@router.get("/workforce/licenses", response_model=ListResponse[LicenseOut], responses=errors(403))
def list_licenses(
    session: SessionDep,
    buyer: VerifiedBuyerDep,
    page: PageDep,
    status: StatusQuery = None,
    creator_id: Annotated[str | None, Query(min_length=1, max_length=40)] = None,
) -> ListResponse[LicenseOut]:
    """The caller's licenses, newest first. Requires a verified buyer account (403
    `buyer_not_verified`)."""
    licenses, has_more = service.list_buyer_licenses(
        session, buyer, page, status=status, creator_id=creator_id
    )
    return ListResponse[LicenseOut](data=licenses, has_more=has_more)


@router.get("/workforce/licenses/{license_id}", response_model=LicenseOut, responses=errors(403))
def get_license(license_id: LicenseId, session: SessionDep, buyer: VerifiedBuyerDep) -> LicenseOut:
    """One of the caller's licenses (404 `license_not_found`). Requires a verified buyer
    account (403 `buyer_not_verified`)."""
    return service.get_buyer_license(session, buyer, license_id)


@router.post(
    "/workforce/licenses/{license_id}/complete", response_model=LicenseOut, responses=errors(403)
)
def complete_license(
    license_id: LicenseId, session: SessionDep, buyer: VerifiedBuyerDep
) -> LicenseOut:
    """Conclude an accepted license at its quoted total: the term starts now and ends
    `duration_months` later, and the creator's media are listed by GET /workforce/media until
    then. 409 `license_state_conflict` unless the license is accepted. Requires a verified
    buyer account (403 `buyer_not_verified`)."""
    return service.complete_buyer_license(session, buyer, license_id)


@router.post(
    "/workforce/licenses/{license_id}/cancel", response_model=LicenseOut, responses=errors(403)
)
def cancel_license(
    license_id: LicenseId, session: SessionDep, buyer: VerifiedBuyerDep
) -> LicenseOut:
    """Withdraw a requested or accepted license (409 once completed, declined or cancelled).
    Requires a verified buyer account (403 `buyer_not_verified`)."""
    return service.cancel_buyer_license(session, buyer, license_id)


@router.get("/workforce/talent/licenses", response_model=ListResponse[LicenseOut])
def list_addressed_licenses(
    session: SessionDep, principal: PrincipalDep, page: PageDep, status: StatusQuery = None
) -> ListResponse[LicenseOut]:
    """Creator side: license requests to the creators the caller's account speaks for
    (linked by an operator: `soundstage catalog set-owner`), in the key's environment."""
    licenses, has_more = service.list_creator_licenses(session, principal, page, status=status)
    return ListResponse[LicenseOut](data=licenses, has_more=has_more)


@router.post("/workforce/talent/licenses/{license_id}/accept", response_model=LicenseOut)
def accept_license(
    license_id: LicenseId, session: SessionDep, principal: PrincipalDep
) -> LicenseOut:
    """Creator side: accept a requested license (409 `license_state_conflict` otherwise)."""
    return service.answer_license(session, principal, license_id, accepted=True)


@router.post("/workforce/talent/licenses/{license_id}/decline", response_model=LicenseOut)
def decline_license(
    license_id: LicenseId,
    session: SessionDep,
    principal: PrincipalDep,
    body: DeclineRequest | None = None,
) -> LicenseOut:
    """Creator side: decline a requested license, with an optional reason for the buyer."""
    reason = body.reason if body else None
    return service.answer_license(session, principal, license_id, accepted=False, reason=reason)


@router.post(
    "/sandbox/workforce/licenses/{license_id}/accept",
    response_model=LicenseOut,
    responses=errors(403),
    tags=["Sandbox"],
)
def sandbox_accept_license(
    license_id: LicenseId, session: SessionDep, principal: SandboxPrincipalDep
) -> LicenseOut:
    """Sandbox only: the creator accepts one of the caller's requested licenses."""
    return service.answer_license(session, principal, license_id, accepted=True, sandbox_buyer=True)


@router.post(
    "/sandbox/workforce/licenses/{license_id}/decline",
    response_model=LicenseOut,
    responses=errors(403),
    tags=["Sandbox"],
)
def sandbox_decline_license(
    license_id: LicenseId,
    session: SessionDep,
    principal: SandboxPrincipalDep,
    body: DeclineRequest | None = None,
) -> LicenseOut:
    """Sandbox only: the creator declines one of the caller's requested licenses."""
    reason = body.reason if body else None
    return service.answer_license(
        session, principal, license_id, accepted=False, reason=reason, sandbox_buyer=True
    )
