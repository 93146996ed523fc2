"""HTTP endpoints of the studios marketplace: discover, one studio, availability, booking,
cancellation, and the caller's bookings."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Path, Query

from soundstage.core.deps import PrincipalDep, SessionDep, current_principal
from soundstage.core.openapi import errors
from soundstage.core.pagination import ListResponse, PageParams, page_params
from soundstage.core.params import QueryInt
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.core.schemas import CalendarDate
from soundstage.studios import bookings, service
from soundstage.studios.catalog import MAX_BOOTH_CAPACITY, StudioType
from soundstage.studios.schemas import (
    BookingCancel,
    BookingCreate,
    BookingOut,
    BookingQuoteOut,
    BookingStatus,
    StudioAvailabilityOut,
    StudioOut,
    StudioSummaryOut,
)

router = APIRouter(
    prefix=f"{API_V1}/studios",
    tags=["Studios"],
    dependencies=[Depends(current_principal)],
    route_class=UnitOfWorkRoute,
)

StudioId = Annotated[str, Path(max_length=40, description="The studio's id.")]
BookingId = Annotated[str, Path(max_length=40, description="The booking's id.")]


@router.get("/discover", response_model=ListResponse[StudioSummaryOut])
def discover_studios(
    session: SessionDep,
    page: Annotated[PageParams, Depends(page_params)],
    city: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=100,
            description="City name; case, accents and punctuation are ignored "
            "(`sao paulo` finds São Paulo).",
        ),
    ] = None,
    state: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=100,
            description="State or province: its name (`Québec`, `quebec`) or, when no state "
            "has that name, its code (`QC`, `CA`); case and accents ignored.",
        ),
    ] = None,
    type: Annotated[
        StudioType | None, Query(description="Studios offering this kind of work.")
    ] = None,
    capacity: Annotated[
        QueryInt | None,
        Query(
            ge=1,
            le=MAX_BOOTH_CAPACITY,
            description="Minimum booth capacity: a studio matches when one of its rooms holds "
            "at least this many people.",
        ),
    ] = None,
) -> ListResponse[StudioSummaryOut]:
    """Studios matching every filter given, best rated first (then by id), with cursor
    pagination (`starting_after` / `ending_before` take a studio id)."""
    studios, has_more = service.discover(
        session, page, city=city, state=state, studio_type=type, capacity=capacity
    )
    return ListResponse[StudioSummaryOut](data=studios, has_more=has_more)


@router.get("/bookings", response_model=ListResponse[BookingOut])
def list_bookings(
    session: SessionDep,
    principal: PrincipalDep,
    page: Annotated[PageParams, Depends(page_params)],
    status: Annotated[
        BookingStatus | None, Query(description="Only bookings in this state.")
    ] = None,
    studio_id: Annotated[
        str | None, Query(min_length=1, max_length=40, description="Only this studio's.")
    ] = None,
) -> ListResponse[BookingOut]:
    """The caller's bookings in the key's environment, newest first."""
    found, has_more = bookings.list_bookings(
        session, principal, page, status=status, studio_id=studio_id
    )
    return ListResponse[BookingOut](data=found, has_more=has_more)


@router.get("/bookings/{booking_id}", response_model=BookingOut)
def get_booking(booking_id: BookingId, session: SessionDep, principal: PrincipalDep) -> BookingOut:
    """One of the caller's bookings (404 for anyone else's, or the other environment's)."""
    return bookings.get_booking(session, principal, booking_id)


@router.post("/bookings/{booking_id}/cancel", response_model=BookingOut, responses=errors(409))
def cancel_booking(
    booking_id: BookingId,
    session: SessionDep,
    principal: PrincipalDep,
    body: Annotated[BookingCancel | None, Body()] = None,
) -> BookingOut:
    """Cancel a booking before it starts and free its time. Refund: the whole total with 48
    hours' notice or more, half the subtotal with 24 to 48 hours, nothing later. A cancelled
    or started booking is 409 `booking_not_cancellable`."""
    return bookings.cancel(session, principal, booking_id, body)


@router.get("/{id}", response_model=StudioOut)
def get_studio(id: StudioId, session: SessionDep) -> StudioOut:
    """One studio with its rooms, weekly opening hours and upcoming closures."""
    return service.get_studio(session, id)


@router.get("/{id}/availability", response_model=StudioAvailabilityOut)
def studio_availability(
    id: StudioId,
    date: Annotated[
        CalendarDate,
        Query(description="Local date at the studio, YYYY-MM-DD: from its today to a year ahead."),
    ],
    session: SessionDep,
    principal: PrincipalDep,
) -> StudioAvailabilityOut:
    """For each room, the free intervals of the date in the studio's local time (opening
    hours less closures, bookings, buffers and the past) and the start times from which the
    room's minimum hours fit."""
    return service.availability(session, principal, id, date)


@router.post(
    "/{id}/quote",
    response_model=BookingQuoteOut,
    responses=errors(409),
)
def quote_studio(
    id: StudioId,
    body: BookingCreate,
    session: SessionDep,
    principal: PrincipalDep,
) -> BookingQuoteOut:
    """Price a booking without making it: the same body, checks and amounts as
    `POST /studios/{id}/book` (subtotal, 2.5% platform fee, total), nothing reserved or
    charged. A time not free now is 409 `slot_unavailable`."""
    return bookings.quote(session, principal, id, body)


@router.post(
    "/{id}/book",
    response_model=BookingOut,
    responses=errors(409),
)
def book_studio(
    id: StudioId,
    body: BookingCreate,
    session: SessionDep,
    principal: PrincipalDep,
) -> BookingOut:
    """Book a room (checkout): the booking is `confirmed` at once and priced as the room's
    hourly rate for its duration (`subtotal_cents`), plus a 2.5% platform fee rounded half-up
    once (`platform_fee_cents`); `total_cents` is their sum. A time that overlaps another
    booking of the room, or its buffer, is 409 `slot_unavailable`."""
    return bookings.book(session, principal, id, body)
