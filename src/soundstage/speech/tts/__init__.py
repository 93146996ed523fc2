"""Text-to-speech: POST /api/v1/speech/tts."""
