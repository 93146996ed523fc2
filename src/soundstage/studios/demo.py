"""The demo studio catalog: a few hundred studios across 60 cities of 20 countries, generated
from a fixed seed, so every load makes the same studios with the same ids
(`studio_<city>_<n>`, rooms `room_<city>_<n>_<letter>`). `soundstage catalog load-demo`
loads it; loading it again changes nothing. The benchmark makes 100,000 the same way.

The cities mix accents, 30- and 45-minute time zones, places without daylight saving and
state codes shared across countries (LA: Louisiana and Lagos), which is what the filters
and the availability rules must get right. Demo studios have no photos.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date
from typing import Final

from sqlalchemy.orm import Session

from soundstage.studios.catalog import (
    STUDIO_TYPES,
    AddressSpec,
    ClosureSpec,
    OpeningHoursSpec,
    RoomSpec,
    StudioSpec,
    StudioType,
)
from soundstage.studios.importer import StudioCounts, upsert_studios
from soundstage.studios.places import place_key

DEMO_STUDIOS: Final = 300
SEED: Final = 20261122


@dataclass(frozen=True)
class City:
    name: str
    state: str
    state_code: str
    country: str
    timezone: str
    latitude: float
    longitude: float
    currency: str
    per_usd: float  # local currency units per US dollar, for plausible rates


CITIES: Final[tuple[City, ...]] = (
    City("Los Angeles", "California", "CA", "US", "America/Los_Angeles", 34.05, -118.24, "USD", 1),
    City(
        "San Francisco", "California", "CA", "US", "America/Los_Angeles", 37.77, -122.42, "USD", 1
    ),
    City("Nashville", "Tennessee", "TN", "US", "America/Chicago", 36.16, -86.78, "USD", 1),
    City("Memphis", "Tennessee", "TN", "US", "America/Chicago", 35.15, -90.05, "USD", 1),
    City("New York", "New York", "NY", "US", "America/New_York", 40.71, -74.01, "USD", 1),
    City("Austin", "Texas", "TX", "US", "America/Chicago", 30.27, -97.74, "USD", 1),
    City("Houston", "Texas", "TX", "US", "America/Chicago", 29.76, -95.37, "USD", 1),
    City("Atlanta", "Georgia", "GA", "US", "America/New_York", 33.75, -84.39, "USD", 1),
    City("Chicago", "Illinois", "IL", "US", "America/Chicago", 41.88, -87.63, "USD", 1),
    City("Seattle", "Washington", "WA", "US", "America/Los_Angeles", 47.61, -122.33, "USD", 1),
    City("Portland", "Oregon", "OR", "US", "America/Los_Angeles", 45.52, -122.68, "USD", 1),
    City("Portland", "Maine", "ME", "US", "America/New_York", 43.66, -70.26, "USD", 1),
    City("Miami", "Florida", "FL", "US", "America/New_York", 25.76, -80.19, "USD", 1),
    City("New Orleans", "Louisiana", "LA", "US", "America/Chicago", 29.95, -90.07, "USD", 1),
    City("Detroit", "Michigan", "MI", "US", "America/Detroit", 42.33, -83.05, "USD", 1),
    City("Denver", "Colorado", "CO", "US", "America/Denver", 39.74, -104.99, "USD", 1),
    City("Phoenix", "Arizona", "AZ", "US", "America/Phoenix", 33.45, -112.07, "USD", 1),
    City("Honolulu", "Hawaii", "HI", "US", "Pacific/Honolulu", 21.31, -157.86, "USD", 1),
    City("Toronto", "Ontario", "ON", "CA", "America/Toronto", 43.65, -79.38, "CAD", 1.35),
    City("Montréal", "Québec", "QC", "CA", "America/Toronto", 45.50, -73.57, "CAD", 1.35),
    City("Québec", "Québec", "QC", "CA", "America/Toronto", 46.81, -71.21, "CAD", 1.35),
    City(
        "Vancouver",
        "British Columbia",
        "BC",
        "CA",
        "America/Vancouver",
        49.28,
        -123.12,
        "CAD",
        1.35,
    ),
    City("London", "England", "ENG", "GB", "Europe/London", 51.51, -0.13, "GBP", 0.8),
    City("Manchester", "England", "ENG", "GB", "Europe/London", 53.48, -2.24, "GBP", 0.8),
    City("Glasgow", "Scotland", "SCT", "GB", "Europe/London", 55.86, -4.25, "GBP", 0.8),
    City("Dublin", "Leinster", "L", "IE", "Europe/Dublin", 53.35, -6.26, "EUR", 0.92),
    City("Paris", "Île-de-France", "IDF", "FR", "Europe/Paris", 48.86, 2.35, "EUR", 0.92),
    City("Lyon", "Auvergne-Rhône-Alpes", "ARA", "FR", "Europe/Paris", 45.76, 4.84, "EUR", 0.92),
    City(
        "Saint-Étienne",
        "Auvergne-Rhône-Alpes",
        "ARA",
        "FR",
        "Europe/Paris",
        45.44,
        4.39,
        "EUR",
        0.92,
    ),
    City("Berlin", "Berlin", "BE", "DE", "Europe/Berlin", 52.52, 13.40, "EUR", 0.92),
    City("München", "Bayern", "BY", "DE", "Europe/Berlin", 48.14, 11.58, "EUR", 0.92),
    City("Köln", "Nordrhein-Westfalen", "NW", "DE", "Europe/Berlin", 50.94, 6.96, "EUR", 0.92),
    City(
        "Düsseldorf", "Nordrhein-Westfalen", "NW", "DE", "Europe/Berlin", 51.23, 6.77, "EUR", 0.92
    ),
    City("Zürich", "Zürich", "ZH", "CH", "Europe/Zurich", 47.37, 8.54, "CHF", 0.9),
    City("Amsterdam", "Noord-Holland", "NH", "NL", "Europe/Amsterdam", 52.37, 4.90, "EUR", 0.92),
    City("Barcelona", "Catalunya", "CT", "ES", "Europe/Madrid", 41.39, 2.17, "EUR", 0.92),
    City("Madrid", "Comunidad de Madrid", "MD", "ES", "Europe/Madrid", 40.42, -3.70, "EUR", 0.92),
    City("Málaga", "Andalucía", "AN", "ES", "Europe/Madrid", 36.72, -4.42, "EUR", 0.92),
    City("Sevilla", "Andalucía", "AN", "ES", "Europe/Madrid", 37.39, -5.98, "EUR", 0.92),
    City("Milano", "Lombardia", "LOM", "IT", "Europe/Rome", 45.46, 9.19, "EUR", 0.92),
    City("Stockholm", "Stockholms län", "AB", "SE", "Europe/Stockholm", 59.33, 18.07, "SEK", 10.5),
    City("Malmö", "Skåne", "M", "SE", "Europe/Stockholm", 55.60, 13.00, "SEK", 10.5),
    City("Oslo", "Oslo", "03", "NO", "Europe/Oslo", 59.91, 10.75, "NOK", 10.5),
    City("København", "Hovedstaden", "84", "DK", "Europe/Copenhagen", 55.68, 12.57, "DKK", 6.9),
    City("Kraków", "Małopolskie", "12", "PL", "Europe/Warsaw", 50.06, 19.94, "PLN", 4),
    City("Łódź", "Łódzkie", "10", "PL", "Europe/Warsaw", 51.76, 19.46, "PLN", 4),
    City("São Paulo", "São Paulo", "SP", "BR", "America/Sao_Paulo", -23.55, -46.63, "BRL", 5),
    City(
        "Rio de Janeiro",
        "Rio de Janeiro",
        "RJ",
        "BR",
        "America/Sao_Paulo",
        -22.91,
        -43.17,
        "BRL",
        5,
    ),
    City(
        "Belo Horizonte", "Minas Gerais", "MG", "BR", "America/Sao_Paulo", -19.92, -43.94, "BRL", 5
    ),
    City(
        "Ciudad de México",
        "Ciudad de México",
        "CMX",
        "MX",
        "America/Mexico_City",
        19.43,
        -99.13,
        "MXN",
        17,
    ),
    City(
        "Buenos Aires",
        "Ciudad Autónoma de Buenos Aires",
        "C",
        "AR",
        "America/Argentina/Buenos_Aires",
        -34.60,
        -58.38,
        "ARS",
        900,
    ),
    City("Bogotá", "Bogotá", "DC", "CO", "America/Bogota", 4.71, -74.07, "COP", 4000),
    City("Medellín", "Antioquia", "ANT", "CO", "America/Bogota", 6.24, -75.58, "COP", 4000),
    City("Sydney", "New South Wales", "NSW", "AU", "Australia/Sydney", -33.87, 151.21, "AUD", 1.5),
    City("Melbourne", "Victoria", "VIC", "AU", "Australia/Melbourne", -37.81, 144.96, "AUD", 1.5),
    City("Auckland", "Auckland", "AUK", "NZ", "Pacific/Auckland", -36.85, 174.76, "NZD", 1.65),
    City("Mumbai", "Maharashtra", "MH", "IN", "Asia/Kolkata", 19.08, 72.88, "INR", 83),
    City("Kathmandu", "Bagmati", "P3", "NP", "Asia/Kathmandu", 27.72, 85.32, "NPR", 133),
    City("Cape Town", "Western Cape", "WC", "ZA", "Africa/Johannesburg", -33.92, 18.42, "ZAR", 18),
    City("Lagos", "Lagos", "LA", "NG", "Africa/Lagos", 6.52, 3.38, "NGN", 1500),
)

_NAME_FIRST: Final = (
    "Blue", "Golden", "Echo", "Velvet", "Analog", "Northern", "Harbor", "Copper", "Silver",
    "Midnight", "Red Brick", "Sunset", "Lighthouse", "Cedar", "Riverside", "Orchard", "Static",
    "Paper Moon", "Tape", "Sawmill", "Foundry", "Signal", "Low End", "High Street", "Wildflower",
)  # fmt: skip
_NAME_SECOND: Final = (
    "Room", "Lane", "Chamber", "House", "Works", "Lab", "Garage", "Yard", "Loft", "Hall",
    "Barn", "Vault", "Attic", "Tower", "Dock", "Mill",
)  # fmt: skip
_NAME_SUFFIX: Final = ("Studios", "Recording", "Sound", "Audio", "Studio", "Media")
_STREETS: Final = (
    "Harbour Street", "Mill Lane", "Station Road", "Market Square", "Canal Walk", "Church Street",
    "Park Avenue", "River Road", "Foundry Row", "Old Quay", "Bridge Street", "Garden Way",
)  # fmt: skip
_AMENITIES: Final = (
    "Wi-Fi", "Parking", "Kitchen", "Lounge", "Air conditioning", "Wheelchair access",
    "Natural light", "Shower", "Coffee", "Green room", "Loading dock", "Late-night access",
    "Near public transport", "Storage lockers",
)  # fmt: skip
_EQUIPMENT: Final[dict[StudioType, tuple[str, ...]]] = {
    "recording": (
        "Neumann U87 Ai", "AKG C414 XLII", "Shure SM7B", "Neve 1073 preamps",
        "Yamaha C7 grand piano", "Ludwig drum kit", "Fender Twin Reverb", "Pro Tools Ultimate",
    ),
    "mixing": (
        "SSL 4000 G+ console", "API 1608", "Universal Audio Apollo x16", "Genelec 8351B monitors",
        "Avid S6 control surface", "Dolby Atmos 7.1.4 monitoring",
    ),
    "mastering": (
        "Focal Trio11 monitors", "Manley Massive Passive EQ", "Weiss DS1-MK3", "Prism Sound ADA-8",
        "Dangerous Music Liaison",
    ),
    "podcast": (
        "Rode PodMic", "RØDECaster Pro II", "Electro-Voice RE20", "4K video cameras",
        "Teleprompter", "Remote guest links",
    ),
    "foley": (
        "Foley pits (gravel, sand, water)", "Prop library", "Sennheiser MKH 416",
        "Schoeps CMC6", "Isolated floor surfaces",
    ),
}  # fmt: skip
_ROOM_NAMES: Final[dict[StudioType, tuple[str, ...]]] = {
    "recording": ("Live Room", "Studio A", "Studio B", "Vocal Booth", "Tracking Room"),
    "mixing": ("Mix Room", "Control Room", "Atmos Suite"),
    "mastering": ("Mastering Suite", "Mastering Room"),
    "podcast": ("Podcast Suite", "Podcast Booth", "Video Podcast Set"),
    "foley": ("Foley Stage", "Foley Room"),
}
_TYPE_WEIGHTS: Final = (0.7, 0.45, 0.2, 0.4, 0.12)  # STUDIO_TYPES order
# Weekly hours: (days, open, close); days 0 = Monday.
_SCHEDULES: Final = (
    ((range(5), "09:00", "21:00"), ((5,), "10:00", "18:00")),  # office hours
    ((range(7), "10:00", "22:00"),),  # every day
    ((range(7), "00:00", "24:00"),),  # 24/7
    ((range(1, 6), "14:00", "02:00"), ((6,), "14:00", "22:00")),  # late nights
    ((range(6), "08:00", "12:00"), (range(6), "13:00", "20:00")),  # lunch break
)
_WEEKDAY_NAMES: Final = (
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
)  # fmt: skip
HOLIDAYS: Final = tuple(
    (date(year, month, day), reason)
    for year in (2026, 2027, 2028)
    for month, day, reason in ((12, 25, "Christmas Day"), (1, 1, "New Year's Day"))
)


def load_demo_studios(session: Session) -> StudioCounts:
    """Create or update the demo studios; flushes, the caller commits."""
    return upsert_studios(session, demo_studios())


def demo_studios(count: int = DEMO_STUDIOS) -> list[StudioSpec]:
    """`count` studios, the cities taken in turn; the same list on every call."""
    return [demo_studio(index) for index in range(count)]


def demo_studio(index: int) -> StudioSpec:
    """The demo catalog's studio number `index`, the same whatever the catalog's size (each
    studio has its own seeded generator, so a big catalog can be made in parallel)."""
    city = CITIES[index % len(CITIES)]
    slug = _slug(city.name)
    # Cities sharing a slug (the two Portlands) share one numbering.
    same_slug = [i for i, c in enumerate(CITIES) if _slug(c.name) == slug]
    number = (index // len(CITIES)) * len(same_slug) + same_slug.index(index % len(CITIES)) + 1
    rng = random.Random(f"{SEED}:{index}")  # noqa: S311 (made-up content, not secrets)
    return _studio(rng, city, f"{slug}_{number:03d}")


def _studio(rng: random.Random, city: City, suffix: str) -> StudioSpec:
    types = [t for t, w in zip(STUDIO_TYPES, _TYPE_WEIGHTS, strict=True) if rng.random() < w]
    types = types or [rng.choice(STUDIO_TYPES)]
    name = f"{rng.choice(_NAME_FIRST)} {rng.choice(_NAME_SECOND)} {rng.choice(_NAME_SUFFIX)}"
    schedule = rng.randrange(len(_SCHEDULES))
    reviews = 0 if rng.random() < 0.05 else rng.randint(1, 480)
    rooms = [_room(rng, city, f"room_{suffix}_{chr(97 + n)}", types) for n in range(_rooms(rng))]
    equipment = sorted({item for t in types for item in rng.sample(_EQUIPMENT[t], 2)})
    return StudioSpec(
        id=f"studio_{suffix}",
        name=name,
        description=f"{name} is a {_join(types)} studio in {city.name} with {len(rooms)} "
        f"room{'s' if len(rooms) > 1 else ''}, bookable by the hour.",
        types=types,
        address=AddressSpec(
            line1=f"{rng.randint(1, 400)} {rng.choice(_STREETS)}",
            city=city.name,
            state=city.state,
            state_code=city.state_code,
            postal_code=f"{rng.randint(1000, 99999)}",
            country=city.country,
        ),
        timezone=city.timezone,
        latitude=round(city.latitude + rng.uniform(-0.05, 0.05), 5),
        longitude=round(city.longitude + rng.uniform(-0.05, 0.05), 5),
        amenities=sorted(rng.sample(_AMENITIES, rng.randint(3, 7))),
        equipment=equipment,
        rating=round(rng.uniform(3.2, 5.0), 1) if reviews else None,
        review_count=reviews,
        rooms=rooms,
        opening_hours=[
            OpeningHoursSpec(day=_WEEKDAY_NAMES[day], open=opens, close=closes)
            for days, opens, closes in _SCHEDULES[schedule]
            for day in days
        ],
        closures=_closures(rng, always_open=schedule == 2),
    )


def _rooms(rng: random.Random) -> int:
    count: int = rng.choices((1, 2, 3, 4), weights=(35, 35, 20, 10))[0]
    return count


def _room(rng: random.Random, city: City, room_id: str, types: list[StudioType]) -> RoomSpec:
    kind = rng.choice(types)
    large = kind == "recording" and rng.random() < 0.25
    capacity = rng.randint(6, 20) if large else rng.choices(range(1, 7), (20, 30, 20, 15, 10, 5))[0]
    usd_per_hour = rng.randint(25, 250)
    return RoomSpec(
        id=room_id,
        name=rng.choice(_ROOM_NAMES[kind]),
        booth_capacity=capacity,
        hourly_rate_cents=_nice_cents(usd_per_hour * city.per_usd),
        currency=city.currency,
        min_booking_hours=rng.choices((1, 2, 3, 4), weights=(40, 35, 15, 10))[0],
        buffer_minutes=rng.choice((0, 15, 30, 60)),
    )


def _nice_cents(amount: float) -> int:
    """Two significant digits, in cents: 137.5 -> 14000."""
    step: int = 10 ** max(len(str(int(amount))) - 2, 0)
    return max(round(amount / step), 1) * step * 100


def _closures(rng: random.Random, *, always_open: bool) -> list[ClosureSpec]:
    closures = [] if always_open else [ClosureSpec(date=d, reason=r) for d, r in HOLIDAYS]
    for _ in range(rng.randint(0, 2)):
        day = date(2027, rng.randint(2, 11), rng.randint(1, 28))
        if all(c.date != day for c in closures):
            closures.append(ClosureSpec(date=day, reason="Maintenance"))
    return sorted(closures, key=lambda c: c.date)


def _join(words: list[StudioType]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _slug(text: str) -> str:
    return place_key(text).replace(" ", "_")
