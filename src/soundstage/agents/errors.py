"""Errors of voice agents."""

from soundstage.core.errors import InvalidField, NotFound


class AgentNotFound(NotFound):
    """No such voice agent."""

    code = "agent_not_found"


class LanguageMismatch(InvalidField):
    """The agent's `language` is not its voice's."""

    code = "language_mismatch"
