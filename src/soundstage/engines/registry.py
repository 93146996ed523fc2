"""Engines by name (text-to-speech, isolation, conversion, translation...): each created on
first use and kept for the life of the process in the model cache (engines.cache), so that a
model loads once per worker process, never per request. A deployment adds or replaces one
from its plugin module. An engine that is the only one of its kind is loaded with
`load_once` instead."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Generic, TypeVar

from soundstage.core.errors import AppError
from soundstage.engines.cache import MODELS, ModelCache

T = TypeVar("T")


class Registry(Generic[T]):
    """`what` names the kind in messages ("text-to-speech engine") and in the cache, where
    each instance is kept under (what, name). `unknown` is raised for a name no factory has,
    `unavailable` when a factory cannot run here (its package is missing, its files cannot
    be read); a failure is not remembered: the next call tries again. Factories import their
    modules only when called, so that importing a registry loads no model."""

    def __init__(
        self,
        what: str,
        factories: Mapping[str, Callable[[], T]],
        *,
        unknown: Callable[[str], AppError],
        unavailable: Callable[[str], AppError],
        cache: ModelCache = MODELS,
    ) -> None:
        self._what = what
        self._factories = dict(factories)
        self._unknown = unknown
        self._unavailable = unavailable
        self._cache = cache
        self._lock = threading.Lock()  # guards the factories

    def names(self) -> list[str]:
        """The names in order of preference (the order given, registered ones first or last)."""
        return list(self._factories)

    def register(self, name: str, factory: Callable[[], T], *, first: bool = False) -> None:
        """Add one (last), or replace one in its place; `first` puts it ahead of the others.
        The instance the old factory made is dropped."""
        with self._lock:
            if first:
                self._factories.pop(name, None)
                self._factories = {name: factory, **self._factories}
            else:
                self._factories[name] = factory
        self._cache.discard(self._what, name)

    def unregister(self, name: str) -> None:
        with self._lock:
            self._factories.pop(name, None)
        self._cache.discard(self._what, name)

    def get(self, name: str) -> T:
        """The process's one instance of the named one."""
        return self._cache.get(self._what, name, lambda: self._create(name))

    def _create(self, name: str) -> T:
        with self._lock:
            factory = self._factories.get(name)
        if factory is None:
            raise self._unknown(f"There is no {self._what} named {name!r}.")
        return _made(self._what, name, factory, self._unavailable)


def load_once(
    what: str,
    name: str,
    factory: Callable[[], T],
    *,
    unavailable: Callable[[str], AppError],
    cache: ModelCache = MODELS,
) -> T:
    """The process's one instance of an engine that has no other to choose from (no registry),
    kept in the cache under (what, name) as a Registry keeps its engines, with the same
    `unavailable` error when its factory cannot run here (not remembered)."""
    return cache.get(what, name, lambda: _made(what, name, factory, unavailable))


def _made(
    what: str, name: str, factory: Callable[[], T], unavailable: Callable[[str], AppError]
) -> T:
    try:
        return factory()
    except ImportError as exc:
        raise unavailable(f"The {name} {what} is not installed: {exc}.") from exc
    except OSError as exc:
        raise unavailable(f"The {name} {what} could not be loaded: {exc}.") from exc
