"""Request and response bodies of sound-effect generation."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator

from soundstage.core.schemas import RequestModel

MAX_PROMPT_CHARACTERS = 500
MAX_SEED = 2**32 - 1


class SoundRequest(RequestModel):
    prompt: str = Field(
        min_length=1,
        max_length=MAX_PROMPT_CHARACTERS,
        description="What to hear, 1 to 500 characters: one sound or several joined by "
        "'and', 'with', commas... ('rain on a tin roof with distant thunder', at most four "
        "layers). Adjectives steer each sound: distant, close, heavy, light, short, long, "
        "metallic, muffled, indoor, outdoor (and common synonyms).",
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
        description="The synthesis recipe used (an ESC-50 class name, a "
        "production effect or a General MIDI effect), see GET /api/v1/creative/sound/recipes."
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


class SoundResponse(BaseModel):
    object: Literal["job"] = "job"
    job_id: str
    status: Literal["completed"]
    output_url: str = Field(
        description="Signed URL of the audio (44.1 kHz stereo); expires 24 h after issue."
    )
    duration_ms: int = Field(description="The file's real duration: the requested seconds.")
    credits_used: int = Field(description="150 a generation.")
    seed: int = Field(
        description="Beyond the spec: the seed used; send it to get the same sound again."
    )
    layers: list[SoundLayer] = Field(
        description="Beyond the spec: what the prompt was "
        "understood as, one entry per layered sound."
    )


class SoundRecipe(BaseModel):
    name: str
    label: str
    family: Literal["animals", "nature", "human", "domestic", "urban", "production"]
    esc50: bool = Field(description="One of the 50 classes of the ESC-50 taxonomy.")
    examples: list[str] = Field(description="Prompts that select this recipe.")


class SoundRecipeList(BaseModel):
    object: Literal["list"] = "list"
    data: list[SoundRecipe]
    has_more: bool
