"""The one Settings object: every knob of the service, read from SOUNDSTAGE_* variables."""

from __future__ import annotations

import os
import secrets
import tomllib
from functools import cache, lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

Environment = Literal["sandbox", "production"]
ENVIRONMENTS: tuple[Environment, ...] = ("sandbox", "production")


@cache
def checkout_root() -> Path | None:
    """The source checkout this code runs from (`src/soundstage` under a pyproject.toml that
    names soundstage: a clone, installed editable), or None (installed from a wheel). Where
    the code is, not the working directory: every command agrees wherever it is run."""
    root = Path(__file__).absolute().parents[2]
    try:
        project = tomllib.loads((root / "pyproject.toml").read_text()).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        return None
    return root if project.get("name") == "soundstage" else None


def default_data_dir() -> Path:
    """The data directory when SOUNDSTAGE_DATA_DIR is unset: the checkout's `data/`, else the
    user's (`$XDG_DATA_HOME/soundstage`, by default `~/.local/share/soundstage`)."""
    root = checkout_root()
    if root is not None:
        return root / "data"
    xdg = os.environ.get("XDG_DATA_HOME", "")
    # The XDG spec: a relative path is invalid and ignored.
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".local" / "share"
    return base / "soundstage"


class RateLimitSettings(BaseModel):
    """Rate limits in the `limits` notation ("N/second|minute|hour")."""

    # One bucket per account and environment, shared by all the account's keys there: keys
    # are free to mint, so a limit per key would be no limit.
    sandbox: str = "100/minute"
    production: str = "1000/minute"
    # Requests that carry no valid key (401 answers, /docs, /openapi.json, a tampered or
    # expired signed URL) share a bucket per client address, so they never touch a real
    # account's quota.
    anonymous: str = "300/minute"
    # The public surfaces, each a bucket per client address of its own, apart from the
    # anonymous one. Valid signed media and demo URLs: a player sends a few Range requests
    # per file and a page may hold dozens of players; 20 a second still bounds a flood.
    media: str = "1200/minute"
    # /previews/…: a voice list plays each preview; 10 a second bounds a flood.
    previews: str = "600/minute"
    # /console: a page load is the index and a few hashed assets.
    console: str = "300/minute"


class DatabaseSettings(BaseModel):
    """Connections of each process to the database (API and worker processes alike)."""

    # Connections one process keeps (SQLAlchemy's pool, no overflow). The API process runs
    # its blocking work on as many threads (a thread holds at most one connection, for one
    # unit of work that begins and ends on it), so no thread ever waits for a connection
    # that another request holds while it waits for a thread. 8: a unit of work is mostly
    # Python holding the GIL, so more threads only take turns away from the event loop
    # (bench/load.py: 20 threads served fewer requests than 8 at 1,000 connections), while
    # 8 still overlap the waits on a networked PostgreSQL. PostgreSQL's max_connections must
    # cover every process of every node: (API processes + worker processes) x this.
    pool_size: int = Field(default=8, ge=1, le=1000)
    # The longest a unit of work waits for a connection (all in use by this process) or, on
    # SQLite, for the write lock another process holds; then the request is 503 `overloaded`
    # with Retry-After, never a hang. SQLite serializes writers: a write transaction lasts
    # milliseconds, so 10 s of waiting means the machine is overloaded, not unlucky.
    wait_seconds: float = Field(default=10.0, gt=0, le=300)


class ServerSettings(BaseModel):
    """Admission control of one API process: how much work it takes on at once, and how long
    a request waits for its turn before it is refused (503 `overloaded`, Retry-After)."""

    # Requests an API process works on at once (WebSockets, the probes /healthz, /readyz and
    # /metrics, and requests waiting for their job, fetching their inputs or sending their
    # response body do not count). 32 keeps the event loop's turn short: at about 1 ms of
    # work each, a request that gets in is answered in tens of milliseconds.
    max_active_requests: int = Field(default=32, ge=1, le=10_000)
    # Requests that may wait for a turn (four times the active ones: a burst's worth); one
    # more is refused at once, which costs it a fraction of a millisecond.
    max_waiting_requests: int = Field(default=128, ge=0)
    # The longest a request waits for a turn before it is refused: past capacity the client
    # hears so quickly (and retries after Retry-After) instead of timing out.
    admission_wait_seconds: float = Field(default=0.25, gt=0, le=60)
    # What a refused request is told to wait before retrying.
    retry_after_seconds: int = Field(default=1, ge=1, le=3600)
    # Threads of an API process for asynchronous submissions that fetch their inputs from
    # other servers (STT, dubbing, DAW export): such a wait may last fetch_timeout_seconds,
    # so it never takes the threads of the units of work. One more submission waits for one.
    fetch_threads: int = Field(default=32, ge=1, le=1000)


