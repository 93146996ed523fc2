"""The sound-effect job: understand the prompt (the sentence model loads once per worker
process), render the scene, encode and store it."""

from __future__ import annotations

from soundstage.config import Settings
from soundstage.creative.sound.schemas import SoundLayer, SoundRecipeUse, SoundResult
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.engines.embedder import get_embedder
from soundstage.engines.sound import scene
from soundstage.engines.sound.interpret import Element, confidence, index_for, interpret
from soundstage.jobs import handlers, preload
from soundstage.jobs.handlers import JobContext, JobOutcome
from soundstage.jobs.payloads import JobRequest
from soundstage.media import encodings
from soundstage.media.audio import EncodeFormat, EncodingFileEncoder

KIND = "sound"


class SoundJob(JobRequest):
    """The job's request: the endpoint's SoundRequest with its seed fixed."""

    prompt: str
    duration_seconds: int
    format: EncodeFormat
    seed: int
    # The output's encoding (a media.encodings name), for the compatible APIs' exact output
    # formats; None: `format` as the native API makes it.
    encoding: encodings.EncodingName | None = None


def describe(element: Element) -> SoundLayer:
    return SoundLayer(
        recipe=element.recipe.name,
        label=element.recipe.label,
        text=element.text,
        similarity=element.similarity,
        modifiers=list(element.steering.modifiers),
        after_previous=element.after_previous,
    )


def generate_sound(ctx: JobContext[SoundJob]) -> JobOutcome[SoundResult]:
    request = ctx.request
    ctx.progress(0.0, "interpreting")
    elements = interpret(request.prompt, index_for(get_embedder()))
    ctx.progress(0.1, "rendering")
    audio = scene.render(elements, request.duration_seconds, request.seed)
    ctx.progress(0.9, "encoding")
    if request.encoding is None:
        fmt = request.format
        output, duration_ms = ctx.save_audio(audio, f"sound.{fmt}", fmt)
    else:
        named = encodings.encoding(request.encoding)
        with EncodingFileEncoder(ctx.workdir / f"sound.{named.container}", named) as encoder:
            encoder.write(audio)
            written = encoder.close()
        duration_ms = written.duration_ms
        output = ctx.save_file(encoder.path, written.content_type, duration_ms)
    result = SoundResult(
        output_url=output,
        duration_ms=duration_ms,
        seed=request.seed,
        layers=[describe(element) for element in elements],
        recipes=[
            SoundRecipeUse(
                name=recipe.name,
                label=recipe.label,
                family=recipe.family,
                weight=round(share, 3),
                layer=layer,
            )
            for layer, recipe, share in scene.shares(elements)
        ],
        confidence=confidence(elements),
    )
    return JobOutcome(result, credits_used=rates.for_generation(Operation.SOUND))


def register() -> None:
    """Declare this feature's job kinds (called by the composition root, soundstage.app_tasks)."""
    handlers.declare(KIND, generate_sound, request=SoundJob, result=SoundResult)
    preload.declare("sound-effect prompt index", _load_prompt_index)


def _load_prompt_index(settings: Settings) -> None:
    index_for(get_embedder())  # the sentence embedder and the recipes' phrases embedded
