"""A slot process as the operating system sees it: what the libraries of a session make there
is not left behind when the pool stops it."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from soundstage.config import Settings
from tests.support.processes import REPO_ROOT, settings_env

# A pool of one slot, in a process of its own: the resource tracker (of that process and its
# slot) says what was left when they are gone.
POOL = textwrap.dedent(
    """
    import asyncio
    from soundstage.config import get_settings
    from soundstage.realtime.slots import SlotPool
    from tests.support.realtime_handlers import open_shouter

    async def main() -> None:
        pool = SlotPool(get_settings())
        try:
            async with pool.hold(("acct_test", "sandbox")) as slot:
                await slot.open(open_shouter, {})
                print([out async for out in slot.call("make a lock")])
        finally:
            pool.close()

    asyncio.run(main())
    """
)


def test_a_lock_a_library_makes_in_a_slot_is_not_left_behind(settings: Settings) -> None:
    """tqdm (faster-whisper's decode) makes a multiprocessing lock; in a spawned process that
    is a named semaphore, which a slot stopped by SIGKILL never gave back: the resource
    tracker reported one leaked per realtime transcription session when the server stopped."""
    done = subprocess.run(
        [sys.executable, "-c", POOL],
        cwd=REPO_ROOT,
        env=settings_env(settings) | {"SOUNDSTAGE_REALTIME__PROCESSES": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "'locks': 1" in done.stdout, done.stdout
    assert "leaked" not in done.stderr, done.stderr[-3000:]
    assert "resource_tracker" not in done.stderr, done.stderr[-3000:]
