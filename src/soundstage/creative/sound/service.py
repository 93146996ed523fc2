"""Sound-effect generation as the endpoints see it: price it, run the job, answer its file;
and the recipe catalog."""

from __future__ import annotations

import secrets

from starlette.concurrency import run_in_threadpool

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.principal import Principal
from soundstage.creative.sound.recipes import RECIPES
from soundstage.creative.sound.schemas import (
    MAX_SEED,
    SoundLayer,
    SoundRecipe,
    SoundRecipeList,
    SoundRecipeUse,
    SoundRequest,
    SoundResponse,
)
from soundstage.creative.sound.tasks import KIND
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.jobs import service as jobs


async def generate(
    db: Database, settings: Settings, principal: Principal, body: SoundRequest
) -> SoundResponse:
    # The seed is fixed before the job runs, so a job run again (a worker lost) makes the
    # same sound, and the answer can tell it.
    seed = body.seed if body.seed is not None else secrets.randbelow(MAX_SEED + 1)
    request = {**body.model_dump(), "seed": seed}
    credits = rates.for_generation(Operation.SOUND)
    job = await jobs.submit_and_wait(db, settings, principal, KIND, request, credits_needed=credits)
    await run_in_threadpool(jobs.raise_for_failure, db, job)
    result = job.result or {}
    return SoundResponse(
        job_id=job.job_id,
        status="completed",
        output_url=result["output_url"],
        duration_ms=result["duration_ms"],
        credits_used=job.credits_used or 0,
        seed=result["seed"],
        layers=[SoundLayer(**layer) for layer in result["layers"]],
        recipes=[SoundRecipeUse(**used) for used in result["recipes"]],
        confidence=result["confidence"],
    )


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
        ]
    )
