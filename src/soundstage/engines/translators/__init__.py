"""Machine translation for dubbing: a Translator protocol, a registry that routes a language
pair to an engine (directly or through a pivot language), Apertium and Whisper's own speech
translation into English."""
