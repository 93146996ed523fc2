"""Realtime WebSocket sessions, what every direction shares: slot processes (`slots`), the
session's job record, credits and client messages (`live`), the protocol's shared messages
and reading (`messages`), the gate (keys, single-use tokens, rate limits, close codes) and
send deadlines (`sending`). Each direction owns its protocol: `speech/<dir>/realtime_messages.py`
its messages, `speech/<dir>/realtime.py` its session, `speech/<dir>/realtime_endpoints.py` its
WebSocket."""
