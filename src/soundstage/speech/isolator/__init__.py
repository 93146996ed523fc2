"""Voice isolation: POST /api/v1/speech/isolator."""