class RunningJobCaps(BaseModel):
    """Jobs of one account (in one environment) that workers run at once; its other jobs
    wait, and other accounts' jobs take the free workers (jobs.repository.claim_next).
    Sandbox is for building an integration, not for throughput: two at once let a client
    try its own concurrency (a synchronous call beside an asynchronous job), and a test
    suite against the sandbox never holds more than two worker processes. Production binds
    only on deployments of more than 8 worker processes, where one account's batch then
    leaves the rest to others; on smaller ones a single account may use every worker, and
    the fair order alone makes another account's job the next to start."""

    sandbox: int = Field(default=2, ge=1)
    production: int = Field(default=8, ge=1)

    def of(self, environment: str) -> int:
        return self.sandbox if environment == "sandbox" else self.production


class JobSettings(BaseModel):
    """The job queue and its workers."""

    # Synchronous endpoints wait this long for their job, then cancel it (504 job_timeout).
    sync_timeout_seconds: float = 900.0
    # A worker renews its lease every heartbeat; a lease not renewed in time is a dead worker.
    lease_seconds: float = 60.0
    heartbeat_seconds: float = 10.0
    # The sweeper re-queues jobs of dead workers and queued jobs nobody took.
    sweep_interval_seconds: float = 10.0
    requeue_after_seconds: float = 60.0
    # A job whose worker died this many times fails (and is not charged).
    max_attempts: int = 3
    worker_processes: int = 2
    # Workers take turns between accounts (each account in an environment counts alone):
    # the one with the fewest jobs running, then the one served longest ago, then its
    # oldest queued job; an account at its cap waits (see RunningJobCaps).
    max_running_per_account: RunningJobCaps = Field(default_factory=RunningJobCaps)
    # On SIGTERM a worker takes no new job and lets the running ones finish for this long;
    # a job still running then is interrupted and put back in the queue at once (another
    # worker reruns it; its credits stay reserved and are captured once, by the run that
    # completes). A job that must not be cut short needs a longer grace period from the
    # process manager (systemd TimeoutStopSec, Kubernetes terminationGracePeriodSeconds).
    shutdown_timeout_seconds: float = Field(default=30.0, ge=0)
    # Extra modules that register job handlers (deployments, tests).
    plugins: list[str] = Field(default_factory=list)
    # Each worker process loads the models its features' jobs use by default (the default
    # speech-to-text model, the sound-effect prompt index) when it starts, before it takes
    # a job: the first transcription or sound effect does not wait 20-30 s for them. False:
    # each loads on the first job that needs it (a worker that starts often, tests).
    preload_models: bool = True
    # The longest byte stream a job may relay through Redis (jobs.streams.redis_streams): a
    # longer one fails its job rather than lose bytes. Redis holds at most this per stream
    # being relayed (less while the client keeps up). The longest TTS stream is about 60 MB
    # (4,096 characters at OpenAI's speed 0.25 as 24 kHz PCM, or 5,000 as 48 kHz WAV at
    # ElevenLabs' 0.7); the default leaves twice that.
    stream_max_bytes: int = Field(default=128 * 1024**2, ge=1024**2)


class MetricsSettings(BaseModel):
    """Prometheus metrics at /metrics (prometheus-client, multiprocess mode: every API and job
    process of a machine writes to PROMETHEUS_MULTIPROC_DIR; see docs/operations.md)."""

    # False: /metrics answers 404 and nothing is recorded.
    enabled: bool = True
    # When set, /metrics asks for `Authorization: Bearer <token>` (Prometheus'
    # `authorization` scrape option); unset, it is open like /healthz: keep it off the
    # public listener (the numbers tell traffic and queue lengths, not customer data).
    bearer_token: str | None = None
    # `soundstage worker` serves its own /metrics on this port when set (a worker machine
    # that runs no API process); unset, its numbers are read through the API's /metrics
    # when both share a PROMETHEUS_MULTIPROC_DIR.
    worker_port: int | None = Field(default=None, ge=1, le=65535)
    worker_host: str = "127.0.0.1"


