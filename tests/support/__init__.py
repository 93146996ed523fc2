"""Helpers shared by the tests, by topic. Fixtures stay in the `conftest.py` files; what a
test calls (factories, HTTP assertions, local servers, processes) lives here, so that no test
module imports another test module or a conftest (tests/test_structure.py checks it).

- `api`: assertions on the HTTP API (the error envelope) and walking paginated lists.
- `factories`: accounts, keys, verified buyers, studios and talent made through the services.
- `processes`: the repository root, free ports, and the environment of subprocesses
  (server, worker, CLI) started with the test settings.
- `servers`: HTTP servers on 127.0.0.1 (static files, webhook receivers).
- `audio`: audio files made in memory (WAV, FLAC, M4A, a Matroska whose header lies).
- `credits`, `jobs`, `storage`, `webhooks`, `studios`, `workforce`: one feature's helpers.
- `daw`, `music`, `sound`: the creative features' request and measurement helpers.
"""
