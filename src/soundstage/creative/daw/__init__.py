"""DAW export: POST /api/v1/creative/daw compiles tracks into stems and an AAF or OMF session."""
