"""Realtime WebSocket sessions: slot processes, the session's job record and credits, and
the gate (keys, single-use tokens, rate limits, close codes). Features own their protocols
(speech/tts/realtime_endpoints.py, speech/stt/realtime_endpoints.py)."""
