"""What the realtime tests share: a session's job and the account's wallets read back, and
raw 16-bit PCM received turned back into audio, a raw WebSocket client whose reading the test
controls, and the turns at the cores of a handler run in-process."""

from __future__ import annotations

import multiprocessing
import os
import socket
import struct
import time

import numpy as np
from websockets.client import ClientProtocol
from websockets.frames import Frame
from websockets.http11 import Request, Response
from websockets.uri import parse_uri

from soundstage.core.db import Database
from soundstage.media.audio import Audio
from soundstage.models import Job
from soundstage.realtime.slots import SlotShare
from soundstage.realtime.turns import CoreTurns, SlotTurns
from tests.support.credits import wallet_sums
from tests.support.factories import Customer

# A story of about 1,100 characters, for sessions that speak at length.
LIGHTHOUSE = (
    "The old lighthouse stood at the edge of the cliff, its white paint peeling in the salt "
    "wind. Every evening the keeper climbed the spiral stairs, counted the steps out of habit, "
    "and lit the great lamp that swept across the dark water. Ships passing in the night "
    "never saw him, but they trusted the light. One winter a storm tore the shutters from "
    "the windows and flooded the lower rooms. The keeper worked through the night, bailing "
    "water and keeping the flame alive. By morning the sea had calmed, and a fishing boat "
    "that had been lost in the fog found its way home. The captain climbed the hill to thank "
    "him, carrying a basket of bread and smoked fish. They sat together on the bench by the "
    "door and watched the gulls circle above the harbor. Neither of them said much, but both "
    "understood that the light had mattered more than words ever could on such a long night. "
    "In spring the keeper painted the tower again, and children from the village came to "
    "watch, asking about the storm until he told the story one more time."
)


def job_of(db: Database, job_id: str) -> Job:
    with db.session() as session:
        job = session.get(Job, job_id)
        assert job is not None
        session.expunge(job)
        return job


def wallets(db: Database, customer: Customer) -> dict[str, int]:
    sums = wallet_sums(db, customer.account_id, "sandbox")
    return {wallet: sums.get(wallet, 0) for wallet in ("available", "reserved", "consumed")}


def pcm_audio(data: bytes, sample_rate: int) -> Audio:
    """Raw signed 16-bit little-endian mono, as the pcm_* formats send it."""
    samples = np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768.0
    return Audio(np.ascontiguousarray(samples.reshape(-1, 1)), sample_rate)


class RawClient:
    """A WebSocket client over a plain socket (websockets' sans-I/O protocol) that reads only
    when the test asks: it can stop reading altogether (answering no ping, taking nothing),
    with a receive buffer as small as the test likes, and send a frame only in part."""

    def __init__(self, url: str, headers: dict[str, str], *, receive_buffer: int = 0) -> None:
        uri = parse_uri(url)
        self.frames: list[Frame] = []
        self.sock = socket.socket()
        if receive_buffer:  # before connecting: the window the client offers stays small
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        self.sock.connect((uri.host, uri.port))
        self.protocol = ClientProtocol(uri, max_size=None)
        request = self.protocol.connect()
        for name, value in headers.items():
            request.headers[name] = value
        self.protocol.send_request(request)
        self._flush()
        while self.protocol.handshake_exc is None and not self._accepted():
            self._read(timeout=30)
        if self.protocol.handshake_exc is not None:
            raise self.protocol.handshake_exc

    def _accepted(self) -> bool:
        return any(isinstance(event, Response) for event in self._events())

    def _events(self) -> list[Frame | Response | Request]:
        events = self.protocol.events_received()
        self.frames.extend(event for event in events if isinstance(event, Frame))
        return events

    def _flush(self) -> None:
        for data in self.protocol.data_to_send():
            if data:
                self.sock.sendall(data)

    def _read(self, timeout: float) -> bool:
        """Reads what the server sent (False at the end of the connection)."""
        self.sock.settimeout(timeout)
        data = self.sock.recv(65536)
        if not data:
            self.protocol.receive_eof()
            return False
        self.protocol.receive_data(data)
        self._flush()  # pongs, the close frame's echo
        return True

    def next_frame(self, timeout: float) -> Frame:
        """The server's next data frame (text or binary), read within `timeout`."""
        deadline = time.monotonic() + timeout
        while not self.frames:
            left = deadline - time.monotonic()
            if left <= 0 or not self._read(left):
                raise TimeoutError("no frame from the server")
            self._events()
        return self.frames.pop(0)

    def send_text(self, text: str) -> None:
        self.protocol.send_text(text.encode())
        self._flush()

    def send_frame_start(self, declared: int, sent: int) -> None:
        """The start of a binary frame declaring `declared` bytes: its header and the first
        `sent` bytes of its (masked) payload, the rest never sent."""
        mask = os.urandom(4)
        header = bytes([0x82, 0x80 | 127]) + struct.pack("!Q", declared) + mask
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(b"\0" * sent))
        self.sock.sendall(header + payload)

    def close_code(self, timeout: float) -> int | None:
        """Reads until the server closes: its close frame's code (None when the connection
        ended without one); TimeoutError when nothing more comes within `timeout`."""
        deadline = time.monotonic() + timeout
        while self.protocol.close_rcvd is None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the server did not close the connection")
            if not self._read(left):
                break
            self._events()
        return self.protocol.close_rcvd.code if self.protocol.close_rcvd else None

    def tcp_state(self) -> int:
        """The connection's TCP state as the kernel sees it (TCP_ESTABLISHED is 1), read
        without reading any data."""
        return self.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0]

    def close(self) -> None:
        self.sock.close()


def lone_turns() -> SlotTurns:
    """The turns of a pool of one slot with one turn: a handler run in-process decodes as
    its slot would with the cores to itself."""
    return CoreTurns(multiprocessing.get_context("spawn"), count=1, slots=1).of_slot(0)


def lone_share(turns: SlotTurns | None = None) -> SlotShare:
    """A slot's share (these turns, by default lone_turns()) in a pool with no batch process:
    a handler run in-process does all its work itself."""
    return SlotShare(turns or lone_turns(), None)
