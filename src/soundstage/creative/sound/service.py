"""Sound-effect generation as the endpoints see it: price it, run the job, answer its file;
and the recipe catalog."""

from __future__ import annotations

import secrets
from typing import Any

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.principal import Principal
from soundstage.creative.sound.schemas import (
    MAX_SEED,
    SoundRecipe,
    SoundRecipeList,
    SoundRequest,
    SoundResponse,
)
from soundstage.creative.sound.tasks import KIND, SoundJob
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.engines.sound.recipes import RECIPES
from soundstage.jobs import service as jobs


async def generate(
    db: Database,
    settings: Settings,
    principal: Principal,
    body: SoundRequest,
    *,
    encoding: str | None = None,
) -> SoundResponse:
    """`encoding` (a name of media.encodings) makes the sound in that encoding, at its exact
    rate and bit rate, rather than `body.format` (for the compatible APIs)."""
    # The seed is fixed before the job runs, so a job run again (a worker lost) makes the
    # same sound, and the answer can tell it.
    seed = body.seed if body.seed is not None else secrets.randbelow(MAX_SEED + 1)
    request = SoundJob(
        prompt=body.prompt,
        duration_seconds=body.duration_seconds,
        format=body.format,
        seed=seed,
        encoding=encoding,
    )
    credits = rates.for_generation(Operation.SOUND)
    job = await jobs.run(db, settings, principal, KIND, request, credits_needed=credits)
    result = job.result or {}
    return SoundResponse.of(
        job,
        recipes=result.get("recipes") or _recipes(result),
        confidence=result.get("confidence", _confidence(result)),
    )


# A job finished before `recipes` and `confidence` were recorded (resumed under its
# Idempotency-Key) is answered from its layers: each layer one recipe, sharing equally.
def _recipes(result: dict[str, Any]) -> list[dict[str, Any]]:
    layers = result["layers"]
    return [
        {
            "name": layer["recipe"],
            "label": layer["label"],
            "family": RECIPES[layer["recipe"]].family,
            "weight": round(1 / len(layers), 3),
            "layer": index,
        }
        for index, layer in enumerate(layers)
    ]


def _confidence(result: dict[str, Any]) -> float:
    similarities = [min(max(layer["similarity"], 0.0), 1.0) for layer in result["layers"]]
    return round(sum(similarities) / len(similarities), 3) if similarities else 0.0


def recipe_catalog() -> SoundRecipeList:
    return SoundRecipeList(
        data=[
            SoundRecipe(
                name=recipe.name,
                label=recipe.label,
                family=recipe.family,
                esc50=recipe.esc50,
                examples=list(recipe.descriptions),
            )
            for recipe in RECIPES.values()
        ],
        has_more=False,
    )
