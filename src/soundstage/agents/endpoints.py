"""HTTP endpoints of voice agents: /api/v1/agents (any key; agents are the caller's own)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path

from soundstage.agents import service
from soundstage.agents.schemas import AgentCreate, AgentDeleted, AgentOut, AgentUpdate
from soundstage.core.deps import PrincipalDep, SessionDep
from soundstage.core.pagination import ListResponse, PageParams, page_params
from soundstage.core.routing import API_V1, UnitOfWorkRoute

router = APIRouter(prefix=f"{API_V1}/agents", tags=["Agents"], route_class=UnitOfWorkRoute)
AgentId = Annotated[str, Path(min_length=1, max_length=40, description="The agent's id.")]


@router.get("", response_model=ListResponse[AgentOut])
def list_agents(
    session: SessionDep,
    principal: PrincipalDep,
    page: Annotated[PageParams, Depends(page_params)],
) -> ListResponse[AgentOut]:
    """The caller's voice agents, newest first."""
    agents, has_more = service.list_agents(session, principal, page)
    return ListResponse[AgentOut](data=agents, has_more=has_more)


@router.post("", response_model=AgentOut)
def create_agent(body: AgentCreate, session: SessionDep, principal: PrincipalDep) -> AgentOut:
    """Create a voice agent speaking with a catalog voice (404 `voice_not_found`)."""
    return service.create_agent(session, principal, body)


@router.get("/{agent_id}", response_model=AgentOut)
def get_agent(agent_id: AgentId, session: SessionDep, principal: PrincipalDep) -> AgentOut:
    """One of the caller's agents (404 `agent_not_found`)."""
    return service.get_agent(session, principal, agent_id)


@router.patch("/{agent_id}", response_model=AgentOut)
def update_agent(
    agent_id: AgentId, body: AgentUpdate, session: SessionDep, principal: PrincipalDep
) -> AgentOut:
    """Change some fields of an agent; the others keep their values."""
    return service.update_agent(session, principal, agent_id, body)


@router.delete("/{agent_id}", response_model=AgentDeleted)
def delete_agent(agent_id: AgentId, session: SessionDep, principal: PrincipalDep) -> AgentDeleted:
    """Delete an agent for good."""
    return AgentDeleted(id=service.delete(session, principal, agent_id))
