"""All SQL of accounts, keys and buyer verification."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from soundstage.core.tenancy import select_owned
from soundstage.models import Account, ApiKey, BuyerVerification


def add(session: Session, obj: object) -> None:
    session.add(obj)
    session.flush()


def get_account(session: Session, account_id: str) -> Account | None:
    return session.get(Account, account_id)


def get_key(session: Session, key_id: str) -> ApiKey | None:
    return session.get(ApiKey, key_id)


def get_key_by_hash(session: Session, secret_hash: str) -> ApiKey | None:
    return session.scalars(select(ApiKey).where(ApiKey.secret_hash == secret_hash)).first()


def get_verification(
    session: Session, account_id: str, environment: str
) -> BuyerVerification | None:
    stmt = select_owned(BuyerVerification, (account_id, environment))
    return session.scalars(stmt).first()
