"""The OpenAI audio API at `/v1`: speech, transcriptions, translations, models and voices
(`openai.OpenAI(base_url="http://host:8000/v1")`)."""
