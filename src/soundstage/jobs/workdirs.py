"""Work directories of running jobs (inputs fetched, intermediate files): one per attempt
under `data_dir/work`, removed when the attempt ends, and swept when its worker died (at a
worker's start and by the sweeper) so that a killed worker's files never stay."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import tempfile
import time
from pathlib import Path
from typing import Final

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.jobs import repository

# The file in each work directory naming the attempt that owns it (the job's lease owner).
OWNER_FILE: Final = ".owner"
# A directory without its owner file is a worker's that died while making it.
_UNNAMED_GRACE_SECONDS: Final = 60.0
# Entries of `data_dir/tmp` (uploads on their way to storage) older than this were left by an
# API process that died: no upload takes that long.
TMP_STALE_SECONDS: Final = 3600.0


def work_root(settings: Settings) -> Path:
    root = settings.data_dir / "work"
    root.mkdir(parents=True, exist_ok=True)
    return root


def create(settings: Settings, job_id: str, owner: str) -> Path:
    """A fresh work directory for `owner`'s attempt at job `job_id`."""
    # The creating process's pid is in the name too: a worker killed before it wrote the
    # owner file leaves a directory the sweeper can still tell is over (its process is gone).
    prefix = f"{job_id}.{os.getpid()}."
    workdir = Path(tempfile.mkdtemp(prefix=prefix, dir=work_root(settings)))
    try:
        # Written aside and renamed: a sweeper never reads the owner file half-written (empty,
        # which it would take for "no owner" and remove the running attempt's directory).
        aside = workdir / f"{OWNER_FILE}.new"
        aside.write_text(owner)
        os.replace(aside, workdir / OWNER_FILE)
    except OSError:
        # A full disk fits the directory but not its owner's name: without it the sweeper
        # could not tell whose it is, so it must not stay.
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    return workdir


def remove_orphans(db: Database, settings: Settings, now: float | None = None) -> int:
    """Remove the work directories whose attempt is over: its job is not running under that
    owner any more, or the owner is a process of this machine that no longer exists (a
    killed worker, before its lease runs out). Returns how many went."""
    root = work_root(settings)
    now = now or time.time()
    found: dict[Path, tuple[str, str | None]] = {}
    for path in root.iterdir():
        if path.is_dir():
            found[path] = (path.name.split(".", 1)[0], _owner_of(path, now))
    with db.read_session() as session:
        running = repository.lease_owners(session, sorted({job for job, _ in found.values()}))
    removed = 0
    for path, (job_id, owner) in found.items():
        if owner == "" or (owner is not None and _over(owner, running.get(job_id))):
            shutil.rmtree(path, ignore_errors=True)
            removed += 1
    return removed


def _owner_of(path: Path, now: float) -> str | None:
    """The directory's owner; "" when it has none and is past the grace; None: leave it."""
    with contextlib.suppress(FileNotFoundError):
        owner = (path / OWNER_FILE).read_text()
        if owner:
            return owner
    # No owner (yet, or ever: an empty file is one being written by an older worker). The
    # process that made it, when it is named and gone, will never write one.
    parts = path.name.split(".")
    if len(parts) == 3 and parts[1].isdigit() and not _alive(int(parts[1])):
        return ""
    with contextlib.suppress(FileNotFoundError):
        if now - path.stat().st_mtime > _UNNAMED_GRACE_SECONDS:
            return ""
    return None


def _over(owner: str, lease_owner: str | None) -> bool:
    if lease_owner != owner:
        return True
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    return host == socket.gethostname() and pid.isdigit() and not _alive(int(pid))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A killed process nobody has reaped yet (a zombie: its parent was killed with it and
    # init has not come round) still answers signal 0, but will never run again.
    with contextlib.suppress(OSError, IndexError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rpartition(")")[2].split()[0] != "Z"
    return True


def remove_stale_tmp(settings: Settings, now: float | None = None) -> int:
    """Remove what API processes that died left in `data_dir/tmp`. Returns how many went."""
    root = settings.data_dir / "tmp"
    if not root.is_dir():
        return 0
    now = now or time.time()
    removed = 0
    for path in root.iterdir():
        with contextlib.suppress(FileNotFoundError):
            if now - path.lstat().st_mtime <= TMP_STALE_SECONDS:
                continue
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink()
            removed += 1
    return removed
