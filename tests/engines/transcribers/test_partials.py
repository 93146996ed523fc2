"""Partials decoded together (engines.transcribers.partials): alone, a partial is what
faster-whisper's own decode of the window writes, token for token; together, partials of
several lengths, prompts and languages come back in order, each within its own budget and
saying what it says alone."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from soundstage.config import Settings
from soundstage.engines.transcribers.partials import (
    PROMPT_TOKENS,
    PartialRequest,
    decode_partials,
    partial_token_budget,
)
from soundstage.engines.transcribers.short_encoder import ShortEncoder
from soundstage.engines.transcribers.streaming import whisper_model
from tests.support.audio_fixtures import librivox_clips, word_error_rate

pytestmark = pytest.mark.slow

RATE = 16_000


@pytest.fixture(scope="module")
def clips() -> list[tuple[np.ndarray, str]]:
    """The LibriVox clips: their 16 kHz samples and their text."""
    return [(clip.audio().samples[:, 0].astype(np.float32), clip.text) for clip in librivox_clips()]


def faster_whisper_text(settings: Settings, request: PartialRequest) -> str:
    """The window decoded by faster-whisper's transcribe, as the recognizer decoded each
    partial before they were batched."""
    model = ShortEncoder(whisper_model("whisper-base", settings))
    model.frames = max(len(request.samples) // 160 + 1 + 200, 600)
    prefix = request.prefix
    written = (
        len(model.hf_tokenizer.encode(" " + prefix, add_special_tokens=False).ids) if prefix else 0
    )
    segments, _ = model.transcribe(
        request.samples,
        language=request.language,
        without_timestamps=True,
        beam_size=1,
        temperature=0.0,
        condition_on_previous_text=False,
        prefix=prefix or None,
        initial_prompt=request.prompt or None,
        max_new_tokens=partial_token_budget(len(request.samples) / RATE, written),
    )
    return " ".join("".join(segment.text for segment in segments).split())


def test_a_partial_alone_is_faster_whispers_decode_of_its_window(
    settings: Settings, clips: list[tuple[np.ndarray, str]]
) -> None:
    (first, text), (second, _), _ = clips
    words = text.split()
    requests = [
        PartialRequest(first[: 3 * RATE], "en"),
        # The stable words forced, the session's text before (fewer than PROMPT_TOKENS).
        PartialRequest(first, "en", prefix=" ".join(words[:3]), prompt="Chapter one."),
        PartialRequest(second[: 5 * RATE], None, prompt=text[:60]),  # the language detected
    ]
    model = whisper_model("whisper-base", settings)
    for request in requests:
        assert decode_partials(model, [request]) == [faster_whisper_text(settings, request)]


def test_partials_decoded_together_come_back_in_order_each_as_alone(
    settings: Settings, clips: list[tuple[np.ndarray, str]]
) -> None:
    """Windows of 1 to 9 s (so in several batches of like lengths), prompts of several
    lengths (CTranslate2 batches only prompts of one length), a language to detect."""
    long_prompt = " ".join(text for _, text in clips)  # far over PROMPT_TOKENS
    requests = []
    for index, (samples, text) in enumerate(clips):
        for seconds in (1.5, 4.0, 9.0):
            requests.append(
                PartialRequest(
                    samples[: int(seconds * RATE)],
                    None if index == 2 and seconds == 4.0 else "en",
                    prefix=text.split()[0] if seconds == 9.0 else "",
                    prompt=(long_prompt, "", "Chapter one.")[index],
                )
            )
    model = whisper_model("whisper-base", settings)
    alone = [decode_partials(model, [request])[0] for request in requests]
    together = decode_partials(model, requests)
    assert len(together) == len(requests)
    for request, one, batched in zip(requests, alone, together, strict=True):
        # Padded to their batch's longest window, a partial may differ from its text alone
        # at its end ("Dash was" for "Dashwood"; the bench finds them equal, token for
        # token, at one length): at most 2 words, or a quarter of a long one.
        edits = word_error_rate(one, batched) * len(one.split())
        assert edits <= max(2.0, 0.25 * len(one.split())), (one, batched)
        seconds = len(request.samples) / RATE
        written = len(model.hf_tokenizer.encode(" " + batched).ids)
        assert written <= partial_token_budget(seconds, 0) + 1, (seconds, batched)
    # Each clip's 9 s partial, with its forced first word, says most of the clip.
    for (_, text), partial in zip(clips, together[2::3], strict=True):
        assert partial.split()[0] == text.split()[0]
        assert word_error_rate(text, partial) <= 0.5, (text, partial)


def test_the_prompt_is_the_end_of_the_sessions_text(
    settings: Settings, clips: list[tuple[np.ndarray, str]]
) -> None:
    """Only its last PROMPT_TOKENS tokens prompt a partial: a longer text gives the partial
    that its end alone gives."""
    (samples, _), *_ = clips
    model = whisper_model("whisper-base", settings)
    words = " ".join(text for _, text in clips).split()

    def tokens(text: str) -> int:
        return len(model.hf_tokenizer.encode(" " + text, add_special_tokens=False).ids)

    # The words at the end that make exactly PROMPT_TOKENS tokens (a word is tokenized on its
    # own, with its space: the whole text's last tokens are theirs).
    end = next(
        " ".join(words[-k:])
        for k in range(1, len(words))
        if tokens(" ".join(words[-k:])) == PROMPT_TOKENS
    )
    request = PartialRequest(samples[: 4 * RATE], "en", prompt=" ".join(words))
    assert tokens(request.prompt) > PROMPT_TOKENS + 20
    alone = decode_partials(model, [replace(request, prompt=end)])
    assert decode_partials(model, [request]) == alone
