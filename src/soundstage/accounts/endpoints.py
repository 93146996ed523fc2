"""HTTP endpoints of buyer verification (and its sandbox helpers)."""

from __future__ import annotations

from fastapi import APIRouter

from soundstage.accounts import verification
from soundstage.accounts.schemas import BuyerVerificationOut, BuyerVerificationSubmit
from soundstage.core.deps import PrincipalDep, SandboxPrincipalDep, SessionDep
from soundstage.core.openapi import errors

router = APIRouter(tags=["Buyer verification"])


@router.get("/buyers/verification", response_model=BuyerVerificationOut)
def get_buyer_verification(session: SessionDep, principal: PrincipalDep) -> BuyerVerificationOut:
    """The caller's buyer verification status (`unverified` until details are submitted)."""
    return verification.get_status(session, principal)


@router.post("/buyers/verification", response_model=BuyerVerificationOut, responses=errors(409))
def submit_buyer_verification(
    body: BuyerVerificationSubmit, session: SessionDep, principal: PrincipalDep
) -> BuyerVerificationOut:
    """Submit business details for review; the status becomes `pending`."""
    return verification.submit(session, principal, body)


@router.post(
    "/sandbox/buyers/verification/approve",
    response_model=BuyerVerificationOut,
    responses=errors(403, 409),
    tags=["Sandbox"],
)
def approve_buyer_verification(
    session: SessionDep, principal: SandboxPrincipalDep
) -> BuyerVerificationOut:
    """Sandbox only: approve the caller's pending verification."""
    return verification.decide(
        session, principal.account_id, principal.environment, approve=True, require_pending=True
    )


@router.post(
    "/sandbox/buyers/verification/reject",
    response_model=BuyerVerificationOut,
    responses=errors(403, 409),
    tags=["Sandbox"],
)
def reject_buyer_verification(
    session: SessionDep, principal: SandboxPrincipalDep
) -> BuyerVerificationOut:
    """Sandbox only: reject the caller's pending verification."""
    return verification.decide(
        session, principal.account_id, principal.environment, approve=False, require_pending=True
    )
