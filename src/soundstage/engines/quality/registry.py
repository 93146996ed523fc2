"""The naturalness predictors by name, each created on first use and kept for the life of the
process (its model loads once)."""

from __future__ import annotations

from typing import Final

from soundstage.engines.errors import EngineUnavailable
from soundstage.engines.quality.base import Predictor
from soundstage.engines.registry import load_once


# Each imports its module only when called: importing this one loads no model.
def _distillmos() -> Predictor:
    from soundstage.engines.quality.distillmos import DistillMos

    return DistillMos.load()


def _dnsmos() -> Predictor:
    from soundstage.engines.quality.dnsmos import DnsMos

    return DnsMos.load()


_FACTORIES: Final = {"distillmos": _distillmos, "dnsmos": _dnsmos}
PREDICTORS: Final = tuple(_FACTORIES)


def get_predictor(name: str) -> Predictor:
    """The process's predictor `name` (distillmos or dnsmos); EngineUnavailable if it cannot
    run here (a failure is not remembered: the next call tries again)."""
    if name not in _FACTORIES:
        raise ValueError(f"no naturalness predictor {name!r}: {', '.join(PREDICTORS)}")
    return load_once("naturalness predictor", name, _FACTORIES[name], unavailable=EngineUnavailable)
