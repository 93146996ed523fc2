"""Speaker analysis: speech regions (silero-vad), speaker embeddings (resemblyzer) and
diarization (who spoke when), with no HTTP of its own."""