class MediaSettings(BaseModel):
    """Media URLs, and where media bytes live: `data_dir/media` by default, or one bucket of an
    S3-compatible store (AWS S3, Ceph RGW, MinIO, ...) shared by every node when
    `s3_endpoint` is set (e.g. SOUNDSTAGE_MEDIA__S3_ENDPOINT=http://127.0.0.1:7480). Media are
    served through this service's own signed URLs either way (storage/endpoints.py)."""

    # The spec's {cdn_url}; default: this server under /media.
    base_url: str | None = None
    url_ttl_seconds: int = 24 * 3600
    upload_max_bytes: int = 500 * 1024 * 1024
    # The S3 API's address (AWS: https://s3.<region>.amazonaws.com); unset: the local directory.
    s3_endpoint: str | None = None
    # The bucket must exist; the service makes none.
    s3_bucket: str = "soundstage"
    s3_region: str = "us-east-1"
    # Unset: boto3's own lookup (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, an instance role).
    s3_access_key: str | None = None
    s3_secret_key: str | None = None
    # "path" (http://host/bucket/key: Ceph RGW, MinIO) or "virtual" (http://bucket.host/key).
    s3_addressing_style: Literal["path", "virtual", "auto"] = "path"
    # Objects from this size up are uploaded in parts of s3_multipart_chunk_bytes (S3's
    # smallest part is 5 MiB); downloads to a worker's scratch go by ranged GETs that size.
    s3_multipart_threshold_bytes: int = Field(default=16 * 1024**2, ge=5 * 1024**2)
    s3_multipart_chunk_bytes: int = Field(default=16 * 1024**2, ge=5 * 1024**2)


class StorageQuotaSettings(BaseModel):
    """Bytes of live media (uploads, job outputs, dubbing inputs) an account may hold in each
    environment; past it an upload is 413 and a job fails 413 (`storage_quota_exceeded`)."""

    sandbox: int = Field(default=5 * 1024**3, ge=0)
    production: int = Field(default=100 * 1024**3, ge=0)


class StorageSettings(BaseModel):
    """Stored media: how long they are kept and how much an account may keep."""

    # Every media object expires this long after it was stored (its `expires_at`; a change
    # applies to media stored afterwards). Expired media answer 410 `media_expired`; the
    # worker's sweeper deletes their bytes and frees their quota.
    retention_seconds: int = Field(default=30 * 24 * 3600, ge=60)
    quota_bytes: StorageQuotaSettings = Field(default_factory=StorageQuotaSettings)
    # Expired objects deleted per sweep (the sweeper runs every jobs.sweep_interval_seconds).
    sweep_batch: int = Field(default=200, ge=1)


class DawSettings(BaseModel):
    """Bounds of a DAW export's output, checked at submit (from the request and the
    durations of the service's own media) and again in the job once every input is measured."""

    # The session's length: the end of the last clip (the spec's rate: 750 credits a minute).
    max_session_ms: int = Field(default=30 * 60_000, ge=1000, le=3 * 3_600_000)
    # The export's estimated size: every stem for the whole session at the requested rate,
    # bit depth and channels, plus the session file's copy when media are embedded.
    max_output_bytes: int = Field(default=2 * 1024**3, ge=1, le=32 * 1024**3)
    # The longest audio one track takes (422 media_too_long naming tracks[i].audio_url, from
    # its header before any decoding and again as decoded): the schema's 3 h.
    max_track_duration_ms: int = Field(default=3 * 3_600_000, ge=1)


class AccountSettings(BaseModel):
    # Active (unrevoked) API keys an account may hold in each environment; one more through
    # `POST /api/v1/keys` is 409 `too_many_api_keys`. Revoked keys do not count.
    max_active_keys: int = Field(default=20, ge=1)
    # An API process trusts a key it found valid for this long without looking it up again
    # (one query and one thread hop less per request). A key revoked through the process is
    # refused at once; revoked elsewhere (another process or node, the CLI), within this
    # time. 0 looks every request's key up.
    key_cache_seconds: float = Field(default=2.0, ge=0, le=60)


class CreditSettings(BaseModel):
    # A sandbox top-up may not take the sandbox balance (available + reserved) past this.
    sandbox_max_balance: int = Field(default=10_000_000, ge=1)


