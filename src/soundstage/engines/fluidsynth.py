"""FluidSynth with a General MIDI soundfont, shared by music (a score's parts) and sound effects
(General MIDI effect programs): finding the soundfont, typed errors, a fresh synthesizer for
each render over soundfonts loaded once per process, and notes played at exact frames into
float samples.

Soundfonts are loaded whole, once per process (MODELS, kind "soundfont"), by a synthesizer
that never plays; each render's fresh synthesizer borrows the loaded font for its life. A
render then costs no sample loading: FluidR3 (148 MB of samples) or MuseScore General (an
SF3, its Ogg Vorbis samples decoded once, about 515 MB) stays in memory per worker process,
at most one copy of each installed soundfont, a constant whatever the requests."""

from __future__ import annotations

import ctypes
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Literal

import numpy as np
import numpy.typing as npt

from soundstage.engines.cache import MODELS
from soundstage.engines.errors import EngineUnavailable

# Debian's fluid-soundfont-gm, then whichever General MIDI soundfont the system's default is.
SOUNDFONTS: Final = (
    Path("/usr/share/sounds/sf2/FluidR3_GM.sf2"),
    Path("/usr/share/sounds/sf2/default-GM.sf2"),
)
# Debian's musescore-general-soundfont (MuseScore General, MIT): an SF3 of 86 MB.
MUSESCORE_GENERAL: Final = (
    Path("/usr/share/sounds/sf3/MuseScore_General.sf3"),
    Path("/usr/share/sounds/sf3/MuseScore_General_Full.sf3"),
)
# The soundfonts a request may choose by name; the first is the default.
SoundfontName = Literal["fluidr3_gm", "musescore_general"]
DEFAULT_SOUNDFONT: Final[SoundfontName] = "fluidr3_gm"
DRUM_BANK: Final = 128
_FLUID_WARN: Final = 2  # FluidSynth's log level of warnings
_BLOCK_FRAMES: Final = 64  # FluidSynth's internal block
Stereo = npt.NDArray[np.float32]


class RendererUnavailable(EngineUnavailable):
    """The synthesizer or its soundfont is missing: not the user's fault (503)."""


@dataclass(frozen=True)
class Played:
    """One note as FluidSynth plays it: key down at `start`, up at `end` (seconds)."""

    start: float
    end: float
    key: int
    velocity: int


def find_soundfont(candidates: Sequence[Path] | None = None) -> Path:
    """The first General MIDI soundfont installed (of SOUNDFONTS unless told);
    RendererUnavailable if there is none."""
    found = next((path for path in candidates or SOUNDFONTS if path.is_file()), None)
    if found is None:
        raise RendererUnavailable("No General MIDI soundfont is installed (fluid-soundfont-gm).")
    return found


def soundfont_path(name: SoundfontName) -> Path:
    """The installed file of the named soundfont; RendererUnavailable (503) if it is not."""
    if name == "musescore_general":
        found = next((path for path in MUSESCORE_GENERAL if path.is_file()), None)
        if found is None:
            raise RendererUnavailable(
                "MuseScore General is not installed (musescore-general-soundfont)."
            )
        return found
    return find_soundfont()


def _library() -> tuple[Any, Any]:
    """pyfluidsynth and its float renderer, typed for ctypes (pyfluidsynth only wraps the
    16-bit one, which dithers), loaded once per process."""
    return MODELS.get("synthesizer library", "fluidsynth", _load_library)


def _load_library() -> tuple[Any, Any]:
    try:
        import fluidsynth
    except (ImportError, OSError) as exc:
        raise RendererUnavailable(f"FluidSynth is not available: {exc}.") from exc
    library = fluidsynth._fl
    _declare(library.fluid_synth_get_sfont_by_id, [ctypes.c_void_p, ctypes.c_int], ctypes.c_void_p)
    _declare(library.fluid_synth_add_sfont, [ctypes.c_void_p, ctypes.c_void_p], ctypes.c_int)
    _declare(library.fluid_synth_remove_sfont, [ctypes.c_void_p, ctypes.c_void_p], ctypes.c_int)
    _declare(library.fluid_set_log_function, [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p], None)
    # Warnings off (errors stay): a synthesizer giving back a borrowed font resets its
    # channels and warns, once per channel, that they have no preset left.
    library.fluid_set_log_function(_FLUID_WARN, None, None)
    write = library.fluid_synth_write_float
    write.argtypes = [
        ctypes.c_void_p,
        ctypes.c_int,
        ctypes.c_void_p,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_void_p,
        ctypes.c_int,
        ctypes.c_int,
    ]
    write.restype = ctypes.c_int
    return fluidsynth, write


