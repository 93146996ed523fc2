"""The session as AAF, written with pyaaf2 in the layout Pro Tools exchanges multichannel audio in.

Layout (one per track, whatever its channel count):

- a top-level CompositionMob with a timecode slot (the session start) and one sound
  TimelineMobSlot per track at the sample rate, named after the track and numbered by
  PhysicalTrackNumber, whose Sequence holds a Filler up to the clip, then the clip;
- the clip of a mono track is a SourceClip; the clip of a track of n >= 2 channels is an
  OperationGroup `Audio Channel Combiner` whose n InputSegments are one SourceClip per
  channel, in channel order (clip gain, when asked, is an Audio Gain OperationGroup around it);
- per track a MasterMob (the track's name) with one sound slot per channel, PhysicalTrackNumber
  1..n, each pointing at its own file SourceMob: one mono essence per channel, never a
  multichannel one. Embedded, a PCMDescriptor (Channels 1) with the channel's samples as
  EssenceData; linked, a WAVEDescriptor with a NetworkLocator to a mono WAVE file (the mono
  stem itself, or `stems/<stem>.L.wav`, `.R.wav` (stereo), `.A1.wav`... split from a
  multichannel stem by `channels.split_channels`). The file SourceMob is named after that file
  (`02_Music.L.wav`), so a reader relinking by name finds it;
- each file SourceMob's slot points at the same slot of a tape SourceMob (one per track, one
  sound slot per channel and a timecode slot) on which the stem starts at the session start's
  timecode, so "spot to original time" finds the session position.

The SourceClips enter the essence at the clip's offset (stems start at the session start), so
the timeline plays exactly the stem's samples and the clip can be extended to the stem's ends.

Why this layout (issue 21: LibAAF, the reader of Ardour 8, read every track as MONO and kept
channel 1, since the stem was one 2-channel essence and the clip pointed at its channel 1):

- LibAAF (agfline/LibAAF, src/AAFIface/AAFIParser.c, `parse_OperationGroup` and
  `parse_SourceClip`) recognises a multichannel clip only as an AudioChannelCombiner
  (AUID 6b46dd7a-132d-4856-ab21-8b751d8462ec, AAFOperationDefs.h: "the way ProTools represents
  Stereo (5.1, 7.1) Tracks whenever 'Export Stereo, 5.1 and 7.1 tracks as multi-channel' is
  enabled"): its first input SourceClip makes the clip, each further input adds the essence
  of its MasterMob slot, and 2, 6 or 8 inputs make the track STEREO, 5.1 or 7.1. A plain
  SourceClip makes a MONO track. Its test list (test/README.md) has "Multichannel stereo /
  5.1 / 7.1 from multiple mono source files". Ardour's importer (gtk2_ardour/ardour_ui_aaf.cc,
  `import_sndfile_as_region`) builds the region from one source per essence pointer, so each
  channel must be its own file. Two unrelated mono tracks, the other layout the issue allows,
  would lose the pairing in every DAW: not chosen.
- pyaaf2 PR #150 (markreidvfx/pyaaf2, "Add multichannel audio tests and example") documents the
  same structure from Pro Tools exports: one composition slot per multichannel track, a
  Sequence of Audio Channel Combiner OperationGroups each wrapping one mono SourceClip per
  channel, one mono PCMDescriptor SourceMob and tape SourceMob per channel. pyaaf2's own
  linking (aaf2/ama.py `create_media_link`) gives a MasterMob one sound slot per channel with
  PhysicalTrackNumber 1..n, which LibAAF reads as the channel of each essence pointer.
- OpenTimelineIO's AAF adapter reads the combiner as a Stack holding one track per channel
  (`_transcribe_operation_group`), each with the channel's clip at the track's position.
- AAF Object Specification v1.1: OperationGroup (sec. 9.3) with InputSegments; SourceClip into
  a MasterMob slot (sec. 7.5); NetworkLocator URLString an absolute URL (RFC 1738) or a URI
  relative to the AAF file (sec. 13.3). LibAAF's URI parser (URIParser.c) requires a scheme,
  so a relative `stems/...` failed; written here as an absolute, percent-encoded
  `file:///<project folder>/stems/<file>` URI.
- Linked media: LibAAF (AAFIEssenceFile.c, `aafi_locate_external_essence_file`) does not need
  that absolute path to exist: it tries the URI's path under the AAF file's folder from the
  file name up (`<aaf dir>/stems/<file>` when unzipped as delivered). Pro Tools, Resolve,
  Nuendo and Logic relink a missing file by its name (the file SourceMob's name and the URI's
  last part, unique per export) when pointed at the `stems/` folder.
- WAVEDescriptor Summary: the 44-byte header of the mono file (RIFF size = 36 + data bytes,
  `fmt `, `data` with its size), as Pro Tools writes it; pyaaf2's `get_wave_fmt` copied the
  RIFF size of the whole file and no `data` chunk, which LibAAF rejected.
- Identification: company, product, version (ProductVersion, ProductVersionString), a fixed
  ProductID, the toolkit (pyaaf2) version and platform, as DAWs identify themselves. LibAAF
  writes "<ProductName> <ProductVersionString>" into a 32-byte BWF field when it extracts
  embedded audio (and asserts it fits): the two together stay under 31 characters.
"""

