"""Named background tasks (work that is not a customer's job: a voice preview, a talent
demo), declared by the feature that owns them, and the modules whose import declares the
service's job kinds and tasks.

A feature declares a task in its own `tasks.py`:

    @jobs.tasks.task("voices.render_preview")
    def render_preview(db: Database, settings: Settings, voice_id: str) -> None: ...

and asks for it with `jobs.queue.enqueue(settings, "voices.render_preview", voice_id)` (after
its transaction commits, where it wrote what the task reads). Arguments are ids (strings):
the database is the truth, so a lost or repeated message is harmless. An `AppError` the task
raises is logged as a warning; nothing else is told.

Which modules declare job kinds and tasks is known to the composition root (the place that
knows every feature), which installs the list at startup with `use_modules`; the worker
imports them (and `settings.jobs.plugins`) with `load_modules`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any

from soundstage.config import Settings
from soundstage.jobs import wiring

# Called as task(db, settings, *args) in a worker process.
TaskFunction = Callable[..., Any]

_TASKS: dict[str, TaskFunction] = {}
_MODULES: list[str] = []


def task(name: str) -> Callable[[TaskFunction], TaskFunction]:
    """Declare `name` (`<feature>.<what>`) as the background task the decorated function
    does; it is called as `function(db, settings, *args)` in a worker process."""

    def declare(function: TaskFunction) -> TaskFunction:
        _TASKS[name] = function
        return function

    return declare


def get(name: str) -> TaskFunction | None:
    return _TASKS.get(name)


def names() -> list[str]:
    """Every declared task's name."""
    return sorted(_TASKS)


def use_modules(modules: Sequence[str]) -> None:
    """Startup: the modules whose import registers the service's job kinds and tasks."""
    _MODULES[:] = modules


def load_modules(settings: Settings) -> None:
    """Import the installed modules and the deployment's plugins (`settings.jobs.plugins`)."""
    wiring.ensure(settings)
    for module in (*_MODULES, *settings.jobs.plugins):
        importlib.import_module(module)
