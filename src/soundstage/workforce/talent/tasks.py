"""The talent feature's background task: render a demo (on the first request of its URL, see
demos.demo_response)."""

from __future__ import annotations

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.jobs import tasks
from soundstage.workforce.talent import demos


def render_demo(db: Database, settings: Settings, demo_id: str) -> None:
    demos.render(db, settings, demo_id)


def register() -> None:
    """Declare this feature's background task (called by the composition root,
    soundstage.app_tasks)."""
    tasks.declare(demos.RENDER_TASK, render_demo)
