"""Named background tasks (work that is not a customer's job: a voice preview, a talent
demo), declared by the feature that owns them, and the deployment's plugins (modules that
declare more job kinds and tasks).

A feature declares a task in its own `tasks.py`, in the `register()` the composition root
(`soundstage.app_tasks.install`) calls:

    def register() -> None:
        jobs.tasks.declare("voices.render_preview", render_preview)

and asks for it with `jobs.queue.enqueue(settings, "voices.render_preview", voice_id)` (after
its transaction commits, where it wrote what the task reads). Arguments are ids (strings):
the database is the truth, so a lost or repeated message is harmless. An `AppError` the task
raises is logged as a warning; nothing else is told.

A deployment's plugins (`settings.jobs.plugins`, configuration: import paths) declare theirs
when imported, with the `task` decorator; the worker imports them with `load_plugins`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from soundstage.config import Settings
from soundstage.jobs import wiring

# Called as task(db, settings, *args) in a worker process.
TaskFunction = Callable[..., Any]

_TASKS: dict[str, TaskFunction] = {}


def declare(name: str, function: TaskFunction) -> None:
    """Declare `name` (`<feature>.<what>`) as the background task `function` does; it is
    called as `function(db, settings, *args)` in a worker process."""
    _TASKS[name] = function


def task(name: str) -> Callable[[TaskFunction], TaskFunction]:
    """`declare` as a decorator (for a plugin module, which declares on import)."""

    def decorate(function: TaskFunction) -> TaskFunction:
        declare(name, function)
        return function

    return decorate


def get(name: str) -> TaskFunction | None:
    return _TASKS.get(name)


def names() -> list[str]:
    """Every declared task's name."""
    return sorted(_TASKS)


def load_plugins(settings: Settings) -> None:
    """Check the job system was wired at startup and import the deployment's plugins
    (`settings.jobs.plugins`)."""
    wiring.ensure()
    for module in settings.jobs.plugins:
        importlib.import_module(module)
