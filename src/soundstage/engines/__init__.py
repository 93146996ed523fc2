"""Engines: the model-backed capabilities the features use, apart from the features.

Text-to-speech engines, transcribers, speaker models, separators, translators, voice
converters and the creative engines (sentence embedder, FluidSynth) move here from
`speech/` and `creative/` (issue 19); `cache` (models loaded once per process) and `registry`
(engines by name) came first. Engines may import `core`; features import engines; an engine
imports no feature and no job system (import-linter checks it).
"""
