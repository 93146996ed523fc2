"""Request and response bodies of sound-effect generation."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator

from soundstage.core.schemas import RequestModel
from soundstage.engines.sound.recipes.base import Family
from soundstage.jobs.payloads import JobResult, MediaLink
from soundstage.jobs.schemas import CompletedJob

MAX_PROMPT_CHARACTERS = 500
MAX_SEED = 2**32 - 1


class SoundRequest(RequestModel):
    prompt: str = Field(
        min_length=1,
        max_length=MAX_PROMPT_CHARACTERS,
        description="What to hear, 1 to 500 characters with at least one letter or digit "
        "(otherwise 422): one sound or several joined by 'and', 'with', commas... ('rain on "
        "a tin roof with distant thunder', at most four layers). Never refused for what it "
        "says: a sound no recipe makes is a blend of the closest recipes (see `recipes` and "
        "`confidence` in the answer). Adjectives steer each sound: distant, close, heavy, "
        "light, short, long, deep, bright, metallic, muffled, indoor, outdoor (and common "
        "synonyms).",
        examples=["a dog barking in the distance"],
    )
    duration_seconds: int = Field(
        default=5, ge=1, le=30, description="Length of the output in whole seconds, 1 to 30."
    )
    format: Literal["wav", "mp3", "flac"] = Field(
        default="wav", description="`wav` (default, 16-bit PCM), `mp3` (192 kb/s) or `flac`."
    )
    seed: int | None = Field(
        default=None,
        ge=0,
        le=MAX_SEED,
        description="Beyond the spec: 0 to 4294967295. The same prompt, duration, format and "
        "seed give the same bytes. Without it a seed is drawn and returned in the response.",
    )

    @field_validator("prompt")
    @classmethod
    def _describes_something(cls, value: str) -> str:
        if not any(ch.isalnum() for ch in value):
            raise ValueError("must describe a sound in words")
        return value


class SoundLayer(BaseModel):
    recipe: str = Field(
        description="The layer's closest recipe (an ESC-50 class name, a production, sci-fi "
        "or interface effect, or a General MIDI effect), see GET "
        "/api/v1/creative/sound/recipes; `recipes` tells whether it was blended with others."
    )
    label: str
    text: str = Field(description="The words of the prompt this layer was made from.")
    similarity: float = Field(
        description="How closely the words matched the recipe (cosine "
        "similarity of sentence embeddings, 0 to 1)."
    )
    modifiers: list[str] = Field(description="Adjectives that steered this layer.")
    after_previous: bool = Field(
        description="Joined by 'then' or 'followed by': this layer starts once the previous "
        "layer's first sound has ended, and that layer stops there. Otherwise the layers play "
        "together from the start."
    )


class SoundRecipeUse(BaseModel):
    name: str = Field(description="The recipe, see GET /api/v1/creative/sound/recipes.")
    label: str
    family: Family
    weight: float = Field(
        ge=0,
        le=1,
        description="Its share of the sound's level, 0 to 1; the shares sum to 1. Within a "
        "layer the recipes share by their blend weights; layers share by their levels (a "
        "later layer sits 3 dB behind the first; adjectives move it).",
    )
    layer: int = Field(description="The index of the layer (in `layers`) it is part of.")


class SoundResult(JobResult):
    """The result of a `sound` job."""

    output_url: MediaLink = Field(
        description="Signed URL of the audio (44.1 kHz stereo); expires 24 h after issue."
    )
    duration_ms: int = Field(description="The file's real duration: the requested seconds.")
    seed: int = Field(
        description="Beyond the spec: the seed used; send it to get the same sound again."
    )
    layers: list[SoundLayer] = Field(
        description="Beyond the spec: what the prompt was "
        "understood as, one entry per layered sound."
    )
    recipes: list[SoundRecipeUse] = Field(
        description="Beyond the spec: every recipe the sound was made of, the largest share "
        "first. A layer whose words match no recipe surely (similarity below 0.6) is a blend "
        "of its two or three closest recipes, weighted by their similarity."
    )
    confidence: float = Field(
        ge=0,
        le=1,
        description="Beyond the spec: how closely the prompt matched what was made, 0 to 1 "
        "(the mean over layers of the similarity of the layer's words to its closest recipe). "
        "Above 0.6 the prompt named a sound a recipe makes; lower, the sound is the closest "
        "blend the service can make.",
    )


class SoundResponse(SoundResult, CompletedJob):
    credits_used: int = Field(description="150 a generation.")


class SoundRecipe(BaseModel):
    name: str
    label: str
    family: Family
    esc50: bool = Field(description="One of the 50 classes of the ESC-50 taxonomy.")
    examples: list[str] = Field(description="Prompts that select this recipe.")


class SoundRecipeList(BaseModel):
    object: Literal["list"] = "list"
    data: list[SoundRecipe]
    has_more: bool
