"""HTTP endpoints of sound effects: POST /api/v1/creative/sound and its recipe catalog."""

from __future__ import annotations

from fastapi import APIRouter

from soundstage.core.deps import DatabaseDep, PrincipalDep, SettingsDep
from soundstage.core.openapi import errors
from soundstage.core.pagination import PageDep, paginate_items
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.creative.sound import service
from soundstage.creative.sound.errors import RecipeNotFound
from soundstage.creative.sound.schemas import SoundRecipeList, SoundRequest, SoundResponse

router = APIRouter(
    prefix=f"{API_V1}/creative/sound", tags=["Creative"], route_class=UnitOfWorkRoute
)


@router.post(
    "",
    response_model=SoundResponse,
    responses=errors(402, 409, 504),
)
async def generate_sound(
    body: SoundRequest, db: DatabaseDep, settings: SettingsDep, principal: PrincipalDep
) -> SoundResponse:
    """Generate a sound effect from a text prompt: one or several layered sounds (every ESC-50
    class, vehicles, crowds, production, sci-fi and interface effects), steered by
    adjectives, exactly `duration_seconds` long. No prompt is refused for what it says: a
    sound no recipe makes is a blend of the closest recipes, reported in `recipes` with a
    `confidence`; 422 only for an empty prompt (no letter or digit), one over 500
    characters, or another field out of bounds. Charged 150 credits a generation, only when
    the audio is ready; the signed `output_url` expires 24 h after issue."""
    return await service.generate(db, settings, principal, body)


@router.get("/recipes", response_model=SoundRecipeList)
async def list_sound_recipes(principal: PrincipalDep, page: PageDep) -> SoundRecipeList:
    """Beyond the spec: the sounds the generator knows, with example prompts for each; paged
    like every list (the cursors take a recipe's `name`)."""
    recipes, has_more = paginate_items(
        service.recipe_catalog().data, page, lambda r: r.name, RecipeNotFound
    )
    return SoundRecipeList(data=recipes, has_more=has_more)
