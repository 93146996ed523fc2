"""DNSMOS P.835 and P.808 (Reddy et al., Microsoft, the `speechmos` package, MIT): ONNX models
of the overall quality (OVRL) listeners give speech in the P.835 test, and of the P.808 MOS,
their files inside the wheel, run with this project's onnxruntime."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from soundstage.engines.speakers.audio16k import SAMPLE_RATE, mono_16k
from soundstage.media.audio import Audio

NAME = "dnsmos"


@dataclass(frozen=True)
class DnsMosScores:
    """Both of DNSMOS's figures for one recording, each 1 to 5."""

    overall: float  # P.835 OVRL
    p808: float


class DnsMos:
    """The predictor (`predict` gives the P.835 overall score; `scores` both), its two ONNX
    sessions loaded once with one thread each."""

    name = NAME

    def __init__(self, model: Any) -> None:
        self._model = model
        self._lock = threading.Lock()

    @classmethod
    def load(cls) -> DnsMos:
        import onnxruntime  # type: ignore[import-untyped]
        from speechmos import dnsmos

        models = Path(dnsmos.__file__).parent / "dnsmos_models"
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        # Its own constructor opens the sessions with every core: they are set here instead.
        model = dnsmos.DNSMOS.__new__(dnsmos.DNSMOS)
        model.primary_model_path = str(models / "sig_bak_ovr.onnx")
        model.onnx_sess = onnxruntime.InferenceSession(
            model.primary_model_path, options, providers=["CPUExecutionProvider"]
        )
        model.p808_onnx_sess = onnxruntime.InferenceSession(
            str(models / "model_v8.onnx"), options, providers=["CPUExecutionProvider"]
        )
        return cls(model)

    def scores(self, audio: Audio) -> DnsMosScores:
        # It refuses samples beyond full scale (a resampled peak can overshoot a little).
        samples = np.clip(mono_16k(audio), -1.0, 1.0)
        with self._lock:
            found = self._model(samples, SAMPLE_RATE, False)
        return DnsMosScores(overall=float(found["ovrl_mos"]), p808=float(found["p808_mos"]))

    def predict(self, audio: Audio) -> float:
        return self.scores(audio).overall
