"""Errors of voice agents."""

from soundstage.core.errors import InvalidField, NotFound


class AgentNotFound(NotFound):
    code = "agent_not_found"


class LanguageMismatch(InvalidField):
    code = "language_mismatch"
