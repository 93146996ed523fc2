"""HTTP endpoints of sound effects: POST /api/v1/creative/sound and its recipe catalog."""

from __future__ import annotations

from fastapi import APIRouter, Request

from soundstage.core.deps import PrincipalDep
from soundstage.core.openapi import errors
from soundstage.core.pagination import PageDep, paginate_items
from soundstage.creative.sound import service
from soundstage.creative.sound.errors import RecipeNotFound
from soundstage.creative.sound.schemas import SoundRecipeList, SoundRequest, SoundResponse

router = APIRouter(tags=["Creative"])


@router.post(
    "/creative/sound",
    response_model=SoundResponse,
    responses=errors(402, 409, 504),
)
async def generate_sound(
    body: SoundRequest, request: Request, principal: PrincipalDep
) -> SoundResponse:
    """Generate a sound effect from a text prompt: one or several layered sounds (every ESC-50
    class and common production effects), steered by adjectives, exactly `duration_seconds`
    long. Charged 150 credits a generation, only when the audio is ready; the signed
    `output_url` expires 24 h after issue. A prompt that names no sound the service can make
    is 422 `prompt_not_understood`."""
    state = request.app.state
    return await service.generate(state.db, state.settings, principal, body)


@router.get("/creative/sound/recipes", response_model=SoundRecipeList)
async def list_sound_recipes(principal: PrincipalDep, page: PageDep) -> SoundRecipeList:
    """Beyond the spec: the sounds the generator knows, with example prompts for each; paged
    like every list (the cursors take a recipe's `name`)."""
    recipes, has_more = paginate_items(
        service.recipe_catalog().data, page, lambda r: r.name, RecipeNotFound
    )
    return SoundRecipeList(data=recipes, has_more=has_more)
