"""The session as AAF, written with pyaaf2 in the shape Pro Tools and Media Composer exchange:

- a top-level CompositionMob with a timecode slot (the session start) and one sound
  TimelineMobSlot per track at the sample rate, named after the track and numbered by
  PhysicalTrackNumber, whose Sequence holds a Filler up to the clip and the SourceClip;
- per stem a MasterMob (the clip's name) pointing at a file SourceMob: PCMDescriptor with the
  samples embedded as EssenceData, or (linked) a WAVEDescriptor with a NetworkLocator to the
  stem next to the session file; its slot points at a tape SourceMob carrying the stem's
  timecode, so "spot to original time" finds the session position.

The SourceClip enters the stem at the clip's offset (stems start at the session start), so
the timeline plays exactly the stem's samples and the clip can be extended to the stem's
ends in the DAW.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import aaf2
from aaf2.ama import get_wave_fmt

from soundstage.creative.daw.session import Session, SessionTrack

# OperationDef_MonoAudioGain and ParameterDef_Amplitude of the AAF object specification.
_AUDIO_GAIN = "9d2ea894-0968-11d3-8a38-0050040ef7d2"
_AMPLITUDE = "e4962321-2267-11d3-8a4c-0050040ef7d2"
_PRODUCT = {
    "CompanyName": "Soundstage",
    "ProductName": "Soundstage DAW export",
    "ProductVersionString": "1.0",
}


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
            clip = master.create_source_clip(
                slot_id=1, start=track.offset_frames, length=track.audio_frames
            )
            components.append(_with_clip_gain(aaf, clip, track.clip_gain_db))
            slot.segment.components.extend(components)
            slot.segment.length = track.offset_frames + track.audio_frames


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
    """Name this service as the file's creator (pyaaf2 made the Identification)."""
    identification = aaf.header["IdentificationList"][0]
    for key, value in _PRODUCT.items():
        identification[key].value = value


def _timecode_slot(aaf: Any, composition: Any, session: Session) -> None:
    rate = session.frame_rate
    slot = composition.create_timeline_slot(edit_rate=str(rate.rate))
    slot.name = "TC1"
    slot.segment = aaf.create.Timecode(
        rate.nominal_fps, drop=rate.drop_frame, length=session.length_in_timecode_frames
    )
    slot.segment.start = session.start_frame


def _tape_clip(aaf: Any, session: Session, track: SessionTrack) -> Any:
    """A tape SourceMob whose timecode runs from midnight; the stem starts at the session
    start's timecode on it."""
    tape = aaf.create.SourceMob()
    aaf.content.mobs.append(tape)
    rate = session.frame_rate
    tape.create_tape_slots(
        track.name,
        session.sample_rate,
        rate.nominal_fps,
        drop_frame=rate.drop_frame,
        media_kind="sound",
    )
    start = round(session.start_frame * session.sample_rate / rate.rate)
    clip = tape.create_source_clip(1, start=start, length=session.total_frames)
    clip.length = session.total_frames
    return clip


def _master_mob(aaf: Any, session: Session, track: SessionTrack) -> Any:
    master = aaf.create.MasterMob(track.name)
    aaf.content.mobs.append(master)
    tape = _tape_clip(aaf, session, track)
    if session.media == "embedded":
        slot = master.import_audio_essence(
            str(track.stem_path), edit_rate=session.sample_rate, tape=tape
        )
        # pyaaf2 leaves the container unnamed; Avid's files say the essence is in the AAF.
        descriptor = slot.segment.mob.descriptor
        descriptor["ContainerFormat"].value = aaf.dictionary.lookup_containerdef("AAF")
    else:
        slot = _linked_essence(aaf, master, session, track, tape)
    slot["PhysicalTrackNumber"].value = 1
    return master


def _linked_essence(aaf: Any, master: Any, session: Session, track: SessionTrack, tape: Any) -> Any:
    """A file SourceMob describing the stem as an external WAVE file, located relative to
    the session file (an absolute path of this server would mean nothing to the user)."""
    source = aaf.create.SourceMob(f"{track.name}.PHYS")
    aaf.content.mobs.append(source)
    descriptor = aaf.create.WAVEDescriptor()
    descriptor["SampleRate"].value = session.sample_rate
    descriptor["Length"].value = session.total_frames
    descriptor["ContainerFormat"].value = aaf.dictionary.lookup_containerdef("External")
    descriptor["Summary"].value = get_wave_fmt(str(track.stem_path))
    locator = aaf.create.NetworkLocator()
    locator["URLString"].value = track.stem_ref
    descriptor["Locator"].append(locator)
    source.descriptor = descriptor
    file_slot = source.create_empty_slot(
        edit_rate=session.sample_rate, media_kind="sound", slot_id=1
    )
    file_slot.segment = tape
    slot = master.create_timeline_slot(edit_rate=session.sample_rate)
    slot.segment = source.create_source_clip(1, media_kind="sound")
    slot.segment.length = session.total_frames
    return slot
