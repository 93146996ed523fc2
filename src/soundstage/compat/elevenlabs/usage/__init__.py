"""ElevenLabs' usage statistics (`/elevenlabs/v1/usage`) from the credits ledger."""
