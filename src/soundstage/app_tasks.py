"""The composition root of the job system: the one place that knows every feature's job
kinds and background tasks, and wires the features the job system announces to. `install()`
runs at startup in every process that submits, cancels or runs jobs (`create_app`, the
`worker` command), before any job is touched (elsewhere, on first use: `settings.jobs.wiring`
names this module); workers forked later inherit it. The job system itself
(`soundstage.jobs`) imports no feature."""

from __future__ import annotations

from soundstage.credits.billing import JobBilling
from soundstage.jobs import events, wiring
from soundstage.jobs import tasks as jobs_tasks
from soundstage.storage.job_media import JobMedia
from soundstage.webhooks import service as webhooks

# Modules whose import registers the service's own job kinds (jobs.handlers.register) and
# background tasks (jobs.tasks.task); a deployment adds its own with `jobs.plugins`.
TASK_MODULES: tuple[str, ...] = (
    "soundstage.speech.tts.tasks",
    "soundstage.speech.stt.tasks",
    "soundstage.speech.isolator.tasks",
    "soundstage.speech.voice_changer.tasks",
    "soundstage.creative.daw.tasks",
    "soundstage.creative.music.tasks",
    "soundstage.speech.dubbing.tasks",
    "soundstage.creative.sound.tasks",
    "soundstage.voices.tasks",
    "soundstage.workforce.talent.tasks",
)


def install() -> None:
    """Tell the job system which modules declare its work, give it credits and the media
    store, and have the webhooks feature announce every asynchronous job's end. Idempotent."""
    jobs_tasks.use_modules(TASK_MODULES)
    events.on_job_end(webhooks.announce_job_end)
    wiring.use(billing=JobBilling(), media=JobMedia())
