"""ElevenLabs' music composition (`/elevenlabs/v1/music`) on the native music generator."""
