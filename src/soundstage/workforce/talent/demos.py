"""Talent demos: a script read by a catalog voice, rendered to MP3 once by a worker (on the
first request of its URL), kept in the media store (the local directory, or S3 that every
node shares) and served by signed, expiring URL at
`{public_base_url}/demos/{demo_id}/{filename}?expires=…&signature=…`.

The file's key carries a digest of what it says and how (engine, voice, script): a changed
script or voice makes a new file while the demo's URL stays the same.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Final

from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import ServiceUnavailable
from soundstage.jobs.renders import render_once
from soundstage.models import TalentDemo, Voice
from soundstage.storage import service as storage
from soundstage.storage import signing
from soundstage.storage.service import safe_filename
from soundstage.voices import previews
from soundstage.voices import service as voices
from soundstage.voices.errors import VoiceNotFound
from soundstage.workforce.errors import DemoNotFound
from soundstage.workforce.talent import repository

CONTENT_TYPE: Final = "audio/mpeg"
# How long the first request of a demo waits for a worker to render it.
RENDER_WAIT_SECONDS = 30.0
# The background task that renders a demo (workforce/talent/tasks.py).
RENDER_TASK: Final = "talent.render_demo"


def filename(demo: TalentDemo) -> str:
    return safe_filename(demo.title.lower(), default="demo") + previews.FILE_SUFFIX


def signed_url(settings: Settings, demo: TalentDemo) -> tuple[str, datetime]:
    """A URL of the demo valid for `media.url_ttl_seconds`, and when it expires. Signed like
    media URLs (demo ids and media ids never collide: `demo_…` and `med_…`)."""
    name = filename(demo)
    media_url, expires_at = signing.signed_url(settings, demo.id, name)
    query = media_url.partition("?")[2]
    return f"{settings.public_base_url}/demos/{demo.id}/{name}?{query}", expires_at


def demo_key(demo: TalentDemo, voice: Voice) -> str:
    """The demo's key in the media store."""
    digest = hashlib.sha256(
        f"{voice.engine}\0{voice.engine_voice}\0{demo.script}".encode()
    ).hexdigest()
    return f"demos/{demo.id}-{digest[:16]}{previews.FILE_SUFFIX}"


def render(db: Database, settings: Settings, demo_id: str) -> str | None:
    """Worker side: render the demo's MP3 into the media store unless it is there; its key.
    None for an unknown demo."""
    with db.read_session() as session:
        demo = repository.get_demo(session, demo_id)
        if demo is None:
            return None
        voice = voices.get_active_voice(session, demo.voice_id)
        key = demo_key(demo, voice)
        engine_name, engine_voice, script = voice.engine, voice.engine_voice, demo.script
    if not storage.render_exists(settings, key):
        previews.render_to_store(settings, key, engine_name, engine_voice, script)
    return key


async def demo_response(
    db: Database,
    settings: Settings,
    demo_id: str,
    name: str,
    raw_query: str,
    range_header: str | None,
) -> Response:
    """The file behind a signed demo URL: 403 for a tampered or expired URL, 404 for an
    unknown demo; the first request has a worker render it and waits (503 if none did)."""
    signing.verify(settings, demo_id, name, raw_query)

    def expected() -> str:
        with db.read_session() as session:
            demo = repository.get_demo(session, demo_id)
            if demo is None or filename(demo) != name:
                raise DemoNotFound(f"No such demo: {demo_id}", param="demo_id")
            try:
                voice = voices.get_active_voice(session, demo.voice_id)
            except VoiceNotFound as exc:
                raise DemoNotFound(
                    f"The demo {demo_id} is no longer available.", param="demo_id"
                ) from exc
            return demo_key(demo, voice)

    key = await run_in_threadpool(expected)
    busy = ServiceUnavailable(
        "The demo is being rendered; try again in a few seconds.", headers={"Retry-After": "5"}
    )
    await render_once(
        settings,
        lambda: storage.render_exists(settings, key),
        RENDER_TASK,
        demo_id,
        wait_seconds=RENDER_WAIT_SECONDS,
        busy=busy,
    )
    response = await run_in_threadpool(
        storage.render_response,
        settings,
        key,
        content_type=CONTENT_TYPE,
        filename=name,
        range_header=range_header,
    )
    if response is None:  # rendered, then gone: only a store emptied meanwhile does that
        raise busy
    return response
