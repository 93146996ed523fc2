"""Range requests on stored objects (storage/serving.py): which bytes a `Range` header asks
of an object, and the local store answered the same way (FileResponse) as S3 is (streamed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import FastAPI, Request
from fastapi.responses import Response
from fastapi.testclient import TestClient

from soundstage.storage.backend import LocalMediaStore, MediaObjectMissing
from soundstage.storage.serving import object_response, parse_range


@pytest.mark.parametrize(
    ("header", "wanted"),
    [
        ("bytes=0-99", (0, 99)),
        ("bytes=990-", (990, 999)),
        ("bytes=990-5000", (990, 999)),  # an end past the object is cut to it
        ("bytes=-10", (990, 999)),
        ("bytes=-5000", (0, 999)),
        ("bytes=999-999", (999, 999)),  # the last byte: inside
        ("bytes=1000-", "unsatisfiable"),  # one past it: outside
        ("bytes=-0", "unsatisfiable"),
        ("bytes=5-4", None),  # malformed: answered whole
        ("bytes=0-1,5-6", None),  # several ranges: answered whole
        ("items=0-1", None),
        ("bytes=²-3", None),
        ("bytes=-", None),
    ],
)
def test_the_range_a_header_asks_of_a_thousand_bytes(
    header: str, wanted: tuple[int, int] | str | None
) -> None:
    assert parse_range(header, 1000) == wanted


def test_the_local_store_serves_ranges_and_streams_what_it_holds(tmp_path: Path) -> None:
    store = LocalMediaStore(tmp_path / "media")
    data = bytes(range(256)) * 4
    source = tmp_path / "source"
    source.write_bytes(data)
    store.put("k/clip.bin", source)
    assert store.size("k/clip.bin") == len(data)
    assert b"".join(store.open_range("k/clip.bin", 10, 19)) == data[10:20]
    assert b"".join(store.open_range("k/clip.bin", 1000)) == data[1000:]
    assert store.download_to("k/clip.bin", tmp_path / "copy").read_bytes() == data
    with pytest.raises(MediaObjectMissing):
        store.open_range("k/none.bin")
    assert store.size("k/none.bin") is None

    app = FastAPI()

    @app.get("/o")
    def serve(request: Request) -> Response:
        return object_response(
            store,
            "k/clip.bin",
            content_type="application/octet-stream",
            filename="clip.bin",
            range_header=request.headers.get("range"),
        )

    with TestClient(app) as client:
        assert client.get("/o").content == data
        part = client.get("/o", headers={"Range": "bytes=1020-"})
        assert (part.status_code, part.content) == (206, data[1020:])
        assert part.headers["content-range"] == f"bytes 1020-1023/{len(data)}"
