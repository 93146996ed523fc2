"""Engines by name (text-to-speech, isolation, conversion, translation...): each created on
first use and kept for the life of the process, so that a model loads once per worker
process, never per request. A deployment adds or replaces one from its plugin module."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Generic, TypeVar

from soundstage.core.errors import AppError

T = TypeVar("T")


class Registry(Generic[T]):
    """`what` names the kind in messages ("text-to-speech engine"). `unknown` is raised for a
    name no factory has, `unavailable` when a factory cannot run here (its package is
    missing, its files cannot be read); a failure is not remembered: the next call tries
    again. Factories import their modules only when called, so that importing a registry
    loads no model."""

    def __init__(
        self,
        what: str,
        factories: Mapping[str, Callable[[], T]],
        *,
        unknown: Callable[[str], AppError],
        unavailable: Callable[[str], AppError],
    ) -> None:
        self._what = what
        self._factories = dict(factories)
        self._unknown = unknown
        self._unavailable = unavailable
        self._instances: dict[str, T] = {}
        self._lock = threading.Lock()

    def names(self) -> list[str]:
        """The names in order of preference (the order given, registered ones first or last)."""
        return list(self._factories)

    def register(self, name: str, factory: Callable[[], T], *, first: bool = False) -> None:
        """Add one (last), or replace one in its place; `first` puts it ahead of the others."""
        with self._lock:
            self._instances.pop(name, None)
            if first:
                self._factories.pop(name, None)
                self._factories = {name: factory, **self._factories}
            else:
                self._factories[name] = factory

    def unregister(self, name: str) -> None:
        with self._lock:
            self._factories.pop(name, None)
            self._instances.pop(name, None)

    def get(self, name: str) -> T:
        """The process's one instance of the named one."""
        instance = self._instances.get(name)
        if instance is not None:
            return instance
        with self._lock:
            # Held while creating, so that concurrent first calls load the model once.
            instance = self._instances.get(name)
            if instance is None:
                factory = self._factories.get(name)
                if factory is None:
                    raise self._unknown(f"There is no {self._what} named {name!r}.")
                try:
                    instance = factory()
                except ImportError as exc:
                    raise self._unavailable(
                        f"The {name} {self._what} is not installed: {exc}."
                    ) from exc
                except OSError as exc:
                    raise self._unavailable(
                        f"The {name} {self._what} could not be loaded: {exc}."
                    ) from exc
                self._instances[name] = instance
            return instance
