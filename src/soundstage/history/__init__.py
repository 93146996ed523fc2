"""The history of generations: the caller's finished text-to-speech, dialogue, sound, music and
voice-changer jobs as a list of what was made, each with its audio, deletable."""