class WebhookSettings(BaseModel):
    """Outgoing webhooks (Standard Webhooks 1.0): timeout, retries, disabling. Endpoint URLs
    obey the address rules of media fetching, `fetch_allow_hosts` included."""

    # Seconds to wait after each failed attempt before the next; after the last one the
    # delivery has failed. Svix's schedule: 8 attempts over about 27 hours.
    retry_schedule_seconds: list[Annotated[float, Field(gt=0)]] = Field(
        default_factory=lambda: [5.0, 300.0, 1800.0, 7200.0, 18000.0, 36000.0, 36000.0],
        min_length=1,
    )
    # Each delay is stretched or shrunk at random by up to this fraction, so that the
    # deliveries of an endpoint that was down do not all come back at the same instant.
    retry_jitter: float = Field(default=0.1, ge=0.0, lt=1.0)
    # An answer must arrive within this time (2xx within 15 s is success).
    timeout_seconds: float = Field(default=15.0, gt=0)
    # An endpoint is disabled (reason `failing`) after this many deliveries in a row failed
    # for good.
    failure_threshold: int = Field(default=10, ge=1)
    # Live endpoints an account may have in each environment (deleted ones do not count);
    # one more is 422 `too_many_endpoints`.
    max_endpoints: int = Field(default=16, ge=1)
    # Deliveries are sent by `soundstage worker`'s main process on threads of their own, never
    # on the audio job processes: at most this many requests in flight per worker machine, at
    # most `account_concurrency` of them for one account, and always one at a time per endpoint.
    delivery_concurrency: int = Field(default=32, ge=1)
    account_concurrency: int = Field(default=8, ge=1)
    # How often an idle delivery loop looks for due deliveries in the database.
    poll_interval_seconds: float = Field(default=0.5, gt=0)


class TtsSettings(BaseModel):
    """Text-to-speech engines."""

    # Directories of extra Piper voices, each a `<voice>.onnx` next to its `<voice>.onnx.json`
    # (see engines/tts/piper.py), read once per worker process. As JSON in the
    # environment: SOUNDSTAGE_TTS__PIPER_VOICE_DIRS='["/srv/piper-voices"]'.
    piper_voice_dirs: list[Path] = Field(default_factory=list)
    # Threads of each voice model (ONNX Runtime's intra-op threads) in each worker process;
    # unset: ONNX Runtime's default, one per physical core. With several worker processes
    # (or nodes) on one machine, threads x processes = cores (docs/scaling-out.md, "Sizing
    # workers").
    cpu_threads: int | None = Field(default=None, ge=1)
    # A realtime session (GET /api/v1/speech/tts/realtime) holds at most this many characters
    # of text received and not yet spoken; more is refused (422 text_buffer_full, close
    # 4422). Text is spoken as each sentence or long clause completes, and a run without any
    # break is cut at 280 characters, so only a message this large on its own reaches it.
    realtime_max_buffered_characters: int = Field(default=5000, ge=300)


