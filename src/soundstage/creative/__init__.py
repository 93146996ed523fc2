"""Creative operations: sound effects, music and DAW export."""
