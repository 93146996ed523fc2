"""The music composer: a prompt read into a brief, composed (form, harmony, melody), arranged
into a General MIDI score, rendered by FluidSynth, sung by a TTS voice when asked, and mastered.
Deterministic: every random choice comes from one seeded `random.Random`."""