class RealtimeSettings(BaseModel):
    """Realtime WebSocket sessions (speech/tts/realtime, speech/stt/realtime): served by a
    pool of slot processes beside each API process, one session per slot for its whole
    life, so a session's audio work never waits on the job queue or runs on the event loop."""

    # Slot processes per API process (each loads the models its sessions use, once). A
    # session that finds every slot taken is refused (4503), never queued. Where
    # stt/tts.cpu_threads is unset, each slot's models get an equal share of the cores (at
    # least one thread): sessions at once do not contend (realtime.slots.sharing_cores).
    # Default: one per core, at least 2 (2 cores served 8 realtime transcriptions with
    # partials every 500 ms and finals within 800 ms, p50, with tiny.en partials, 3 with
    # whisper-base's, on one machine; 5 on one a third slower, finals p50 about 1 s:
    # bench/stt_realtime_capacity.py, docs/realtime.md).
    processes: int = Field(default_factory=lambda: max(2, os.cpu_count() or 1), ge=1, le=64)
    # Pieces of the slots' audio work (a decode) that run at once across every slot of an
    # API process and its batch process (realtime.batching: the sessions' partials decoded
    # together); past that a final waits for a turn, and the batch waits behind every final
    # (realtime.turns). Default: the cores over each slot's model threads (2 cores, 1 thread
    # a slot: 2).
    core_turns: int | None = Field(default=None, ge=1, le=256)
    # Sessions one account (and environment) may hold at once on an API process; never more
    # than the slots minus one (with 2 slots: 1; with a single slot, that one), so one tenant
    # never takes every slot.
    max_sessions_per_account: int = Field(default=2, ge=1)
    # Credits a session is charged at least per started minute it is open (captured at its
    # end when its use comes to less): a held slot is never free. 25 is a tenth of a minute
    # of realtime transcription, 25 characters of speech; 0 turns the minimum off.
    minimum_credits_per_minute: int = Field(default=25, ge=0)
    # The longest a session lasts (it is then closed with 4408); and how long it may stay
    # silent (no message from the client) before it is closed the same way.
    max_session_seconds: float = Field(default=1800.0, gt=0)
    idle_timeout_seconds: float = Field(default=20.0, gt=0)
    # How long a token from .../realtime/tokens may wait before it is used (once).
    token_ttl_seconds: int = Field(default=60, ge=1, le=3600)
    # The largest client message (a text chunk, an audio frame), in bytes. `soundstage serve`
    # gives it to uvicorn as the WebSocket's own limit: a larger frame is refused (close 1009)
    # from its header, before its payload is read.
    max_message_bytes: int = Field(default=64 * 1024, ge=1024)
    # How far ahead of its session a client's messages are read (each counted as at least
    # 1 KiB): 4 MiB is about 65 s of 16 kHz PCM sent as binary frames, 40 s of 24 kHz PCM as
    # OpenAI's base64 JSON. A client that sends a recording faster than real time is read
    # on (its pings answered, its own reads never starved by a blocked send) until then;
    # past it TCP holds it back. Memory per session is bounded by it.
    max_backlog_bytes: int = Field(default=4 * 1024 * 1024, ge=64 * 1024)
    # The server pings every session this often and drops a client that does not answer
    # within the timeout (gone without a word); and a message it sends that the client does
    # not take within `send_timeout_seconds` (it stopped reading) ends the session. Together
    # a client that vanishes or stops reading frees its slot within 20 s at most.
    ping_interval_seconds: float = Field(default=10.0, gt=0)
    ping_timeout_seconds: float = Field(default=10.0, gt=0)
    send_timeout_seconds: float = Field(default=10.0, gt=0)
    # How often an open session checks that its key is still valid: revoking a key ends its
    # sessions within this (close 4401 `api_key_revoked`).
    key_check_seconds: float = Field(default=2.0, gt=0)


class SttSettings(BaseModel):
    """Speech-to-text models: Whisper in CTranslate2 format, run by faster-whisper (int8, CPU)."""

    # The model of requests that name none: "whisper-base" (multilingual, bundled), "tiny.en"
    # (English only, bundled, about twice as fast and less accurate) or model_dir's name.
    default_model: str = "whisper-base"
    # A deployment's own CTranslate2 Whisper model (a directory with model.bin, config.json,
    # tokenizer.json and vocabulary.txt, as ct2-transformers-converter writes it), offered under
    # the directory's name and loaded once per worker process: e.g.
    # SOUNDSTAGE_STT__MODEL_DIR=/srv/models/whisper-small with
    # SOUNDSTAGE_STT__DEFAULT_MODEL=whisper-small.
    model_dir: Path | None = None
    # Threads of each model in each worker process; unset: every core (os.cpu_count()).
    cpu_threads: int | None = Field(default=None, ge=1)
    # The model that writes the partial transcripts of realtime English speech (a session
    # that asks for English, or whose first final is English), the finals staying with the
    # session's model. "tiny.en" decodes a partial in about 40% of whisper-base's time on
    # 2 cores (64 against 134 ms for 4 s of speech, 102 against 278 ms for 6 s), so more
    # sessions share a machine with partials as often (bench/stt_realtime_capacity.py:
    # 8 sessions on 2 cores, a partial every 495 ms p50 against 794 ms), but its partials
    # are less accurate ("He was not an old young man." for "... ill-disposed ..."), which
    # the finals correct. Unset (the default): the session's own model, the partials' text
    # closest to the final's; set it where sessions per machine count more.
    realtime_partial_model: str | None = None
    # Beam search width; 1 is greedy decoding, faster and a little less accurate.
    beam_size: int = Field(default=5, ge=1, le=20)
    # The longest audio a transcription takes (422 media_too_long, checked from the header
    # before any decoding and again as it is decoded). Memory does not grow with it (the
    # audio is transcribed in 10-minute windows): it bounds a job's time and its transcript.
    max_duration_ms: int = Field(default=4 * 3_600_000, ge=1)


