"""Accounts and API keys: creation, shown-once secrets, revocation, authentication."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from sqlalchemy.orm import Session

from soundstage.accounts import repository
from soundstage.accounts.errors import (
    AccountNotFound,
    ApiKeyNotFound,
    LastApiKey,
    TooManyApiKeys,
)
from soundstage.accounts.keycache import KEYS
from soundstage.config import ENVIRONMENTS, Environment
from soundstage.core.db import after_commit
from soundstage.core.errors import ApiKeyRevoked, InvalidApiKey, MalformedApiKey, MissingApiKey
from soundstage.core.ids import new_id, random_token
from soundstage.core.pagination import PageParams, paginate
from soundstage.core.principal import Principal
from soundstage.core.tenancy import Owner, owner_key
from soundstage.core.timeutil import utcnow
from soundstage.credits import service as credits
from soundstage.models import Account, ApiKey

KEY_PREFIXES: dict[Environment, str] = {"sandbox": "sk_sandbox_", "production": "sk_live_"}
_SECRET_LENGTH = 32


@dataclass(frozen=True)
class IssuedKey:
    key: ApiKey
    secret: str  # shown once, never stored


def hash_secret(secret: str) -> str:
    # Keys are 190 bits of randomness: a fast hash is enough (no password stretching needed).
    return hashlib.sha256(secret.encode()).hexdigest()


def create_account(session: Session, name: str) -> Account:
    account = Account(id=new_id("acct"), name=name, created_at=utcnow())
    repository.add(session, account)
    for environment in ENVIRONMENTS:
        credits.open_balance(session, (account.id, environment))
    return account


def get_account(session: Session, account_id: str) -> Account:
    account = repository.get_account(session, account_id)
    if account is None:
        raise AccountNotFound(f"No such account: {account_id}", param="account")
    return account


def create_key(session: Session, owner: Owner, name: str | None = None) -> IssuedKey:
    """A new key for `owner` (an account in one environment; the CLI and issue_key)."""
    account_id, environment = owner_key(owner)
    get_account(session, account_id)
    if environment not in ENVIRONMENTS:
        raise ValueError(f"no such environment: {environment}")
    secret = KEY_PREFIXES[environment] + random_token(_SECRET_LENGTH)
    key = ApiKey(
        id=new_id("key"),
        account_id=account_id,
        environment=environment,
        secret_hash=hash_secret(secret),
        display_prefix=secret[: len(KEY_PREFIXES[environment]) + 4],
        name=name,
        created_at=utcnow(),
    )
    repository.add(session, key)
    return IssuedKey(key=key, secret=secret)


def revoke_key(session: Session, key_id: str) -> ApiKey:
    key = repository.get_key(session, key_id)
    if key is None:
        raise ApiKeyNotFound(f"No such API key: {key_id}", param="key_id")
    if key.revoked_at is None:
        key.revoked_at = utcnow()
        session.flush()
        after_commit(session, lambda: KEYS.forget_key(key_id))
    return key


def list_keys(
    session: Session, principal: Principal, page: PageParams
) -> tuple[list[ApiKey], bool]:
    """The caller's account's keys in the caller's environment, revoked ones included,
    newest first."""
    return paginate(session, repository.owned_keys(principal), ApiKey, page, ApiKeyNotFound)


def issue_key(
    session: Session, principal: Principal, name: str | None, max_active_keys: int
) -> IssuedKey:
    """A new key of the caller's account in the caller's environment, within the bound on
    active keys (409 `too_many_api_keys` past it)."""
    # One key-management request of an account at a time: two creations cannot both take
    # the last place below the bound.
    repository.lock_account(session, principal.account_id)
    if repository.count_active_keys(session, principal) >= max_active_keys:
        raise TooManyApiKeys(
            f"This account has {max_active_keys} active API keys in {principal.environment}, "
            "the most it may hold; revoke one first."
        )
    return create_key(session, principal, name)


def revoke_owned_key(session: Session, principal: Principal, key_id: str) -> ApiKey:
    """Revoke a key of the caller's account in the caller's environment (404 for any other);
    a revoked key is answered as it is. The caller's own key may be revoked (its next request
    is 401 `api_key_revoked`), but not the environment's last active one (409 `last_api_key`),
    so that an account always keeps a way in."""
    repository.lock_account(session, principal.account_id)
    key = repository.get_owned_key(session, principal, key_id)
    if key is None:
        raise ApiKeyNotFound(f"No such API key: {key_id}", param="key_id")
    if key.revoked_at is not None:
        return key
    if repository.count_active_keys(session, principal) <= 1:
        raise LastApiKey(
            "This is the last active API key of this account in "
            f"{principal.environment}: create another one before revoking it.",
            param="key_id",
        )
    repository.revoke_owned_key(session, principal, key_id, utcnow())
    after_commit(session, lambda: KEYS.forget_key(key_id))
    session.refresh(key)
    return key


def authenticate(session: Session, authorization: str | None) -> Principal:
    """Resolve an `Authorization: Bearer sk_…` header to its principal, or raise 401 (with
    an RFC 6750 challenge: plain when no bearer key was sent, `invalid_token` when one was
    and is refused)."""
    if not authorization:
        raise MissingApiKey("No API key provided. Send `Authorization: Bearer <API_KEY>`.")
    scheme, _, secret = authorization.partition(" ")
    secret = secret.strip()
    if scheme.lower() != "bearer" or not secret:
        raise MalformedApiKey(
            "Malformed Authorization header. Send `Authorization: Bearer <API_KEY>`.",
            bearer_error=None if scheme.lower() != "bearer" else "invalid_request",
        )
    environment = next((env for env, p in KEY_PREFIXES.items() if secret.startswith(p)), None)
    if environment is None:
        raise MalformedApiKey("Malformed API key: keys start with sk_sandbox_ or sk_live_.")
    key = repository.get_key_by_hash(session, hash_secret(secret))
    if key is None or not hmac.compare_digest(key.secret_hash, hash_secret(secret)):
        raise InvalidApiKey("Invalid API key provided.")
    if key.environment != environment:  # cannot happen for keys we issued; refuse anyway
        raise InvalidApiKey("Invalid API key provided.")
    if key.revoked_at is not None:
        raise ApiKeyRevoked("This API key has been revoked.")
    return Principal(account_id=key.account_id, environment=environment, api_key_id=key.id)


def authenticate_recent(database: str, authorization: str | None) -> Principal | None:
    """The principal of a key found valid within the last `accounts.key_cache_seconds` in
    this process (accounts.keycache), or None: look it up with `authenticate`."""
    return KEYS.get(database, authorization) if authorization else None


def remember(database: str, authorization: str, principal: Principal, ttl: float) -> None:
    """Keep a key just found valid for `ttl` seconds (see `authenticate_recent`)."""
    KEYS.put(database, authorization, principal, ttl)


def principal_of_key(session: Session, key_id: str) -> Principal:
    """The principal of a key known by id (a realtime token names its minter's key), or 401
    when the key has been revoked since."""
    key = repository.get_key(session, key_id)
    if key is None:
        raise InvalidApiKey("Invalid API key provided.")
    if key.revoked_at is not None:
        raise ApiKeyRevoked("This API key has been revoked.")
    environment: Environment = "production" if key.environment == "production" else "sandbox"
    return Principal(account_id=key.account_id, environment=environment, api_key_id=key.id)
