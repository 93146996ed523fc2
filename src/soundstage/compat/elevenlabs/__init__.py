"""The ElevenLabs API at `/elevenlabs`: text to speech (whole, streamed, with timestamps),
speech to text, sound generation, audio isolation, speech to speech, voices, models and the
subscription (`ElevenLabs(base_url="http://host:8000/elevenlabs")`)."""
