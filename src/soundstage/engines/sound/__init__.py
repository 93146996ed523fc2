"""The sound-effect synthesizer: a prompt read into a scene (elements matched onto recipes by
sentence embeddings, adjectives that steer them), each recipe synthesized from the DSP building
blocks (or General MIDI samples), then placed, layered and mixed. A seed gives the same samples."""
