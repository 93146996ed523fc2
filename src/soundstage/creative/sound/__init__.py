"""Sound effects from a text prompt: POST /api/v1/creative/sound."""
