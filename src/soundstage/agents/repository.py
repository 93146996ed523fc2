"""All SQL of voice agents; every query carries the owner's account and environment."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select
from sqlalchemy.orm import Session

from soundstage.core.tenancy import Owned, select_owned
from soundstage.models import Agent


def add(session: Session, agent: Agent) -> None:
    session.add(agent)
    session.flush()


def owned_query(owner: Owned) -> Select[Any]:
    return select_owned(Agent, owner)


def get_owned(session: Session, owner: Owned, agent_id: str) -> Agent | None:
    found: Agent | None = session.scalars(owned_query(owner).where(Agent.id == agent_id)).first()
    return found


def delete(session: Session, agent: Agent) -> None:
    session.delete(agent)
    session.flush()