from __future__ import annotations

import importlib.metadata
import platform
import re
from fractions import Fraction
from pathlib import Path, PurePosixPath
from typing import Any, Final
from urllib.parse import quote

import aaf2
from aaf2.auid import AUID

from soundstage import __version__
from soundstage.formats.channels import (
    channel_bytes,
    channel_file_name,
    linked_ref,
    mono_wave_header,
)
from soundstage.formats.session import Session, SessionTrack

# OperationDef_MonoAudioGain and ParameterDef_Amplitude of the AAF object specification.
_AUDIO_GAIN: Final = "9d2ea894-0968-11d3-8a38-0050040ef7d2"
_AMPLITUDE: Final = "e4962321-2267-11d3-8a4c-0050040ef7d2"
# The Audio Channel Combiner of Pro Tools' multichannel clips (LibAAF AAFOperationDefs.h).
AUDIO_CHANNEL_COMBINER: Final = "6b46dd7a-132d-4856-ab21-8b751d8462ec"

COMPANY_NAME: Final = "Soundstage"
PRODUCT_NAME: Final = "Soundstage"
# This product's own identifier (ProductID), fixed for every version.
PRODUCT_ID: Final = "5f0c2d7e-3a41-4e8b-9b6d-1c7a2e94d3b5"


def product_version(version: str) -> dict[str, int]:
    """A version string as the AAF ProductVersion record: major, minor, tertiary, patchLevel
    and type (1 VersionReleased; 4 VersionBeta for a pre-release such as 0.2.0rc1)."""
    numbers = [int(part) for part in re.findall(r"\d+", version.split("+", 1)[0])[:4]]
    numbers += [0] * (4 - len(numbers))
    release = 4 if re.search(r"(a|b|rc|dev)\d*", version) else 1
    major, minor, tertiary, patch = numbers
    return {"major": major, "minor": minor, "tertiary": tertiary, "patchLevel": patch,
            "type": release}  # fmt: skip


def write_aaf(session: Session, path: Path) -> None:
    with aaf2.open(str(path), "w", extensions=True) as aaf:
        _identify(aaf)
        composition = aaf.create.CompositionMob(session.name)
        composition.usage = "Usage_TopLevel"
        aaf.content.mobs.append(composition)
        _timecode_slot(aaf, composition, session)
        for number, track in enumerate(session.tracks, start=1):
            master = _master_mob(aaf, session, track)
            slot = composition.create_sound_slot(edit_rate=session.sample_rate)
            slot.name = track.name
            slot["PhysicalTrackNumber"].value = number
            components = []
            if track.offset_frames:
                components.append(aaf.create.Filler("sound", track.offset_frames))
            clip = _clip(aaf, master, track)
            components.append(_with_clip_gain(aaf, clip, track.clip_gain_db))
            slot.segment.components.extend(components)
            slot.segment.length = track.offset_frames + track.audio_frames


