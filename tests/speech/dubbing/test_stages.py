"""A dubbing job's progress by stage never goes back, even when a stage starts over (the
transcription of the mixture after one of the isolated voice that heard no words)."""

from __future__ import annotations

import time
from pathlib import Path

from soundstage.speech.dubbing.tasks import STAGES, _Stages
from tests.support.jobs import progress_context


def test_progress_within_a_stage_never_goes_back(tmp_path: Path) -> None:
    reports: list[tuple[float, str | None]] = []
    stages = _Stages(progress_context(reports, tmp_path))
    with stages.stage("decoding"):
        pass
    with stages.stage("separating"):
        pass
    with stages.stage("transcribing") as progress:
        progress(0.8)
        time.sleep(0.55)  # past the job's report throttle
        progress(0.1)  # the second transcription starts from 0
    begin = STAGES["decoding"] + STAGES["separating"]
    reached = [fraction for fraction, stage in reports if stage == "transcribing"]
    assert reached == sorted(reached), reached
    assert abs(reached[-1] - (begin + 0.8 * STAGES["transcribing"])) < 1e-9, reached
    assert set(stages.elapsed_ms) == {"decoding", "separating", "transcribing"}
