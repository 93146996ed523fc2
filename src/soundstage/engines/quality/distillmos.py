"""DistillMOS (Stahl and Gamper, 2025; the `distillmos` package, MIT): a small convolutional
transformer distilled from an XLS-R quality model, its weights inside the wheel.

The package imports torchaudio at module level, for its command line only (reading and
resampling files); PyPI's torchaudio does not load beside the CPU torch this project pins,
and the model needs none of it. Where torchaudio does not import, an empty stand-in module
takes its name for the import and is dropped after (`_torchaudio_stand_in`); the installer
puts `distillmos` and `xls-r-sqa` in without their declared dependencies (Makefile), which
name torchaudio and transformers for their other models."""

from __future__ import annotations

import contextlib
import io
import sys
import threading
import types
from collections.abc import Iterator
from typing import Any

import numpy as np

from soundstage.engines.speakers.audio16k import mono_16k
from soundstage.media.audio import Audio

NAME = "distillmos"


@contextlib.contextmanager
def _torchaudio_stand_in() -> Iterator[None]:
    """`import torchaudio` succeeds inside: the real one where it loads, else an empty module
    under its name, removed again on the way out."""
    try:
        import torchaudio  # noqa: F401
    except Exception:  # missing, or built for another torch (an OSError or a RuntimeError)
        sys.modules.pop("torchaudio", None)
        stand_in = types.ModuleType("torchaudio")
        sys.modules["torchaudio"] = stand_in
        try:
            yield
        finally:
            if sys.modules.get("torchaudio") is stand_in:
                del sys.modules["torchaudio"]
        return
    yield


class DistillMos:
    """The predictor, its model loaded once; one call at a time (its torch threads: one, as
    every torch model here runs, worker processes being the unit of parallelism)."""

    name = NAME

    def __init__(self, model: Any) -> None:
        self._model = model
        self._lock = threading.Lock()

    @classmethod
    def load(cls) -> DistillMos:
        import torch

        torch.set_num_threads(1)
        with _torchaudio_stand_in():
            from distillmos.sqa import ConvTransformerSQAModel
        # It prints where its weights came from: not into a worker's log.
        with contextlib.redirect_stdout(io.StringIO()):
            model = ConvTransformerSQAModel()
        return cls(model.eval())

    def predict(self, audio: Audio) -> float:
        """Recordings shorter than its 7.68 s window are padded with silence, which lowers the
        score: bench/voice_quality.py scores three sentences joined."""
        import torch

        samples = torch.from_numpy(np.ascontiguousarray(mono_16k(audio)))[None]
        with self._lock, torch.inference_mode():
            return float(self._model(samples).item())
