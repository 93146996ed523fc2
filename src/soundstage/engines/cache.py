"""The process's loaded models: each loaded once per process, on first use or when warmed,
and kept until cleared. Every engine and registry loads its model through here.

A model is known by its kind ("whisper model", "text-to-speech engine") and its name. Pure
functions of constants (a mel filterbank, Whisper's language list) keep `functools.cache`:
there is nothing in them to clear, warm or lose across a fork. Two engines keep models
outside it on purpose: PocketSphinx's decoder is not thread-safe, so transcribers/sphinx.py
keeps one per thread; DeepFilterNet needs a fresh model per stream, so its separator (itself
cached) keeps a pool of spare ones.

Fork: a job process is forked from the worker's main process (Huey, worker_type="process").
Models are loaded in the job processes, never in the main one before it forks; should one be
(a plugin warming at import), the child forgets it, as it forgets its parent's pooled
database connections (core.db): native runtimes (ONNX Runtime, CTranslate2, OpenMP) keep
threads and locks that do not survive a fork. The child loads its own.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeVar, cast

T = TypeVar("T")

ModelKey = tuple[str, str]  # (kind, name)
_MISSING = object()


@dataclass
class _Turn:
    """The lock of one model's load and how many threads hold or wait for it: dropped when
    none does, so that names asked for once (an unknown model id) leave nothing behind."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    users: int = 0


class ModelCache:
    """Thread-safe: concurrent first calls for one model load it once (the others wait for
    it), while different models load side by side. A failed load is not remembered: the next
    call tries again."""

    def __init__(self) -> None:
        self._models: dict[ModelKey, object] = {}
        self._loading: dict[ModelKey, _Turn] = {}
        self._lock = threading.Lock()  # guards the two dicts, never held while loading
        cache = weakref.ref(self)
        os.register_at_fork(after_in_child=lambda: _forget(cache))

    def get(self, kind: str, name: str, load: Callable[[], T]) -> T:
        """The process's one copy of the model, loaded by `load()` if it is not yet; what
        `load` raises reaches the caller and nothing is kept."""
        key = (kind, name)
        model = self._models.get(key, _MISSING)
        if model is not _MISSING:
            return cast(T, model)
        with self._turn(key):
            # Held while loading, so that concurrent first calls load the model once.
            model = self._models.get(key, _MISSING)
            if model is _MISSING:
                model = load()
                with self._lock:
                    self._models[key] = model
            return cast(T, model)

    def discard(self, kind: str, name: str) -> None:
        """Forget one model (its factory was replaced); a load under way finishes first, so
        that what it loaded is forgotten too."""
        key = (kind, name)
        with self._turn(key), self._lock:
            self._models.pop(key, None)

    def clear(self, kind: str | None = None) -> None:
        """Forget every model (of one kind); each loads again on its next use. Models in use
        stay alive until their callers let them go."""
        with self._lock:
            for key in [key for key in self._models if kind is None or key[0] == kind]:
                del self._models[key]

    def loaded(self) -> list[ModelKey]:
        """The (kind, name) of every model loaded, in the order they loaded."""
        with self._lock:
            return list(self._models)

    @contextmanager
    def _turn(self, key: ModelKey) -> Iterator[None]:
        """Hold the key's lock: one load (or discard) of a model at a time."""
        with self._lock:
            turn = self._loading.setdefault(key, _Turn())
            turn.users += 1
        try:
            with turn.lock:
                yield
        finally:
            with self._lock:
                turn.users -= 1
                if turn.users == 0 and self._loading.get(key) is turn:
                    del self._loading[key]

    def _after_fork(self) -> None:
        # The child has one thread: a lock its parent held mid-load would never be released.
        self._models = {}
        self._loading = {}
        self._lock = threading.Lock()


def _forget(cache: weakref.ref[ModelCache]) -> None:
    alive = cache()
    if alive is not None:
        alive._after_fork()


MODELS = ModelCache()
"""The process's models: the cache every engine uses (tests may make their own)."""


def warm(*getters: Callable[[], object]) -> None:
    """Load models now instead of on the first request that needs them: `getters` are the
    engines' own accessors (`get_transcriber`, `lambda: get_engine("piper")`), which load
    through MODELS, so later calls find the models loaded. Call it in the process that will
    use them (a job process), not in the worker's main process before it forks (see above).
    What a getter raises (the engine cannot run here) reaches the caller."""
    for get in getters:
        get()
