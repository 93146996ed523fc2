"""Background tasks a feature (here a plugin, as a deployment would add one) declares by name
with `jobs.tasks.task`, run by a real worker; and `jobs.renders.render_once`, the
render-on-first-request of voice previews and talent demos."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from soundstage.config import Settings
from soundstage.core.errors import ServiceUnavailable
from soundstage.jobs import queue
from soundstage.jobs.renders import render_once

pytestmark = [pytest.mark.services, pytest.mark.usefixtures("worker")]


def busy() -> ServiceUnavailable:
    return ServiceUnavailable("not yet", param="thing_id", headers={"Retry-After": "5"})


def wait_for(path: Path, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"no worker wrote {path}"
        time.sleep(0.05)


def test_a_declared_task_runs_in_a_worker_by_name(settings: Settings, tmp_path: Path) -> None:
    target = tmp_path / "touched"
    queue.enqueue(settings, "test.touch", str(target), "0")
    wait_for(target)
    assert target.read_text() == "rendered"


def test_render_once_has_a_worker_render_the_file_and_waits_for_it(
    settings: Settings, tmp_path: Path
) -> None:
    target = tmp_path / "preview.mp3"
    asyncio.run(
        render_once(
            settings, target.exists, "test.touch", str(target), "0", wait_seconds=30, busy=busy()
        )
    )
    assert target.read_text() == "rendered"
    # Rendered once: a second request is answered from the file, nothing is enqueued.
    target.write_text("kept")
    asyncio.run(
        render_once(
            settings, target.exists, "test.touch", str(target), "0", wait_seconds=30, busy=busy()
        )
    )
    time.sleep(0.5)
    assert target.read_text() == "kept"


def test_render_once_not_ready_in_time_is_the_503_given(settings: Settings, tmp_path: Path) -> None:
    target = tmp_path / "slow.mp3"
    with pytest.raises(ServiceUnavailable) as raised:
        asyncio.run(
            render_once(
                settings,
                target.exists,
                "test.touch",
                str(target),
                "2",
                wait_seconds=0.3,
                busy=busy(),
            )
        )
    assert (raised.value.status, raised.value.code, raised.value.param) == (
        503, "service_unavailable", "thing_id")  # fmt: skip
    assert raised.value.headers == {"Retry-After": "5"}
    wait_for(target)  # the worker still renders it, for the next request


def test_render_once_waits_no_longer_than_synchronous_requests_may(
    settings: Settings, tmp_path: Path
) -> None:
    quick = settings.model_copy(
        update={"jobs": settings.jobs.model_copy(update={"sync_timeout_seconds": 0.2})}
    )
    target = tmp_path / "capped.mp3"
    # Waiting the 30 s asked for would see the file (written after 2 s) and return it.
    with pytest.raises(ServiceUnavailable):
        asyncio.run(
            render_once(
                quick, target.exists, "test.touch", str(target), "2", wait_seconds=30, busy=busy()
            )
        )
    wait_for(target)
