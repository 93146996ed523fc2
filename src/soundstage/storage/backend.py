"""Where media bytes live, behind a small interface (a local directory by default)."""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path
from typing import Protocol

from soundstage.config import Settings


class MediaStore(Protocol):
    def put(self, key: str, source: Path) -> int:
        """Store `source` under `key` (the source may be moved); return its size."""
        ...

    def local_path(self, key: str) -> Path:
        """A local file with the object's bytes, for serving and for workers to read."""
        ...

    def delete(self, key: str) -> None: ...


class LocalMediaStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, key: str) -> Path:
        path = (self.root / key).resolve()
        if not path.is_relative_to(self.root.resolve()):
            raise ValueError(f"storage key escapes the store: {key!r}")
        return path

    def put(self, key: str, source: Path) -> int:
        target = self._path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        draft = target.with_name(f".{target.name}.part")
        shutil.copyfile(source, draft)
        os.replace(draft, target)  # readers never see a half-written file
        return target.stat().st_size

    def local_path(self, key: str) -> Path:
        return self._path(key)

    def delete(self, key: str) -> None:
        path = self._path(key)
        path.unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # the object's own folder, once empty
            path.parent.rmdir()


def make_store(settings: Settings) -> MediaStore:
    return LocalMediaStore(settings.data_dir / "media")
