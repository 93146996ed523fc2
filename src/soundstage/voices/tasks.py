"""The voices feature's background task: render a voice's preview (on the first request of
its URL, see service.preview_response)."""

from __future__ import annotations

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.jobs import tasks
from soundstage.voices import previews


def render_preview(db: Database, settings: Settings, voice_id: str) -> None:
    previews.render(db, settings, voice_id)


def register() -> None:
    """Declare this feature's background task (called by the composition root,
    soundstage.app_tasks)."""
    tasks.declare(previews.RENDER_TASK, render_preview)