def _clip(aaf: Any, master: Any, track: SessionTrack) -> Any:
    """The track's clip: one SourceClip per MasterMob slot (channel), combined into one
    multichannel clip when there are several."""
    clips = [
        master.create_source_clip(
            slot_id=slot.slot_id, start=track.offset_frames, length=track.audio_frames
        )
        for slot in master.slots
    ]
    if len(clips) == 1:
        return clips[0]
    # First: pyaaf2's factory remembers the last class asked for, so no definition may be
    # created between `aaf.create.OperationGroup` and its call.
    combiner = _channel_combiner(aaf)
    group = aaf.create.OperationGroup(combiner, length=track.audio_frames, media_kind="sound")
    group.segments.extend(clips)
    return group


def _channel_combiner(aaf: Any) -> Any:
    dictionary = aaf.dictionary
    try:
        return dictionary.lookup_operationdef(AUDIO_CHANNEL_COMBINER)
    except Exception:  # pyaaf2 raises a bare Exception for a definition not yet there
        operation = aaf.create.OperationDef(
            AUDIO_CHANNEL_COMBINER, "Audio Channel Combiner", "Mono channels into one clip"
        )
        operation.media_kind = "sound"
        operation["NumberInputs"].value = -1  # any number of channels
        operation["IsTimeWarp"].value = False
        dictionary.register_def(operation)
        return operation


def _with_clip_gain(aaf: Any, clip: Any, gain_db: float) -> Any:
    """The clip inside an Audio Gain operation (clip gain, as Pro Tools writes it) whose
    constant Amplitude is the linear gain; the clip itself at 0 dB."""
    if gain_db == 0:
        return clip
    dictionary = aaf.dictionary
    try:
        operation = dictionary.lookup_operationdef(_AUDIO_GAIN)
        amplitude = dictionary.lookup_parameterdef(_AMPLITUDE)
    except Exception:  # pyaaf2 raises a bare Exception for a definition not yet there
        operation = aaf.create.OperationDef(_AUDIO_GAIN, "Audio Gain", "Clip gain")
        operation.media_kind = "sound"
        operation["NumberInputs"].value = 1
        operation["IsTimeWarp"].value = False
        operation["Bypass"].value = 1
        amplitude = aaf.create.ParameterDef(_AMPLITUDE, "Amplitude", "Linear gain", "Rational")
        operation["ParametersDefined"].append(amplitude)
        dictionary.register_def(operation)
        dictionary.register_def(amplitude)
    group = aaf.create.OperationGroup(operation, length=clip.length, media_kind="sound")
    group.segments.append(clip)
    linear = Fraction(10 ** (gain_db / 20)).limit_denominator(1 << 20)
    group.parameters.append(aaf.create.ConstantValue(amplitude, linear))
    return group


def _identify(aaf: Any) -> None:
    """Name this service as the file's creator (pyaaf2 made the Identification, with its own
    name and ProductID)."""
    identification = aaf.header["IdentificationList"][0]
    identification["CompanyName"].value = COMPANY_NAME
    identification["ProductName"].value = PRODUCT_NAME
    identification["ProductVersionString"].value = __version__
    identification["ProductVersion"].value = product_version(__version__)
    identification["ProductID"].value = AUID(PRODUCT_ID)
    identification["ToolkitVersion"].value = product_version(importlib.metadata.version("pyaaf2"))
    identification["Platform"].value = f"{platform.system()} (pyaaf2)"


def _timecode_slot(aaf: Any, composition: Any, session: Session) -> None:
    rate = session.frame_rate
    slot = composition.create_timeline_slot(edit_rate=str(rate.rate))
    slot.name = "TC1"
    slot.segment = aaf.create.Timecode(
        rate.nominal_fps, drop=rate.drop_frame, length=session.length_in_timecode_frames
    )
    slot.segment.start = session.start_frame


def _tape(aaf: Any, session: Session, track: SessionTrack) -> Any:
    """A tape SourceMob named after the track, with one sound slot per channel and a timecode
    slot running from midnight (the stems start at the session start's timecode on it)."""
    tape = aaf.create.SourceMob(track.name)
    aaf.content.mobs.append(tape)
    tape.descriptor = aaf.create.TapeDescriptor()
    rate = session.frame_rate
    # pyaaf2's create_tape_slots: 12 hours of tape, timecode at the tape's edit rate.
    hours_12 = session.sample_rate * 60 * 60 * 12
    for channel in range(1, track.channels + 1):
        slot = tape.create_empty_slot(session.sample_rate, "sound", slot_id=channel)
        slot.segment.length = hours_12
    tape.create_timecode_slot(session.sample_rate, rate.nominal_fps, rate.drop_frame)
    return tape


