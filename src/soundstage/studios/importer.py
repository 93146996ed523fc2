"""Writing catalog content: create or replace studios by id, all or nothing. Loading the same
content again changes nothing (each studio's content hash is kept)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from pydantic import ValidationError
from sqlalchemy.orm import Session

from soundstage.core.timeutil import utcnow
from soundstage.models import Room, Studio, StudioClosure, StudioHours
from soundstage.studios import repository
from soundstage.studios.catalog import STUDIO_TYPES, CatalogFile, StudioSpec
from soundstage.studios.errors import CatalogInvalid
from soundstage.studios.places import place_key

MAX_PROBLEMS_SHOWN: Final = 50


@dataclass(frozen=True)
class StudioCounts:
    studios_created: int
    studios_updated: int
    studios_unchanged: int


def parse_catalog(raw: str | bytes) -> list[StudioSpec]:
    """The studios of an import file; CatalogInvalid naming every problem (up to 50) with
    its place in the file, e.g. `studios[3].rooms[0].hourly_rate_cents: ...`."""
    try:
        document = json.loads(raw)
    except ValueError as exc:
        raise CatalogInvalid([f"not valid JSON: {exc}"]) from exc
    try:
        return CatalogFile.model_validate(document).studios
    except ValidationError as exc:
        raise CatalogInvalid([_problem(error, document) for error in exc.errors()]) from exc


def _problem(error: Any, document: Any) -> str:
    location = ""
    for part in error["loc"]:
        location += f"[{part}]" if isinstance(part, int) else (f".{part}" if location else part)
    # Name the studio too: an index alone is hard to find in a big file.
    loc = error["loc"]
    studio_index = loc[1] if len(loc) > 1 and loc[0] == "studios" else None
    studio_id = None
    if isinstance(studio_index, int) and isinstance(document, dict):
        studios = document.get("studios")
        if isinstance(studios, list) and isinstance(studios[studio_index], dict):
            studio_id = studios[studio_index].get("id")
    where = f"{location} (studio {studio_id})" if isinstance(studio_id, str) else location
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{where or 'file'}: {message}"


def upsert_studios(session: Session, specs: Sequence[StudioSpec]) -> StudioCounts:
    """Create new studios, replace changed ones (rooms updated in place, rooms left out
    retired, hours and closures replaced), leave equal ones alone. Flushes; the caller's
    transaction commits, so a failure writes nothing."""
    now = utcnow()
    digests = {spec.id: spec.content_hash() for spec in specs}
    known = repository.studio_hashes(session, list(digests))
    owners = repository.room_owners(session, [r.id for spec in specs for r in spec.rooms])
    problems = [
        f"studios[{i}].rooms[{j}].id: room {room.id} belongs to studio {owners[room.id]}"
        for i, spec in enumerate(specs)
        for j, room in enumerate(spec.rooms)
        if owners.get(room.id, spec.id) != spec.id
    ]
    if problems:
        raise CatalogInvalid(problems)
    new = [spec for spec in specs if spec.id not in known]
    changed = [spec for spec in specs if spec.id in known and known[spec.id] != digests[spec.id]]
    repository.insert_rows(
        session, Studio, [_studio_row(s, digests[s.id], now) | {"created_at": now} for s in new]
    )
    repository.insert_rows(session, Room, [row for s in new for row in _room_rows(s, now)])
    repository.insert_rows(session, StudioHours, [row for s in new for row in _hours_rows(s)])
    repository.insert_rows(session, StudioClosure, [r for s in new for r in _closure_rows(s)])
    for spec in changed:
        repository.update_studio(session, spec.id, _studio_row(spec, digests[spec.id], now))
        repository.replace_schedule(session, spec.id, _hours_rows(spec), _closure_rows(spec))
        fresh = [row for row in _room_rows(spec, now) if row["id"] not in owners]
        for row in _room_rows(spec, now):
            if row["id"] in owners:
                row.pop("created_at")
                repository.update_room(session, row.pop("id"), row)
        repository.insert_rows(session, Room, fresh)
        repository.retire_rooms(session, spec.id, [room.id for room in spec.rooms])
    if new or changed:
        repository.analyze(session)
    session.flush()
    return StudioCounts(len(new), len(changed), len(specs) - len(new) - len(changed))


def _studio_row(spec: StudioSpec, digest: str, now: datetime) -> dict[str, Any]:
    address = spec.address
    rooms = spec.rooms
    return {
        "id": spec.id,
        "name": spec.name,
        "description": spec.description,
        **{f"type_{name}": name in spec.types for name in STUDIO_TYPES},
        "address_line1": address.line1,
        "city": address.city,
        "state": address.state,
        "state_code": address.state_code,
        "postal_code": address.postal_code,
        "country": address.country,
        "city_key": place_key(address.city),
        "state_key": place_key(address.state),
        "state_code_key": place_key(address.state_code) if address.state_code else None,
        "timezone": spec.timezone,
        "latitude": spec.latitude,
        "longitude": spec.longitude,
        "amenities": spec.amenities,
        "equipment": spec.equipment,
        "photos": spec.photos,
        "rating": spec.rating if spec.rating is not None else 0.0,
        "review_count": spec.review_count,
        "max_booth_capacity": max(room.booth_capacity for room in rooms),
        "room_count": len(rooms),
        "hourly_rate_from_cents": min(room.hourly_rate_cents for room in rooms),
        "currency": rooms[0].currency,
        "content_hash": digest,
        "is_active": spec.active,
        "updated_at": now,
    }


def _room_rows(spec: StudioSpec, now: datetime) -> list[dict[str, Any]]:
    return [
        {
            "id": room.id,
            "studio_id": spec.id,
            "position": position,
            "name": room.name,
            "booth_capacity": room.booth_capacity,
            "hourly_rate_cents": room.hourly_rate_cents,
            "currency": room.currency,
            "min_booking_hours": room.min_booking_hours,
            "buffer_minutes": room.buffer_minutes,
            "is_active": True,
            "created_at": now,
        }
        for position, room in enumerate(spec.rooms)
    ]


def _hours_rows(spec: StudioSpec) -> list[dict[str, Any]]:
    return [
        {
            "studio_id": spec.id,
            "weekday": session.weekday,
            "opens_minute": session.opens_minute,
            "closes_minute": session.closes_minute,
        }
        for session in spec.sessions()
    ]


def _closure_rows(spec: StudioSpec) -> list[dict[str, Any]]:
    return [
        {"studio_id": spec.id, "date": closure.date, "reason": closure.reason}
        for closure in spec.closures
    ]
