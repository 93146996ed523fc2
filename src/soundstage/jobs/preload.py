"""The models a worker process loads as it starts, before it takes a job
(`jobs.preload_models`), so that the first transcription or sound effect does not wait for
them. Each feature declares what its jobs load by default in its `tasks.register()`:

    preload.declare("speech-to-text model", lambda settings: get_transcriber(settings=settings))

The job system knows them by name only. They load in the job process (forked), never in the
worker's main process before it forks (engines.cache says why)."""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from soundstage.config import Settings

log = logging.getLogger("soundstage.jobs")

Loader = Callable[[Settings], object]

_LOADERS: dict[str, Loader] = {}


def declare(name: str, load: Loader) -> None:
    """`load(settings)` loads (into the process's model cache) what `name` names."""
    _LOADERS[name] = load


def names() -> list[str]:
    return list(_LOADERS)


def preload(settings: Settings, stopping: Callable[[], bool] = lambda: False) -> list[str]:
    """Load every declared model in this process, one after another, until `stopping()`:
    the names loaded. One that cannot load here is logged and skipped (its first job fails as
    it would have). Interruptible: a stopping worker never waits for a model it will not use
    (SIGINT, or the stop flag, ends the loading with KeyboardInterrupt)."""
    began = time.monotonic()
    pid = os.getpid()
    log.info("worker process %d preloading models: %s", pid, ", ".join(_LOADERS) or "none")
    loaded = []
    with _interruptible(stopping):
        for name, load in list(_LOADERS.items()):
            if stopping():
                break
            try:
                load(settings)
            except Exception:
                log.warning("worker process %d could not preload the %s", pid, name, exc_info=True)
            else:
                loaded.append(name)
    seconds = time.monotonic() - began
    log.info(
        "worker process %d preloaded models in %.1f s: %s",
        pid,
        seconds,
        ", ".join(loaded) or "none",
    )
    return loaded


@contextmanager
def _interruptible(stopping: Callable[[], bool]) -> Iterator[None]:
    """While the block runs, SIGINT raises KeyboardInterrupt (Huey's job processes ignore it
    while no job runs), and the stop flag set sends it: a model loads in native code, which
    only a signal cuts short."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.1):
            if stopping():
                os.kill(os.getpid(), signal.SIGINT)
                return

    watcher = threading.Thread(target=watch, name="preload-watch", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()
        signal.signal(signal.SIGINT, previous)
