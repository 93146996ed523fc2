"""Voice agents: create, read, list, update and delete the caller's agents. The voice must
be an active catalog voice and the agent's language its language or a variant of its base."""

from __future__ import annotations

from sqlalchemy.orm import Session

from soundstage.agents import repository
from soundstage.agents.errors import AgentNotFound, LanguageMismatch
from soundstage.agents.schemas import AgentCreate, AgentOut, AgentUpdate
from soundstage.core.ids import new_id
from soundstage.core.pagination import PageParams, paginate
from soundstage.core.principal import Principal
from soundstage.core.timeutil import utcnow
from soundstage.models import Agent, Voice
from soundstage.voices import service as voices


def _language(voice: Voice, wanted: str | None) -> str:
    if wanted is None:
        return voice.language
    if wanted.split("-")[0].lower() != voice.language.split("-")[0].lower():
        raise LanguageMismatch(
            f"language: {voice.id} speaks {voice.language}, not {wanted}.", param="language"
        )
    return wanted


def create(session: Session, owner: Principal, body: AgentCreate) -> Agent:
    voice = voices.get_active_voice(session, body.voice_id)
    now = utcnow()
    agent = Agent(
        id=new_id("agent"),
        account_id=owner.account_id,
        environment=owner.environment,
        name=body.name,
        voice_id=voice.id,
        language=_language(voice, body.language),
        greeting=body.greeting,
        instructions=body.instructions,
        created_at=now,
        updated_at=now,
    )
    repository.add(session, agent)
    return agent


def get_owned(session: Session, owner: Principal, agent_id: str) -> Agent:
    agent = repository.get_owned(session, owner, agent_id)
    if agent is None:
        raise AgentNotFound(f"No such agent: {agent_id}", param="agent_id")
    return agent


def list_owned(session: Session, owner: Principal, page: PageParams) -> tuple[list[Agent], bool]:
    return paginate(
        session,
        repository.owned_query(owner),
        Agent,
        page,
        AgentNotFound,
    )


def update(session: Session, owner: Principal, agent_id: str, body: AgentUpdate) -> Agent:
    agent = get_owned(session, owner, agent_id)
    changes = body.model_dump(exclude_unset=True)
    for name in ("name", "greeting", "instructions"):
        if changes.get(name) is not None:
            setattr(agent, name, changes[name])
    if changes.get("voice_id") is not None or changes.get("language") is not None:
        voice = voices.get_active_voice(session, changes.get("voice_id") or agent.voice_id)
        # A new voice without a language takes the voice's own.
        wanted = changes.get("language") or (None if "voice_id" in changes else agent.language)
        agent.language = _language(voice, wanted)
        agent.voice_id = voice.id
    agent.updated_at = utcnow()
    session.flush()
    return agent


def delete(session: Session, owner: Principal, agent_id: str) -> str:
    agent = get_owned(session, owner, agent_id)
    repository.delete(session, agent)
    return agent_id


# --- what each endpoint calls: one function, answering the response body ---------------------


def create_agent(session: Session, owner: Principal, body: AgentCreate) -> AgentOut:
    return AgentOut.model_validate(create(session, owner, body))


def get_agent(session: Session, owner: Principal, agent_id: str) -> AgentOut:
    return AgentOut.model_validate(get_owned(session, owner, agent_id))


def list_agents(
    session: Session, owner: Principal, page: PageParams
) -> tuple[list[AgentOut], bool]:
    agents, has_more = list_owned(session, owner, page)
    return [AgentOut.model_validate(a) for a in agents], has_more


def update_agent(session: Session, owner: Principal, agent_id: str, body: AgentUpdate) -> AgentOut:
    return AgentOut.model_validate(update(session, owner, agent_id, body))
