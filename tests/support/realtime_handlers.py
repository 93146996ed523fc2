"""A session handler for the realtime core's tests, run in a slot process: it upper-cases
each word of a message, one output per word, after an optional delay."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from typing import Any

from soundstage.config import Settings
from soundstage.core.errors import InvalidField


class Shouter:
    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.words = 0

    def handle(self, message: Any) -> Iterator[Any]:
        if message == "invalid":
            raise InvalidField("That word is not allowed.", param="text")
        if message == "die":
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(self.delay)
        for word in str(message).split():
            self.words += 1
            yield {"word": word.upper(), "pid": os.getpid()}

    def close(self) -> Iterator[Any]:
        yield {"words": self.words}


def open_shouter(settings: Settings, params: dict[str, Any]) -> Shouter:
    return Shouter(float(params.get("delay", 0.0)))
