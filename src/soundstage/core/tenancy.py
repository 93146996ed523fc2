"""Tenancy in one place: the filter that keeps a customer's rows to their owner.

A customer row carries `account_id` and `environment` (`models.base.CustomerOwned`). Every
statement that reads or changes customer rows for an owner takes its WHERE from `owned` (or
starts from `select_owned` / `update_owned`); no other module compares those columns
(`tests/core/test_tenancy.py` scans the source and fails on one). The clause is the two
equalities, so the indexes on `account_id` (and the `(account_id, environment)` primary keys)
serve it as before.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Protocol, TypeVar

from sqlalchemy import ColumnElement, Select, Update, and_, bindparam, select, update


class Owned(Protocol):
    """Anything that names an owner: a `core.principal.Principal`, or a customer row."""

    @property
    def account_id(self) -> str: ...

    @property
    def environment(self) -> str: ...


# An owner: a principal, a row, or the pair (account id, environment).
Owner = Owned | tuple[str, str]


T = TypeVar("T")


def owner_key(owner: Owner) -> tuple[str, str]:
    """(account id, environment) of `owner`."""
    if isinstance(owner, tuple):
        return owner
    return (owner.account_id, owner.environment)


def belongs_to(row: Owned, owner: Owner) -> bool:
    """Whether a loaded customer row is `owner`'s (the same test as `owned`, in Python)."""
    return owner_key(row) == owner_key(owner)


def owned(model: type[Any], owner: Owner) -> ColumnElement[bool]:
    """The WHERE clause `model.account_id = … AND model.environment = …`, for any statement
    (SELECT, UPDATE, DELETE, or a joined query that filters on `model`). `model` is a mapped
    class with both columns (`models.base.CustomerOwned`, or its own as a primary key)."""
    account_id, environment = owner_key(owner)
    return and_(model.account_id == account_id, model.environment == environment)


def select_owned(model: type[T], owner: Owner) -> Select[T]:
    """`SELECT model WHERE owned(model, owner)`."""
    return select(model).where(owned(model, owner))


def update_owned(model: type[Any], owner: Owner) -> Update:
    """`UPDATE model WHERE owned(model, owner)`: add the conditions and `.values(…)`."""
    return update(model).where(owned(model, owner))


def owned_by_parameters(model: type[Any]) -> ColumnElement[bool]:
    """`owned` with the owner left as two bound parameters (`owner_parameters` gives them at
    execution), for a statement built once and executed many times."""
    return and_(
        model.account_id == bindparam("owner_account_id"),
        model.environment == bindparam("owner_environment"),
    )


@cache
def select_owned_by_parameters(model: type[T]) -> Select[T]:
    """`select_owned` with the owner left as two bound parameters (`owner_parameters` gives
    them at execution): the statement is built once per model, and SQLAlchemy keeps its cache
    key with it, where building the clause per call costs tens of microseconds (the balance
    read of every `GET /api/v1/credits`, bench/api_overhead.py)."""
    return select(model).where(owned_by_parameters(model))


def owner_parameters(owner: Owner) -> dict[str, str]:
    """The parameters of a statement from `select_owned_by_parameters`."""
    account_id, environment = owner_key(owner)
    return {"owner_account_id": account_id, "owner_environment": environment}
