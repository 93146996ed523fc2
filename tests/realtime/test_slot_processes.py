"""A slot process as the operating system sees it: what the libraries of a session make there
is not left behind when the pool stops it, and its native thread pools keep to its share of
the cores."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap

from soundstage.config import Settings
from tests.support.processes import REPO_ROOT, settings_env

# A pool of one slot, in a process of its own (so that the resource tracker, of that process
# and its slot, says what was left when they are gone): prints the BLAS pools of its own
# process, then what the slot's handler answers to the message in argv[1].
POOL = textwrap.dedent(
    """
    import asyncio, sys
    from soundstage.config import get_settings
    from soundstage.realtime.slots import SlotPool
    from tests.support.realtime_handlers import blas_threads, open_shouter

    async def main() -> None:
        pool = SlotPool(get_settings())
        try:
            async with pool.hold(("acct_test", "sandbox")) as slot:
                await slot.open(open_shouter, {})
                print(blas_threads())
                print([out async for out in slot.call(sys.argv[1])])
        finally:
            pool.close()

    asyncio.run(main())
    """
)


def in_a_pool(settings: Settings, message: str, **env: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-c", POOL, message],
        cwd=REPO_ROOT,
        env=settings_env(settings) | {"SOUNDSTAGE_REALTIME__PROCESSES": "1"} | env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_a_lock_a_library_makes_in_a_slot_is_not_left_behind(settings: Settings) -> None:
    """tqdm (faster-whisper's decode) makes a multiprocessing lock; in a spawned process that
    is a named semaphore, which a slot stopped by SIGKILL never gave back: the resource
    tracker reported one leaked per realtime transcription session when the server stopped."""
    done = in_a_pool(settings, "make a lock")
    assert "'locks': 1" in done.stdout, done.stdout
    assert "leaked" not in done.stderr, done.stderr[-3000:]
    assert "resource_tracker" not in done.stderr, done.stderr[-3000:]


def test_a_slots_blas_threads_are_its_share_of_the_cores(settings: Settings) -> None:
    """numpy's OpenBLAS starts a thread per core (as many as the environment says, at most),
    whose idle spinning took a second core from the other sessions: a slot's pools are held
    to its speech models' threads (realtime.threads)."""
    threads = {"SOUNDSTAGE_STT__CPU_THREADS": "1", "SOUNDSTAGE_TTS__CPU_THREADS": "1"}
    done = in_a_pool(settings, "blas threads", OPENBLAS_NUM_THREADS="4", **threads)
    api, slot = (ast.literal_eval(line) for line in done.stdout.splitlines())
    assert api == [min(4, os.cpu_count() or 1)]  # the pool's own process: as numpy starts
    assert slot == [{"blas": [1]}]
