"""ElevenLabs text to dialogue, onto the native dialogue."""
