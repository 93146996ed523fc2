"""The sound-effect job: understand the prompt (the sentence model loads once per worker
process), render the scene, encode and store it."""

from __future__ import annotations

from typing import Any

from soundstage.creative.sound import scene
from soundstage.creative.sound.embedder import get_embedder
from soundstage.creative.sound.interpret import Element, confidence, index_for, interpret
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.jobs.handlers import JobContext, JobOutcome, register

KIND = "sound"


def describe(element: Element) -> dict[str, Any]:
    return {
        "recipe": element.recipe.name,
        "label": element.recipe.label,
        "text": element.text,
        "similarity": element.similarity,
        "modifiers": list(element.steering.modifiers),
        "after_previous": element.after_previous,
    }


@register(KIND)
def generate_sound(ctx: JobContext) -> JobOutcome:
    request: dict[str, Any] = ctx.request
    ctx.progress(0.0, "interpreting")
    elements = interpret(request["prompt"], index_for(get_embedder()))
    ctx.progress(0.1, "rendering")
    audio = scene.render(elements, int(request["duration_seconds"]), int(request["seed"]))
    ctx.progress(0.9, "encoding")
    fmt = request["format"]
    output, duration_ms = ctx.save_audio(audio, f"sound.{fmt}", fmt)
    result = {
        "output_url": output,
        "duration_ms": duration_ms,
        "seed": request["seed"],
        "layers": [describe(element) for element in elements],
        "recipes": [
            {
                "name": recipe.name,
                "label": recipe.label,
                "family": recipe.family,
                "weight": round(share, 3),
                "layer": layer,
            }
            for layer, recipe, share in scene.shares(elements)
        ],
        "confidence": confidence(elements),
    }
    return JobOutcome(result, credits_used=rates.for_generation(Operation.SOUND))
