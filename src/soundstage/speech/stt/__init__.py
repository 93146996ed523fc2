"""Speech-to-text: POST /api/v1/speech/stt and the transcript as subtitles."""
