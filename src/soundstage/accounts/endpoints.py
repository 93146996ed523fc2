"""HTTP endpoints of the accounts feature: the account's API keys, buyer verification (and
its sandbox helpers)."""

from __future__ import annotations

from fastapi import APIRouter

from soundstage.accounts import service, verification
from soundstage.accounts.schemas import (
    ApiKeyCreate,
    ApiKeyCreated,
    ApiKeyOut,
    BuyerVerificationOut,
    BuyerVerificationSubmit,
)
from soundstage.core.deps import PrincipalDep, SandboxPrincipalDep, SessionDep, SettingsDep
from soundstage.core.openapi import errors
from soundstage.core.pagination import ListResponse, PageDep
from soundstage.core.principal import Principal
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.models import ApiKey

router = APIRouter(prefix=API_V1, route_class=UnitOfWorkRoute)
VERIFICATION = "Buyer verification"


def _key_fields(key: ApiKey, principal: Principal) -> dict[str, object]:
    return {
        "id": key.id,
        "environment": key.environment,
        "name": key.name,
        "preview": f"{key.display_prefix}…",
        "status": "active" if key.revoked_at is None else "revoked",
        "created_at": key.created_at,
        "revoked_at": key.revoked_at,
        "current": key.id == principal.api_key_id,
    }


@router.get("/keys", response_model=ListResponse[ApiKeyOut], tags=["API keys"])
def list_api_keys(
    session: SessionDep, principal: PrincipalDep, page: PageDep
) -> ListResponse[ApiKeyOut]:
    """The API keys of the caller's account in the calling key's environment (the other
    environment's keys are never listed), revoked ones included, newest first. Secrets are
    never shown: a key is told apart by its `preview` and `name`."""
    rows, has_more = service.list_keys(session, principal, page)
    return ListResponse[ApiKeyOut](
        data=[ApiKeyOut.model_validate(_key_fields(k, principal)) for k in rows], has_more=has_more
    )


@router.post(
    "/keys",
    response_model=ApiKeyCreated,
    status_code=201,
    responses=errors(409),
    tags=["API keys"],
)
def create_api_key(
    body: ApiKeyCreate, session: SessionDep, principal: PrincipalDep, settings: SettingsDep
) -> ApiKeyCreated:
    """Create an API key for the caller's account in the calling key's environment. The
    answer carries the key's `secret`, which no endpoint shows again (a retry with the same
    `Idempotency-Key` replays this answer and makes no second key). An account holds at most
    `accounts.max_active_keys` (20) active keys per environment: one more is 409
    `too_many_api_keys`."""
    issued = service.issue_key(session, principal, body.name, settings.accounts.max_active_keys)
    return ApiKeyCreated.model_validate(
        {**_key_fields(issued.key, principal), "secret": issued.secret}
    )


@router.post(
    "/keys/{key_id}/revoke",
    response_model=ApiKeyOut,
    responses=errors(404, 409),
    tags=["API keys"],
)
def revoke_api_key(key_id: str, session: SessionDep, principal: PrincipalDep) -> ApiKeyOut:
    """Revoke one of the caller's account's keys in the calling key's environment (404
    `api_key_not_found` for any other). Revoking a revoked key answers it unchanged. A key
    may revoke itself: its next request is 401 `api_key_revoked`. The environment's last
    active key cannot be revoked (409 `last_api_key`): create another first."""
    key = service.revoke_owned_key(session, principal, key_id)
    return ApiKeyOut.model_validate(_key_fields(key, principal))


@router.get("/buyers/verification", response_model=BuyerVerificationOut, tags=[VERIFICATION])
def get_buyer_verification(session: SessionDep, principal: PrincipalDep) -> BuyerVerificationOut:
    """The caller's buyer verification status (`unverified` until details are submitted)."""
    return verification.get_status(session, principal)


@router.post(
    "/buyers/verification",
    response_model=BuyerVerificationOut,
    responses=errors(409),
    tags=[VERIFICATION],
)
def submit_buyer_verification(
    body: BuyerVerificationSubmit, session: SessionDep, principal: PrincipalDep
) -> BuyerVerificationOut:
    """Submit business details for review; the status becomes `pending`."""
    return verification.submit(session, principal, body)


@router.post(
    "/sandbox/buyers/verification/approve",
    response_model=BuyerVerificationOut,
    responses=errors(403, 409),
    tags=[VERIFICATION, "Sandbox"],
)
def approve_buyer_verification(
    session: SessionDep, principal: SandboxPrincipalDep
) -> BuyerVerificationOut:
    """Sandbox only: approve the caller's pending verification."""
    return verification.decide(session, principal, approve=True, require_pending=True)


@router.post(
    "/sandbox/buyers/verification/reject",
    response_model=BuyerVerificationOut,
    responses=errors(403, 409),
    tags=[VERIFICATION, "Sandbox"],
)
def reject_buyer_verification(
    session: SessionDep, principal: SandboxPrincipalDep
) -> BuyerVerificationOut:
    """Sandbox only: reject the caller's pending verification."""
    return verification.decide(session, principal, approve=False, require_pending=True)
