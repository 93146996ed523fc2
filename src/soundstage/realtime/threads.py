"""The native thread pools of a slot or batch process held to its share of the cores.

CTranslate2 and onnxruntime are told their thread counts, but numpy's OpenBLAS starts a
thread per core on its own, for the mel filter product of every decode's features, and its
idle threads spin before they sleep: in a slot given one core of two, one session took 18.1 s
of CPU time for 9.9 s of work (41 s of read speech, tiny.en partials, whisper-base finals,
fed at once), the rest taken from the other sessions' core. threadpoolctl sets the pools of
the BLAS libraries loaded now; the environment, those of any loaded later (OpenBLAS reads it
as it loads)."""

from __future__ import annotations

import os

import numpy as np  # noqa: F401  (its OpenBLAS loaded, so that its pool is held now)
from threadpoolctl import threadpool_limits

from soundstage.config import Settings

_BLAS_VARIABLES = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")


def hold_to_share(settings: Settings) -> None:
    """Every BLAS pool of this process to the threads its speech models get (the slot's
    share of the cores: realtime.slots.sharing_cores), for the process's whole life."""
    threads = max(settings.stt.cpu_threads or 1, settings.tts.cpu_threads or 1)
    for variable in _BLAS_VARIABLES:
        os.environ[variable] = str(threads)
    threadpool_limits(limits=threads, user_api="blas")
