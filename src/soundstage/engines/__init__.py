"""Engines: the model-backed capabilities the features use, apart from the features.

`tts` (text-to-speech, `SpeechSynthesizer`), `transcribers` (speech-to-text, `Transcriber`),
`speakers` (VAD, speaker embeddings, diarization), `separators` (voice isolation),
`translators` (machine translation), `conversion` (voice conversion), `dsp` (Rubber Band),
`fluidsynth` (General MIDI rendering) and `embedder` (sentence embeddings for sound prompts).
`cache` loads each model once per process; `registry` gives engines by name. An engine imports
`core`, `media` and other engines only, never a feature or the job system (import-linter
checks it); features import engines.
"""
