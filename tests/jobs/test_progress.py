"""JobContext.progress: reports are throttled within a stage, never across stages."""

from __future__ import annotations

from pathlib import Path

from tests.support.jobs import progress_context


def test_a_new_stage_is_always_reported(tmp_path: Path) -> None:
    reports: list[tuple[float, str | None]] = []
    ctx = progress_context(reports, tmp_path)
    ctx.progress(0.1, "decoding")
    ctx.progress(0.12, "decoding")  # within 0.5 s, same stage: throttled
    ctx.progress(0.13, "separating")  # within 0.5 s, but a new stage
    ctx.progress(0.14, "separating")
    ctx.progress(0.2, "transcribing")
    ctx.progress(1.0, "transcribing")  # the end always
    assert reports == [
        (0.1, "decoding"),
        (0.13, "separating"),
        (0.2, "transcribing"),
        (1.0, "transcribing"),
    ]
