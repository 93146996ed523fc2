"""Music generation: POST /api/v1/creative/music."""
