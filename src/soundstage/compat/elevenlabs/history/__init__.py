"""ElevenLabs' history at `/elevenlabs/v1/history` (the SDK's `client.history`): the native
history's text-to-speech, dialogue and speech-to-speech generations in ElevenLabs' shapes."""
