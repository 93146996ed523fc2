"""All SQL of accounts, keys and buyer verification."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from soundstage.core.tenancy import Owner, owned, select_owned, update_owned
from soundstage.models import Account, ApiKey, BuyerVerification


def add(session: Session, obj: object) -> None:
    session.add(obj)
    session.flush()


def get_account(session: Session, account_id: str) -> Account | None:
    return session.get(Account, account_id)


def lock_account(session: Session, account_id: str) -> Account | None:
    """The account row, locked until the transaction ends (PostgreSQL `FOR UPDATE`; SQLite
    transactions here are IMMEDIATE, one writer at a time): key management of one account
    runs one request at a time, so a count of its active keys stays true until the write."""
    return session.scalars(
        select(Account).where(Account.id == account_id).with_for_update()
    ).first()


def get_key(session: Session, key_id: str) -> ApiKey | None:
    return session.get(ApiKey, key_id)


def get_key_by_hash(session: Session, secret_hash: str) -> ApiKey | None:
    return session.scalars(select(ApiKey).where(ApiKey.secret_hash == secret_hash)).first()


def owned_keys(owner: Owner) -> Select[ApiKey]:
    """The owner's keys in the owner's environment, revoked ones included (to paginate)."""
    return select_owned(ApiKey, owner)


def get_owned_key(session: Session, owner: Owner, key_id: str) -> ApiKey | None:
    return session.scalars(select_owned(ApiKey, owner).where(ApiKey.id == key_id)).first()


def count_active_keys(session: Session, owner: Owner) -> int:
    stmt = select(func.count()).select_from(ApiKey).where(owned(ApiKey, owner))
    return session.scalar(stmt.where(ApiKey.revoked_at.is_(None))) or 0


def revoke_owned_key(session: Session, owner: Owner, key_id: str, now: datetime) -> bool:
    """Revoke the owner's key if it is still active; whether this statement revoked it."""
    result = session.execute(
        update_owned(ApiKey, owner)
        .where(ApiKey.id == key_id, ApiKey.revoked_at.is_(None))
        .values(revoked_at=now)
        .execution_options(synchronize_session=False)
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]


def get_verification(session: Session, owner: Owner) -> BuyerVerification | None:
    stmt = select_owned(BuyerVerification, owner)
    return session.scalars(stmt).first()
