"""ElevenLabs' pronunciation dictionaries (`/elevenlabs/v1/pronunciation-dictionaries`) on the
native dictionaries: their ids and version ids are the native ones, taken by text to speech's
`pronunciation_dictionary_locators` on either API."""
