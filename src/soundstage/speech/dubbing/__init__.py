"""Automated dubbing: POST /api/v1/speech/dubbing (asynchronous) and the supported language
pairs. The job isolates the voices, transcribes them with speakers, translates each
utterance, says it again in the target language with a voice per speaker, fits it into the
source's time span, mixes it over the background and writes audio or video."""
