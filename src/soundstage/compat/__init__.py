"""Other APIs' dialects, mapped onto Soundstage's own services: the OpenAI audio API at `/v1`
and the ElevenLabs API at `/elevenlabs`, so that their official SDKs work by changing
`base_url`. The same engines, voices, credits, jobs, limits and keys as the native API: these
packages translate requests and answers, and do no audio work of their own."""
