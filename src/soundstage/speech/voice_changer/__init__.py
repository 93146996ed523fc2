"""Voice changer (speech to speech): POST /api/v1/speech/voice-changer."""
