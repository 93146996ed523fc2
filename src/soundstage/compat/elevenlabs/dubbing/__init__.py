"""ElevenLabs' dubbing (`/elevenlabs/v1/dubbing`) on the native dubbing job: a dub's id is its
job's id."""