class IsolationSettings(BaseModel):
    """Voice isolation jobs."""

    # The longest audio isolation takes (422 media_too_long, from the header before any
    # decoding and again as decoded). Memory does not grow with it (decoded, separated and
    # encoded block by block): it bounds the job's time and disk. DeepFilterNet runs at about
    # 0.1 real-time factor per channel, so a stereo hour fits the synchronous wait (900 s).
    max_duration_ms: int = Field(default=3_600_000, ge=1)


class VoiceChangerSettings(BaseModel):
    """Voice changer jobs."""

    # The longest audio the voice changer takes (422 media_too_long, from the header before
    # any decoding and again as decoded). Its memory grows with it: the speech is transcribed
    # and re-voiced whole, mono at 24 kHz (about 0.3 GB of working arrays at 10 minutes).
    max_duration_ms: int = Field(default=600_000, ge=1)


class DubbingSettings(BaseModel):
    """Dubbing jobs."""

    # The longest media a dub takes: checked at submit from the header, and again on the
    # decoded audio before the heavy stages. Its memory grows with it by the voice, held
    # mono at 16 kHz (3.8 MB a minute), not with its rate or channels: what is kept at those
    # is in the work directory (raw float32: at 48 kHz x 8 channels about 0.2 GB of disk a
    # minute, 0.3 GB premium; a twelfth of that for 48 kHz mono).
    max_duration_ms: int = Field(default=3_600_000, ge=1)