def _declare(function: Any, argtypes: list[Any], restype: Any) -> None:
    function.argtypes = argtypes
    function.restype = restype


class LoadedFont:
    """A soundfont loaded whole by a synthesizer of its own that never plays (and is never
    deleted: the process keeps the font). Renders borrow it (Synth)."""

    def __init__(self, path: Path) -> None:
        fluidsynth, _ = _library()
        self.path = path
        self._owner: Any = fluidsynth.Synth(**{"synth.dynamic-sample-loading": 0})
        font_id = self._owner.sfload(str(path))
        if font_id < 0:
            self._owner.delete()
            raise RendererUnavailable(f"FluidSynth could not load {path}.")
        self.handle: int = fluidsynth._fl.fluid_synth_get_sfont_by_id(self._owner.synth, font_id)


def loaded_font(path: Path) -> LoadedFont:
    """The process's one loaded copy of the soundfont at `path` (loaded on first use; a
    failed load is not kept)."""
    return MODELS.get("soundfont", str(path), lambda: LoadedFont(path))


class Synth:
    """One render's synthesizer, used as a context manager. Each render gets a fresh one: a
    synthesizer that has played before keeps state (voices, block timing, modulators) that
    would make the same notes sound a little different from one render to the next, and a
    seed must give the same bytes. It borrows the process's loaded soundfont (loaded_font)
    and gives it back when closed. Its own reverb and chorus are off: the caller adds the
    space."""

    def __init__(self, sample_rate: int, *, gain: float, soundfont: Path | None = None) -> None:
        fluidsynth, self._write = _library()
        self.sample_rate = sample_rate
        self._loaded = loaded_font(soundfont or find_soundfont())
        self._library = fluidsynth._fl
        self._synth: Any = fluidsynth.Synth(
            gain=gain,
            samplerate=float(sample_rate),
            **{"synth.reverb.active": 0, "synth.chorus.active": 0, "synth.polyphony": 512},
        )
        self._font = self._library.fluid_synth_add_sfont(self._synth.synth, self._loaded.handle)

    def __enter__(self) -> Synth:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        # Given back first: deleting a synthesizer deletes the fonts it holds.
        self._library.fluid_synth_remove_sfont(self._synth.synth, self._loaded.handle)
        self._synth.delete()

    def play(
        self, channel: int, bank: int, program: int, notes: Iterable[Played], frames: int
    ) -> Stereo:
        """`frames` of `program` playing `notes` on `channel`: (frames, 2) float32. The synth is
        reset first, so one part never rings into the next."""
        synth = self._synth
        synth.system_reset()
        synth.program_select(channel, self._font, bank, program)
        events: list[tuple[int, int, int, int]] = []  # frame, 0 off / 1 on, key, velocity
        for note in notes:
            start = round(note.start * self.sample_rate)
            end = max(start + 1, round(note.end * self.sample_rate))
            events.append((start, 1, note.key, note.velocity))
            events.append((end, 0, note.key, 0))
        events.sort()
        out = np.zeros((2, frames), dtype=np.float32)
        position = 0
        for frame, kind, key, velocity in events:
            frame = min(frame, frames)
            self._fill(out, position, frame)
            position = max(position, frame)
            if kind:
                synth.noteon(channel, key, velocity)
            else:
                synth.noteoff(channel, key)
        self._fill(out, position, frames)
        synth.all_sounds_off(channel)
        # FluidSynth renders in blocks of 64 frames and keeps the rest of a block for the next
        # call: finish the block, so the next part starts on a block boundary.
        leftover = (-frames) % _BLOCK_FRAMES
        if leftover:
            self._fill(np.zeros((2, leftover), dtype=np.float32), 0, leftover)
        return np.ascontiguousarray(out.T)

    def _fill(self, out: npt.NDArray[np.float32], start: int, end: int) -> None:
        """Render frames start..end into out's two rows (left, right)."""
        if end <= start:
            return
        left, right = out[0], out[1]
        status = self._write(
            self._synth.synth,
            end - start,
            left.ctypes.data + 4 * start,
            0,
            1,
            right.ctypes.data + 4 * start,
            0,
            1,
        )
        if status != 0:
            raise RendererUnavailable("FluidSynth failed while rendering.")
