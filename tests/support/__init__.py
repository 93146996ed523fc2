"""Helpers shared by the tests, by topic. Fixtures stay in the `conftest.py` files; what a
test calls (factories, HTTP assertions, local servers, processes) lives here, so that no test
file imports anything else of `tests/` (tests/test_structure.py checks it).

- `api`: assertions on the HTTP API (the error envelope) and walking paginated lists.
- `factories`: accounts, keys, verified buyers, studios and talent made through the services.
- `processes`: the repository root, free ports, and the environment of subprocesses
  (server, worker, CLI) started with the test settings.
- `offline`: no connection to another machine, in the test processes and the servers and
  workers they start (nothing is downloaded at run time).
- `servers`: HTTP servers on 127.0.0.1 (static files, webhook receivers).
- `audio`: audio files made in memory (WAV, FLAC, M4A, a Matroska whose header lies).
- `credits`, `jobs`, `storage`, `webhooks`, `studios`, `workforce`: one feature's helpers.
- `daw`, `music`, `sound`: the creative features' request and measurement helpers;
  `music_analysis` (tempo, key, loudness, pitch, measured independently), `paraphrases`
  (prompts for every sound recipe), `omf_reader` and `omf_importer_model` (OMF read back as
  DAWs read it).
- `audio_fixtures` (the LibriVox clips, word error rate), `mixtures` (speech over music or
  noise, SI-SDR), `listening` (TTS heard back by whisper), `dubbing`, `realtime_audio`:
  the speech tests' recordings and measures.
- `jobs_plugin` (job kinds of the job system's own tests, loaded as a deployment's plugin),
  `realtime_handlers` (a slot process's test session), `deployment` (nodes for fault tests).
"""
