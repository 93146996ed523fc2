"""The composition root of the job system: the one place that knows every feature's job
kinds and background tasks, and wires the features the job system announces to. `install()`
runs at startup in every process that submits, cancels or runs jobs (`create_app`, the
`worker` command), before any job is touched; workers forked later inherit it. The job
system itself (`soundstage.jobs`) imports no feature."""

from __future__ import annotations

from collections.abc import Callable

from soundstage.creative.daw import tasks as daw_tasks
from soundstage.creative.music import tasks as music_tasks
from soundstage.creative.sound import tasks as sound_tasks
from soundstage.credits.billing import JobBilling
from soundstage.jobs import events, wiring
from soundstage.speech.alignment import tasks as alignment_tasks
from soundstage.speech.dubbing import tasks as dubbing_tasks
from soundstage.speech.isolator import tasks as isolator_tasks
from soundstage.speech.stt import tasks as stt_tasks
from soundstage.speech.tts import tasks as tts_tasks
from soundstage.speech.voice_changer import tasks as voice_changer_tasks
from soundstage.storage.job_media import JobMedia
from soundstage.voices import tasks as voices_tasks
from soundstage.webhooks import service as webhooks
from soundstage.workforce.talent import tasks as talent_tasks

# Each feature's `tasks.register`, which declares its job kinds (jobs.handlers.declare) and
# background tasks (jobs.tasks.declare); a deployment adds its own with `jobs.plugins`.
REGISTRATIONS: tuple[Callable[[], None], ...] = (
    tts_tasks.register,
    stt_tasks.register,
    alignment_tasks.register,
    isolator_tasks.register,
    voice_changer_tasks.register,
    daw_tasks.register,
    music_tasks.register,
    dubbing_tasks.register,
    sound_tasks.register,
    voices_tasks.register,
    talent_tasks.register,
)


def install() -> None:
    """Declare the features' job kinds and tasks, give the job system credits and the media
    store, and have the webhooks feature announce every asynchronous job's end.
    Idempotent."""
    for register in REGISTRATIONS:
        register()
    events.on_job_end(webhooks.announce_job_end)
    wiring.use(billing=JobBilling(), media=JobMedia())
