"""ElevenLabs forced alignment, onto the native one."""