class WyomingSettings(BaseModel):
    """`soundstage wyoming`: Home Assistant's Wyoming protocol over the same accounts, jobs and
    credits (docs/home-assistant.md). Its key is given on the command line or in
    SOUNDSTAGE_WYOMING_API_KEY, never here."""

    # The longest audio one transcription takes. Past it the client gets an `error` event
    # (media_too_long) at once, and the rest of its stream is read and dropped, never spooled.
    # Home Assistant's voice commands last seconds (its VAD ends the stream at the first
    # pause); five minutes still takes a long dictation while bounding what a stream costs:
    # its spool (9.6 MB at Home Assistant's 16 kHz 16-bit mono; 115 MB at the widest format
    # taken, 48 kHz 32-bit stereo) and its price (1,250 credits at 250 a minute).
    max_audio_seconds: float = Field(default=300.0, gt=0, le=3600)
    # A connection that sends nothing for this long while the server waits for it is closed,
    # with an `error` event (session_timeout) when a request was open: a client that vanished
    # mid-stream never holds a spool, a job or a connection.
    idle_timeout_seconds: float = Field(default=30.0, gt=0, le=3600)
    # The voice of a `synthesize` that names neither a voice nor a language.
    default_voice: str = Field(default="voice_joe", min_length=1, max_length=64)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="SOUNDSTAGE_", env_nested_delimiter="__", extra="ignore"
    )

    # Default: default_data_dir() (the checkout's data/, else the user's data directory).
    data_dir: Path = Field(default_factory=default_data_dir)
    # SQLite file under data_dir when unset; e.g. postgresql+psycopg://user@host/db
    database_url: str | None = None
    # Shared rate limits (and, later, the job queue) go through Redis when set.
    redis_url: str | None = None
    # Prefix of every Redis key, so deployments (or test runs) can share one Redis.
    redis_namespace: str = "soundstage"
    public_base_url: str = "http://127.0.0.1:8000"
    # The documentation site served at /guide/ (`make docs` builds it); default: the
    # checkout's build/site.
    guide_dir: Path | None = None
    database: DatabaseSettings = Field(default_factory=DatabaseSettings)
    server: ServerSettings = Field(default_factory=ServerSettings)
    rate_limits: RateLimitSettings = Field(default_factory=RateLimitSettings)
    max_request_bytes: int = 1_048_576
    # Signs media URLs. Default: a random secret kept in the data directory; set it
    # explicitly (the same on every machine) when several machines serve media. Required
    # with media in S3: then every node serves every media URL.
    secret_key: str | None = None
    # Fetching of audio_url / media_url: hosts (or host:port) exempt from the address rules,
    # e.g. SOUNDSTAGE_FETCH_ALLOW_HOSTS=media.internal,127.0.0.1:9000 for self-hosting.
    fetch_allow_hosts: Annotated[list[str], NoDecode] = Field(default_factory=list)
    fetch_max_bytes: int = 500 * 1024 * 1024
    fetch_timeout_seconds: float = 300.0
    jobs: JobSettings = Field(default_factory=JobSettings)
    media: MediaSettings = Field(default_factory=MediaSettings)
    webhooks: WebhookSettings = Field(default_factory=WebhookSettings)
    tts: TtsSettings = Field(default_factory=TtsSettings)
    stt: SttSettings = Field(default_factory=SttSettings)
    realtime: RealtimeSettings = Field(default_factory=RealtimeSettings)
    dubbing: DubbingSettings = Field(default_factory=DubbingSettings)
    storage: StorageSettings = Field(default_factory=StorageSettings)
    daw: DawSettings = Field(default_factory=DawSettings)
    credits: CreditSettings = Field(default_factory=CreditSettings)
    accounts: AccountSettings = Field(default_factory=AccountSettings)
    isolation: IsolationSettings = Field(default_factory=IsolationSettings)
    voice_changer: VoiceChangerSettings = Field(default_factory=VoiceChangerSettings)
    metrics: MetricsSettings = Field(default_factory=MetricsSettings)
    wyoming: WyomingSettings = Field(default_factory=WyomingSettings)
    # "text" (one readable line per record; `make serve`) or "json" (one JSON object per
    # line with the request id and job id; production log collectors).
    log_format: Literal["text", "json"] = "text"
    # /readyz gives each dependency (database, Redis, media store) this long to answer: under
    # a second, so that a probe with the usual 1 s timeout (Kubernetes') hears the answer.
    readiness_timeout_seconds: float = Field(default=0.8, gt=0, le=30)
    # /readyz fails while the event loop has kept a ready request waiting longer than this in
    # the last 5 s (a blocking call on the loop, or more work than it can turn over).
    readiness_max_loop_lag_seconds: float = Field(default=1.0, gt=0, le=60)
    idempotency_ttl_seconds: int = 24 * 3600
    # A request holding an Idempotency-Key renews its lease every heartbeat; a lease not
    # renewed in time belongs to a request that died, and a retry takes the key over.
    idempotency_lease_seconds: float = Field(default=10.0, gt=0)
    idempotency_heartbeat_seconds: float = Field(default=3.0, gt=0)

    @property
    def resolved_guide_dir(self) -> Path:
        return self.guide_dir or Path(__file__).resolve().parents[2] / "build" / "site"

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'soundstage.db').resolve()}"

    @field_validator("fetch_allow_hosts", mode="before")
    @classmethod
    def _comma_separated(cls, value: object) -> object:
        if isinstance(value, str):
            return [host.strip().lower() for host in value.split(",") if host.strip()]
        return value

    @model_validator(mode="after")
    def _shared_secret_with_shared_media(self) -> Settings:
        # A secret made in one node's data directory would sign URLs the other nodes refuse.
        if self.media.s3_endpoint and not self.secret_key:
            raise ValueError(
                "SOUNDSTAGE_SECRET_KEY must be set, the same on every node, when media are "
                "in S3 (SOUNDSTAGE_MEDIA__S3_ENDPOINT): it signs the media URLs any node serves"
            )
        return self

    @property
    def media_base_url(self) -> str:
        return (self.media.base_url or f"{self.public_base_url.rstrip('/')}/media").rstrip("/")

    def signing_secret(self) -> str:
        """SOUNDSTAGE_SECRET_KEY, or the data directory's own secret, made on first use and
        read once per process (signed URLs are built many to a page; rotating the file takes
        a restart)."""
        if self.secret_key:
            return self.secret_key
        path = self.data_dir / "secret_key"
        known = _FILE_SECRETS.get(path)
        if known is not None:
            return known
        if not path.exists():
            # Written aside then linked into place: concurrent first starts agree on one secret.
            self.data_dir.mkdir(parents=True, exist_ok=True)
            draft = path.with_name(f".secret_key.{os.getpid()}")
            draft.write_text(secrets.token_urlsafe(48))
            draft.chmod(0o600)
            try:
                os.link(draft, path)
            except FileExistsError:
                pass
            finally:
                draft.unlink()
        secret = path.read_text().strip()
        _FILE_SECRETS[path] = secret
        return secret

    @property
    def is_sqlite(self) -> bool:
        return self.resolved_database_url.startswith("sqlite")


_FILE_SECRETS: dict[Path, str] = {}


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
