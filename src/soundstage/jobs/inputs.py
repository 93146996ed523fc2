"""The inputs of asynchronous jobs, fetched and checked while the submission waits, so that
every asynchronous operation (dubbing, DAW export, speech-to-text with `Prefer:
respond-async`) answers a bad input with 422 naming its field, reserves its credits from
what the inputs measure, and answers the same JobAccepted.

`submit` runs in a thread (never on the event loop). Each input is brought into
`data_dir/tmp` (swept if the process dies) through media/fetch.py, the SSRF-safe fetcher,
with its byte limit and timeout (no database session held meanwhile), or read from storage
when it is one of this service's media URLs (the caller's own media are used where they
are, not copied). It is probed and checked with media.input_limits.check_input (sample rate,
channels, the operation's duration; a header without a duration is refused, it would price
nothing), then the feature plans the job from what the inputs are (its checks, price,
estimate). Only then, in one unit of work, each fetched input is kept in the media store
(purpose `input`) and the job submitted with its reservation. The worker reads the kept
copies (`path`): nothing is fetched twice. A refusal at any step leaves no job, no
reservation and no stored bytes (the store's writes are undone with the unit)."""

from __future__ import annotations

import asyncio
import functools
import tempfile
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import ParamSpec, TypeVar

import anyio
from sqlalchemy.orm import Session

from soundstage.config import Settings
from soundstage.core import admission
from soundstage.core.db import Database
from soundstage.core.principal import Principal
from soundstage.jobs import service as jobs
from soundstage.jobs import wiring
from soundstage.jobs.handlers import JobContext
from soundstage.jobs.payloads import JobRequest
from soundstage.jobs.schemas import JobAccepted
from soundstage.media import fetch
from soundstage.media.audio import InvalidMedia, MediaInfo, probe
from soundstage.media.input_limits import check_input


@dataclass(frozen=True)
class Wanted:
    """An input to fetch: its URL, the request field it came from, and the operation's
    duration limit (named in messages as `operation`)."""

    url: str
    param: str
    max_duration_ms: int
    operation: str


@dataclass(frozen=True)
class Fetched:
    wanted: Wanted
    path: Path
    info: MediaInfo
    # The caller's own stored media the input is (read where it is), or None (a copy).
    media_id: str | None


@dataclass(frozen=True)
class Plan:
    """What the feature makes of its measured inputs: the job's request (without the inputs'
    media ids and the duration priced, added here), its price (reserved now), its estimate
    and the duration priced."""

    request: KeptInputs
    credits: int
    estimated_completion_ms: int
    duration_ms: int


P = ParamSpec("P")
T = TypeVar("T")

_fetching: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, anyio.CapacityLimiter] = (
    weakref.WeakKeyDictionary()
)


async def in_fetch_thread(
    settings: Settings, submission: Callable[P, T], *args: P.args, **kwargs: P.kwargs
) -> T:
    """Run a blocking submission that fetches its inputs (it calls `submit`) on a thread of
    its own: it may wait for another server for `fetch_timeout_seconds`, and must never take
    the threads the API's units of work run on (`database.pool_size`), nor count against the
    process's active requests while it waits (core.admission)."""
    admission.step_aside()
    loop = asyncio.get_running_loop()
    limiter = _fetching.get(loop)
    if limiter is None:
        limiter = _fetching[loop] = anyio.CapacityLimiter(settings.server.fetch_threads)
    call = functools.partial(submission, *args, **kwargs)
    return await anyio.to_thread.run_sync(call, limiter=limiter)


def submit(
    db: Database,
    settings: Settings,
    principal: Principal,
    kind: str,
    wanted: Sequence[Wanted],
    plan: Callable[[list[Fetched]], Plan],
) -> JobAccepted:
    """Fetch and check every input, plan, keep the inputs and submit with the reservation
    (402 before anything is kept). Blocking: call it from a thread."""
    resumed = jobs.resumed(db, principal, kind)
    if resumed is not None:  # a retry under the same Idempotency-Key: nothing is fetched
        return jobs.accepted(resumed)
    with _scratch(settings) as scratch:
        by_url: dict[str, Fetched] = {}  # a URL asked for twice is fetched and kept once
        for index, one in enumerate(wanted):
            if one.url not in by_url:
                dest = scratch / f"input-{index}"
                by_url[one.url] = _fetch(db, settings, principal, one, dest)
        fetched = [by_url[one.url] for one in wanted]
        planned = plan(fetched)
        with db.session() as session:
            ids = {
                url: item.media_id or _keep(session, settings, principal, item)
                for url, item in by_url.items()
            }
            kept = [ids[one.url] for one in wanted]
            request = planned.request.model_copy(
                update={"input_media_ids": kept, "duration_ms": planned.duration_ms}
            )
            job = jobs.submit(
                session,
                settings,
                principal,
                kind,
                request,
                credits_needed=planned.credits,
                is_async=True,
                estimated_completion_ms=planned.estimated_completion_ms,
            )
            return jobs.accepted(job)


class KeptInputs(JobRequest):
    """The request of a kind whose submission may keep its inputs (see submit): their media
    ids, in the order they were asked for, and the duration its price was reckoned from
    (shown by jobs.service.accepted); None for a job submitted without (synchronous)."""

    input_media_ids: list[str] | None = None
    duration_ms: int | None = None


def kept_media_id(ctx: JobContext[KeptInputs], index: int) -> str | None:
    """The media id of the job's input `index` as its submission kept it, or None."""
    kept = ctx.request.input_media_ids
    return None if kept is None else kept[index]


def path(ctx: JobContext[KeptInputs], index: int, url: str, *, param: str) -> Path:
    """The job's input `index` (the URL asked for is `url`): where its submission kept it,
    or fetched now into the work directory for a job submitted without (synchronous)."""
    return ctx.input_path(url, param=param, kept_media_id=kept_media_id(ctx, index), index=index)


@contextmanager
def _scratch(settings: Settings) -> Iterator[Path]:
    """A private directory under `data_dir/tmp` (what a dead process leaves is swept)."""
    root = settings.data_dir / "tmp"
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="inputs-", dir=root) as name:
        yield Path(name)


def _fetch(
    db: Database, settings: Settings, principal: Principal, wanted: Wanted, dest: Path
) -> Fetched:
    param, own, media = wanted.param, None, wiring.media(settings)
    if not media.is_own_url(settings, wanted.url):
        # No database session is held while another server is waited for.
        fetch.fetch_to_file(wanted.url, dest, policy=media.fetch_policy(settings), param=param)
        source = dest
    else:
        with db.read_session() as session:
            own = media.callers_input(
                session, settings, principal, wanted.url, param=param, dest=dest
            )
            if own is not None:
                source = own[1]
            else:  # another account's media, signed: copied like any URL's bytes
                source = media.read_input(session, settings, wanted.url, dest, param=param)
    info = probe(source, param=param)
    if info.duration_ms <= 0:
        # Priced from this: a header that says nothing lasts would reserve nothing.
        raise InvalidMedia("The media's header gives it no duration.", param=param)
    check_input(info, wanted.max_duration_ms, param=param, operation=wanted.operation)
    return Fetched(wanted, source, info, own[0] if own is not None else None)


def _keep(session: Session, settings: Settings, principal: Principal, item: Fetched) -> str:
    """A fetched input stored for its job (the worker reads it from storage)."""
    return wiring.media(settings).keep_input(
        session, settings, principal, item.path, url=item.wanted.url, info=item.info
    )
