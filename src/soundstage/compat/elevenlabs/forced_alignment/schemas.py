"""ElevenLabs' forced-alignment answer, as the official SDK (2.78) reads it: seconds."""

from __future__ import annotations

from pydantic import BaseModel, Field


class ElevenLabsAlignedCharacter(BaseModel):
    text: str
    start: float = Field(description="Seconds.")
    end: float = Field(description="Seconds.")


class ElevenLabsAlignedWord(BaseModel):
    text: str = Field(description="The word as written in the text, with its punctuation.")
    start: float = Field(description="Seconds.")
    end: float = Field(description="Seconds.")
    loss: float = Field(
        description="0 to 1: 1 - the recognizer's confidence in what it heard for the word "
        "(1 for a word it did not hear, placed between its neighbours by length)."
    )


class ElevenLabsForcedAlignment(BaseModel):
    characters: list[ElevenLabsAlignedCharacter]
    words: list[ElevenLabsAlignedWord]
    loss: float = Field(description="The words' mean loss: near 1 when the audio says otherwise.")