def _master_mob(aaf: Any, session: Session, track: SessionTrack) -> Any:
    master = aaf.create.MasterMob(track.name)
    aaf.content.mobs.append(master)
    tape = _tape(aaf, session, track)
    start = round(session.start_frame * session.sample_rate / session.frame_rate.rate)
    for channel in range(1, track.channels + 1):
        tape_clip = tape.create_source_clip(channel, start=start, length=session.total_frames)
        if session.media == "embedded":
            source = _embedded_channel(aaf, session, track, channel, tape_clip)
        else:
            source = _linked_channel(aaf, session, track, channel, tape_clip)
        slot = master.create_timeline_slot(edit_rate=session.sample_rate)
        slot.segment = source.create_source_clip(1, media_kind="sound")
        slot.segment.length = session.total_frames
        slot["PhysicalTrackNumber"].value = channel
    return master


def _channel_name(track: SessionTrack, channel: int) -> str:
    """`02_Music.L` (or `01_Dialog` for a mono stem): the embedded channel's file name."""
    name = track.stem_path.name
    if track.channels > 1:
        name = channel_file_name(name, channel, track.channels)
    return name.removesuffix(".wav")


def _file_source(aaf: Any, name: str, descriptor: Any, session: Session) -> Any:
    source = aaf.create.SourceMob(name)
    aaf.content.mobs.append(source)
    descriptor["SampleRate"].value = session.sample_rate
    descriptor["Length"].value = session.total_frames
    source.descriptor = descriptor
    return source


def _embedded_channel(
    aaf: Any, session: Session, track: SessionTrack, channel: int, tape_clip: Any
) -> Any:
    """A file SourceMob with one channel of the stem as PCM EssenceData, streamed from the
    stem block by block."""
    sample_bytes = session.bit_depth // 8
    descriptor = aaf.create.PCMDescriptor()
    descriptor["Channels"].value = 1
    descriptor["BlockAlign"].value = sample_bytes
    descriptor["AverageBPS"].value = session.sample_rate * sample_bytes
    descriptor["QuantizationBits"].value = session.bit_depth
    descriptor["AudioSamplingRate"].value = session.sample_rate
    # pyaaf2 leaves the container unnamed; Avid's files say the essence is in the AAF.
    descriptor["ContainerFormat"].value = aaf.dictionary.lookup_containerdef("AAF")
    source = _file_source(aaf, _channel_name(track, channel), descriptor, session)
    essence, slot = source.create_essence(session.sample_rate, "sound")
    slot.segment = tape_clip
    stream = essence.open("w")
    for block in channel_bytes(
        track.stem_path, track.layout, track.channels, sample_bytes, channel
    ):
        stream.write(block)
    return source


def file_uri(session: Session, ref: str) -> str:
    """`file:///<project folder>/<ref>`, percent-encoded (RFC 3986/8089): the project's place
    when unzipped at a volume's root; readers relink by file name anywhere else."""
    return "file://" + quote(str(PurePosixPath("/", session.folder, ref)), safe="/")


def _linked_channel(
    aaf: Any, session: Session, track: SessionTrack, channel: int, tape_clip: Any
) -> Any:
    """A file SourceMob describing one mono WAVE file of the project: a WAVEDescriptor whose
    Summary is the file's 44-byte header and a NetworkLocator with its file URI."""
    ref = linked_ref(track, channel)
    descriptor = aaf.create.WAVEDescriptor()
    descriptor["ContainerFormat"].value = aaf.dictionary.lookup_containerdef("External")
    descriptor["Summary"].value = bytearray(
        mono_wave_header(session.sample_rate, session.bit_depth, session.total_frames)
    )
    locator = aaf.create.NetworkLocator()
    locator["URLString"].value = file_uri(session, ref)
    descriptor["Locator"].append(locator)
    source = _file_source(aaf, PurePosixPath(ref).name, descriptor, session)
    slot = source.create_empty_slot(edit_rate=session.sample_rate, media_kind="sound", slot_id=1)
    slot.segment = tape_clip
    return source
