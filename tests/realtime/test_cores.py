"""The slots' speech models share the cores: each gets an equal share (at least one thread)
unless a thread count is set."""

from __future__ import annotations

import os

import pytest

from soundstage.config import RealtimeSettings, Settings
from soundstage.realtime.slots import sharing_cores


def with_slots(settings: Settings, processes: int, **update: object) -> Settings:
    realtime = RealtimeSettings(processes=processes)
    return settings.model_copy(update={"realtime": realtime, **update})


def test_each_slot_gets_its_share_of_the_cores_and_at_least_one_thread(settings: Settings) -> None:
    cores = os.cpu_count() or 1
    unset = settings.model_copy(
        update={
            "stt": settings.stt.model_copy(update={"cpu_threads": None}),
            "tts": settings.tts.model_copy(update={"cpu_threads": None}),
        }
    )
    one = sharing_cores(with_slots(unset, 1))
    assert (one.stt.cpu_threads, one.tts.cpu_threads) == (cores, cores)
    many = sharing_cores(with_slots(unset, cores * 4))
    assert (many.stt.cpu_threads, many.tts.cpu_threads) == (1, 1)


def test_a_thread_count_set_is_kept(settings: Settings) -> None:
    stt = settings.stt.model_copy(update={"cpu_threads": 3})
    shared = sharing_cores(with_slots(settings, 64, stt=stt))
    assert shared.stt.cpu_threads == 3


def test_the_slots_default_to_one_per_core_and_at_least_two(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    assert RealtimeSettings().processes == 8
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    assert RealtimeSettings().processes == 2
    monkeypatch.setattr(os, "cpu_count", lambda: None)  # unknown
    assert RealtimeSettings().processes == 2
    monkeypatch.setenv("SOUNDSTAGE_REALTIME__PROCESSES", "5")
    assert Settings().realtime.processes == 5
