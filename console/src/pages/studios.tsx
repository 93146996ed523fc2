// Page 7: studios. Search (GET /api/v1/studios/discover with its filters), a studio's page
// with its rooms and the availability of a chosen date, booking a room (the subtotal, the
// 2.5% platform fee and the total are the booking's own figures: the API prices it, the
// console computes no money), and the caller's bookings with cancellation.
import { useEffect, useState } from "preact/hooks";
import { api, ApiError, listAll, type Page } from "../api";
import { ErrorBox, Loading, Section, formatDate, formatMoney, useLoad } from "../components";
import type { PageProps } from "../page";
import "./studios.css";

// --- the API's records (the fields the page uses) --------------------------------------------

const STUDIO_TYPES = ["recording", "mixing", "mastering", "podcast", "foley"] as const;

interface Address {
  line1: string;
  city: string;
  state: string;
  state_code: string | null;
  postal_code: string;
  country: string;
}

interface StudioSummary {
  id: string;
  name: string;
  types: string[];
  address: Address;
  timezone: string;
  rating: number | null;
  review_count: number;
  max_booth_capacity: number;
  room_count: number;
  hourly_rate_from_cents: number;
  currency: string;
}

interface Room {
  id: string;
  name: string;
  booth_capacity: number;
  hourly_rate_cents: number;
  currency: string;
  min_booking_hours: number;
  buffer_minutes: number;
}

interface Studio extends StudioSummary {
  description: string;
  amenities: string[];
  equipment: string[];
  rooms: Room[];
  opening_hours: { day: string; open: string; close: string; overnight: boolean }[];
  upcoming_closures: { date: string; reason: string }[];
}

interface TimeRange {
  start_time: string;
  end_time: string;
  ends_next_day: boolean;
}

interface RoomAvailability extends Room {
  free: TimeRange[];
  start_times: string[];
}

interface Availability {
  studio_id: string;
  date: string;
  timezone: string;
  closed: boolean;
  closure_reason: string | null;
  opening_hours: TimeRange[];
  rooms: RoomAvailability[];
}

interface Quote {
  duration_minutes: number;
  subtotal_cents: number;
  platform_fee_cents: number;
  total_cents: number;
  currency: string;
}

interface Booking {
  id: string;
  status: "confirmed" | "cancelled" | "completed";
  studio_id: string;
  studio_name: string;
  room_id: string;
  room_name: string;
  date: string;
  start_time: string;
  end_time: string;
  ends_next_day: boolean;
  timezone: string;
  duration_minutes: number;
  hourly_rate_cents: number;
  subtotal_cents: number;
  platform_fee_cents: number;
  total_cents: number;
  currency: string;
  refund_cents: number | null;
  notes: string | null;
  created_at: string;
  cancelled_at: string | null;
}

// --- small helpers: clock times as minutes of the date (times, never money) -----------------

const DAY = 24 * 60;
const CELL = 30;

function minutes(clock: string): number {
  const [h, m] = clock.split(":").map(Number);
  return h * 60 + m;
}

function clock(minute: number): string {
  const m = ((minute % DAY) + DAY) % DAY;
  return `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
}

/** A range of the date as [start, end) minutes; the end past DAY when it ends the next day. */
function span(range: TimeRange): [number, number] {
  const end = minutes(range.end_time) + (range.ends_next_day ? DAY : 0);
  return [minutes(range.start_time), end];
}

function label(minute: number): string {
  if (minute === DAY) return "24:00";
  return minute > DAY ? `${clock(minute)} (next day)` : clock(minute);
}

function isoDate(offsetDays: number): string {
  const d = new Date();
  d.setDate(d.getDate() + offsetDays);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** `?date=YYYY-MM-DD` after the hash route, for deep links to a studio's date. */
function hashQuery(name: string): string | null {
  const query = location.hash.split("?")[1];
  return query ? new URLSearchParams(query).get(name) : null;
}

function timeOf(b: Booking): string {
  return `${b.start_time}–${b.end_time}${b.ends_next_day ? " (next day)" : ""}`;
}

// --- search ------------------------------------------------------------------------------------

interface Filters {
  city: string;
  state: string;
  type: string;
  capacity: string;
}

const NO_FILTERS: Filters = { city: "", state: "", type: "", capacity: "" };

export function Studios(_: PageProps) {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [pages, setPages] = useState<string[]>([]); // starting_after cursors of later pages
  const cursor = pages.length ? pages[pages.length - 1] : undefined;
  const found = useLoad(
    () =>
      api<Page<StudioSummary>>("GET", "/api/v1/studios/discover", {
        query: { ...filters, starting_after: cursor },
      }),
    [filters, cursor],
  );
  const set = (name: keyof Filters) => (e: Event) =>
    setDraft({ ...draft, [name]: (e.target as HTMLInputElement | HTMLSelectElement).value });

  return (
    <div class="studios-page">
      <h1>Studios</h1>
      <Section title="Search studios">
        <form
          class="studio-search"
          onSubmit={(e) => {
            e.preventDefault();
            setPages([]);
            setFilters({ ...draft });
          }}
        >
          <div class="row">
            <div>
              <label for="studio-city">City</label>
              <input id="studio-city" name="city" maxLength={100} value={draft.city} onInput={set("city")} placeholder="Nashville, sao paulo…" />
            </div>
            <div>
              <label for="studio-state">State or province</label>
              <input id="studio-state" name="state" maxLength={100} value={draft.state} onInput={set("state")} placeholder="Québec, QC, CA…" />
            </div>
            <div>
              <label for="studio-type">Type of work</label>
              <select id="studio-type" name="type" value={draft.type} onChange={set("type")}>
                <option value="">Any</option>
                {STUDIO_TYPES.map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))}
              </select>
            </div>
            <div>
              <label for="studio-capacity">Minimum booth capacity</label>
              <input id="studio-capacity" name="capacity" type="number" min={1} inputMode="numeric" value={draft.capacity} onInput={set("capacity")} />
            </div>
            <button type="submit">Search</button>
            <button
              type="button"
              class="secondary"
              onClick={() => {
                setDraft(NO_FILTERS);
                setPages([]);
                setFilters(NO_FILTERS);
              }}
            >
              Clear
            </button>
          </div>
        </form>
      </Section>

      <section class="card" aria-labelledby="studio-results">
        <h2 id="studio-results">Results</h2>
        <ErrorBox error={found.error} />
        {found.loading && <Loading what="Searching" />}
        {found.data && !found.loading && (
          <>
            {found.data.data.length === 0 ? (
              <p class="muted">No studio matches every filter.</p>
            ) : (
              <ul class="studio-cards" aria-label="Studios found">
                {found.data.data.map((s) => (
                  <StudioCard key={s.id} studio={s} />
                ))}
              </ul>
            )}
            <div class="row studio-pager">
              {pages.length > 0 && (
                <button type="button" class="secondary" onClick={() => setPages(pages.slice(0, -1))}>
                  Previous page
                </button>
              )}
              {found.data.has_more && found.data.data.length > 0 && (
                <button type="button" class="secondary" onClick={() => setPages([...pages, found.data!.data[found.data!.data.length - 1].id])}>
                  Next page
                </button>
              )}
            </div>
          </>
        )}
      </section>

      <Bookings title="Your bookings" />
    </div>
  );
}

function StudioCard({ studio: s }: { studio: StudioSummary }) {
  return (
    <li class="card studio-card">
      <h3>
        <a href={`#/studios/${encodeURIComponent(s.id)}`}>{s.name}</a>
      </h3>
      <p class="muted">
        {s.address.city}, {s.address.state_code ?? s.address.state}, {s.address.country}
      </p>
      <p>
        {s.types.map((t) => (
          <span key={t} class="status">
            {t}
          </span>
        ))}
      </p>
      <dl class="facts">
        <dt>Rating</dt>
        <dd>{s.rating === null ? "no reviews" : `${s.rating} / 5 (${s.review_count})`}</dd>
        <dt>Booths up to</dt>
        <dd>{s.max_booth_capacity} people</dd>
        <dt>Rooms</dt>
        <dd>{s.room_count}</dd>
        <dt>From</dt>
        <dd>{formatMoney(s.hourly_rate_from_cents, s.currency)} / hour</dd>
      </dl>
    </li>
  );
}

// --- bookings ----------------------------------------------------------------------------------

function Bookings({ title, studioId, onChange, version = 0 }: { title: string; studioId?: string; onChange?: () => void; version?: number }) {
  const list = useLoad(() => listAll<Booking>("/api/v1/studios/bookings", { studio_id: studioId }, 200), [studioId, version]);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [done, setDone] = useState<Booking | null>(null);

  async function cancel(b: Booking) {
    setBusy(b.id);
    setError(null);
    setDone(null);
    try {
      setDone(await api<Booking>("POST", `/api/v1/studios/bookings/${encodeURIComponent(b.id)}/cancel`, { body: {} }));
      list.reload();
      onChange?.();
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(null);
    }
  }

  return (
    <section class="card" aria-labelledby={`bookings-${studioId ?? "all"}`}>
      <h2 id={`bookings-${studioId ?? "all"}`}>{title}</h2>
      <ErrorBox error={list.error ?? error} />
      {done && (
        <p class="notice" role="status">
          Booking {done.id} is {done.status}; refunded {formatMoney(done.refund_cents ?? 0, done.currency)}.
        </p>
      )}
      {list.data === null && list.loading && <Loading what="Loading bookings" />}
      {list.data && list.data.length === 0 && <p class="muted">No bookings yet.</p>}
      {list.data && list.data.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="muted">Times are local to each studio. Amounts are the API's: subtotal, the 2.5% platform fee, total.</caption>
            <thead>
              <tr>
                <th scope="col">Booking</th>
                {!studioId && <th scope="col">Studio</th>}
                <th scope="col">Room</th>
                <th scope="col">Date</th>
                <th scope="col">Time</th>
                <th scope="col">Subtotal</th>
                <th scope="col">Fee</th>
                <th scope="col">Total</th>
                <th scope="col">Status</th>
                <th scope="col">Refund</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((b) => (
                <tr key={b.id} data-booking={b.id}>
                  <td>
                    <code>{b.id}</code>
                  </td>
                  {!studioId && (
                    <td>
                      <a href={`#/studios/${encodeURIComponent(b.studio_id)}?date=${b.date}`}>{b.studio_name}</a>
                    </td>
                  )}
                  <td>{b.room_name}</td>
                  <td>{b.date}</td>
                  <td>
                    {timeOf(b)} <span class="muted">{b.timezone}</span>
                  </td>
                  <td>{formatMoney(b.subtotal_cents, b.currency)}</td>
                  <td>{formatMoney(b.platform_fee_cents, b.currency)}</td>
                  <td>{formatMoney(b.total_cents, b.currency)}</td>
                  <td>
                    <span class={`status status-${b.status}`}>{b.status}</span>
                  </td>
                  <td>{b.refund_cents === null ? "—" : formatMoney(b.refund_cents, b.currency)}</td>
                  <td>
                    {b.status === "confirmed" && (
                      <button type="button" class="danger" disabled={busy !== null} aria-label={`Cancel booking ${b.id}`} onClick={() => cancel(b)}>
                        {busy === b.id ? "Cancelling…" : "Cancel"}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

// --- one studio --------------------------------------------------------------------------------

export function StudioDetail({ params }: PageProps) {
  const id = params.id;
  const studio = useLoad(() => api<Studio>("GET", `/api/v1/studios/${encodeURIComponent(id)}`), [id]);
  const [date, setDate] = useState<string>(hashQuery("date") ?? isoDate(1));
  const [version, setVersion] = useState(0); // bumped when a booking changes the studio's time
  const availability = useLoad(
    () => (date ? api<Availability>("GET", `/api/v1/studios/${encodeURIComponent(id)}/availability`, { query: { date } }) : Promise.resolve(null)),
    [id, date, version],
  );
  const [picked, setPicked] = useState<{ room: string; start: string } | null>(null);

  if (studio.error) return <ErrorBox error={studio.error} />;
  if (!studio.data) return <Loading what="Loading the studio" />;
  const s = studio.data;
  return (
    <div class="studios-page">
      <p>
        <a href="#/studios">← Studios</a>
      </p>
      <h1>{s.name}</h1>
      <div class="grid">
        <Section title="About">
          <p class="muted">
            {s.address.line1}, {s.address.city}, {s.address.state} {s.address.postal_code}, {s.address.country} · {s.timezone}
          </p>
          <p>{s.description}</p>
          <p>
            {s.types.map((t) => (
              <span key={t} class="status">
                {t}
              </span>
            ))}
          </p>
          <p>
            Rating: {s.rating === null ? "no reviews" : `${s.rating} / 5 (${s.review_count} reviews)`}
          </p>
          <h3>Equipment</h3>
          <ul class="tags">
            {s.equipment.map((e) => (
              <li key={e}>{e}</li>
            ))}
          </ul>
          <h3>Amenities</h3>
          <ul class="tags">
            {s.amenities.map((a) => (
              <li key={a}>{a}</li>
            ))}
          </ul>
        </Section>
        <Section title="Opening hours">
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  <th scope="col">Open</th>
                  <th scope="col">Close</th>
                </tr>
              </thead>
              <tbody>
                {s.opening_hours.map((h, i) => (
                  <tr key={`${h.day}-${i}`}>
                    <td>{h.day}</td>
                    <td>{h.open}</td>
                    <td>
                      {h.close}
                      {h.overnight ? " (next day)" : ""}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {s.upcoming_closures.length > 0 && (
            <>
              <h3>Closures</h3>
              <ul>
                {s.upcoming_closures.map((c) => (
                  <li key={c.date}>
                    {c.date}: {c.reason}
                  </li>
                ))}
              </ul>
            </>
          )}
        </Section>
      </div>

      <Section title="Rooms">
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Room</th>
                <th scope="col">Booth capacity</th>
                <th scope="col">Hourly rate</th>
                <th scope="col">Minimum</th>
                <th scope="col">Buffer after</th>
              </tr>
            </thead>
            <tbody>
              {s.rooms.map((r) => (
                <tr key={r.id}>
                  <td>
                    {r.name} <code class="muted">{r.id}</code>
                  </td>
                  <td>{r.booth_capacity}</td>
                  <td>{formatMoney(r.hourly_rate_cents, r.currency)}</td>
                  <td>{r.min_booking_hours} h</td>
                  <td>{r.buffer_minutes} min</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Section>

      <section class="card" aria-labelledby="availability-title">
        <h2 id="availability-title">Availability</h2>
        <div class="row">
          <div>
            <label for="availability-date">Date (at the studio, {s.timezone})</label>
            <input
              id="availability-date"
              type="date"
              min={isoDate(-1)}
              value={date}
              onChange={(e) => {
                setPicked(null);
                setDate((e.target as HTMLInputElement).value);
              }}
            />
          </div>
        </div>
        <ErrorBox error={availability.error} />
        {availability.loading && !availability.data && <Loading what="Loading availability" />}
        {availability.data && <Calendar day={availability.data} onPick={(room, start) => setPicked({ room, start })} />}
      </section>

      {availability.data && !availability.data.closed && (
        <BookingForm
          key={`${availability.data.date}-${picked?.room}-${picked?.start}`}
          studio={s}
          day={availability.data}
          picked={picked}
          onBooked={() => setVersion((v) => v + 1)}
        />
      )}

      <Bookings title="Your bookings at this studio" studioId={s.id} version={version} onChange={() => setVersion((v) => v + 1)} />
    </div>
  );
}

/** Each room's time on the date in half-hour cells across the opening hours: free when the
 * API lists the whole cell as free, taken otherwise (booked, a booking's buffer, or past). */
function Calendar({ day, onPick }: { day: Availability; onPick: (room: string, start: string) => void }) {
  if (day.closed) {
    return (
      <p class="notice" role="status">
        Closed on {day.date}
        {day.closure_reason ? `: ${day.closure_reason}` : ""}.
      </p>
    );
  }
  return (
    <div class="calendar">
      <p class="muted">
        {day.date}, times in {day.timezone}. <span class="slot-key free">Free</span> <span class="slot-key taken">Taken</span> Choose a free cell to start a booking there.
      </p>
      {day.rooms.map((room) => {
        const free = room.free.map(span);
        const cells: { start: number; end: number; free: boolean }[] = [];
        for (const opening of day.opening_hours.map(span)) {
          for (let t = opening[0]; t < opening[1]; t += CELL) {
            const end = Math.min(t + CELL, opening[1]);
            cells.push({ start: t, end, free: free.some(([a, b]) => a <= t && end <= b) });
          }
        }
        const headingId = `room-${room.id}`;
        return (
          <div key={room.id} class="calendar-room">
            <h3 id={headingId}>
              {room.name} <span class="muted">({formatMoney(room.hourly_rate_cents, room.currency)} / hour, at least {room.min_booking_hours} h)</span>
            </h3>
            <ul class="slots" aria-labelledby={headingId}>
              {cells.map((c) => {
                const text = `${label(c.start)}–${label(c.end)}`;
                const startable = c.free && room.start_times.includes(clock(c.start)) && c.start < DAY;
                return (
                  <li key={c.start} class={`slot ${c.free ? "free" : "taken"}`}>
                    {startable ? (
                      <button type="button" class="slot-button" onClick={() => onPick(room.id, clock(c.start))}>
                        {text} <span class="slot-state">free</span>
                      </button>
                    ) : (
                      <span>
                        {text} <span class="slot-state">{c.free ? "free" : "taken"}</span>
                      </span>
                    )}
                  </li>
                );
              })}
            </ul>
          </div>
        );
      })}
    </div>
  );
}

/** End times the API would take for a start: quarter hours from the room's minimum to the
 * end of the free range that holds the start. */
function endChoices(room: RoomAvailability, start: string): { value: string; nextDay: boolean; text: string }[] {
  const from = minutes(start);
  const range = room.free.map(span).find(([a, b]) => a <= from && from < b);
  if (!range) return [];
  const choices = [];
  for (let t = from + room.min_booking_hours * 60; t <= range[1] && t <= from + DAY; t += 15) {
    const nextDay = t > DAY;
    choices.push({ value: t === DAY ? "24:00" : clock(t), nextDay, text: label(t) });
  }
  return choices;
}

const WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];

/** The sessions opening on `date` (local), as [open, close) minutes of the date, an
 * overnight one closing past DAY: the date's own hours, without the previous night's tail. */
function ownSessions(studio: Studio, date: string): [number, number][] {
  const weekday = WEEKDAYS[(new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7];
  return studio.opening_hours
    .filter((h) => h.day === weekday)
    .map((h) => [minutes(h.open), minutes(h.close) + (h.overnight ? DAY : 0)]);
}

/** The start a booking form offers first: the room's first free start (the API's) in the
 * date's own opening hours, not in the small hours the night before ran into; failing
 * that, its first free start. */
function firstStart(room: RoomAvailability | undefined, sessions: [number, number][]): string {
  return (room && (startInHours(room, sessions) ?? room.start_times[0])) ?? "";
}

function startInHours(room: RoomAvailability, sessions: [number, number][]): string | undefined {
  return room.start_times.find((t) => sessions.some(([open, close]) => open <= minutes(t) && minutes(t) < close));
}

function BookingForm({
  studio,
  day,
  picked,
  onBooked,
}: {
  studio: Studio;
  day: Availability;
  picked: { room: string; start: string } | null;
  onBooked: () => void;
}) {
  const bookable = day.rooms.filter((r) => r.start_times.length > 0);
  const sessions = ownSessions(studio, day.date);
  const first = bookable.find((r) => startInHours(r, sessions)) ?? bookable[0];
  const [roomId, setRoomId] = useState<string>(picked?.room ?? first?.id ?? "");
  const room = day.rooms.find((r) => r.id === roomId);
  const [start, setStart] = useState<string>(picked?.start ?? firstStart(room, sessions));
  const ends = room && start ? endChoices(room, start) : [];
  const [end, setEnd] = useState<string>(ends[0] ? `${ends[0].value}|${ends[0].nextDay}` : "");
  const [notes, setNotes] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const [booked, setBooked] = useState<Booking | null>(null);
  // The API's price of the chosen time (POST …/quote: the checkout's own figures, nothing
  // reserved), fetched again whenever the room or the times change.
  const [quote, setQuote] = useState<Quote | null>(null);
  const [quoteError, setQuoteError] = useState<Error | null>(null);
  useEffect(() => {
    setQuote(null);
    setQuoteError(null);
    if (!roomId || !start || !end) return;
    const [endTime, nextDay] = end.split("|");
    let live = true;
    api<Quote>("POST", `/api/v1/studios/${encodeURIComponent(studio.id)}/quote`, {
      body: { date: day.date, room_id: roomId, start_time: start, end_time: endTime, ends_next_day: nextDay === "true" },
    }).then(
      (q) => live && setQuote(q),
      (e: Error) => live && setQuoteError(e),
    );
    return () => {
      live = false;
    };
  }, [studio.id, day.date, roomId, start, end]);

  function chooseRoom(id: string) {
    setRoomId(id);
    const r = day.rooms.find((x) => x.id === id);
    const s = firstStart(r, sessions);
    setStart(s);
    const e = r && s ? endChoices(r, s)[0] : undefined;
    setEnd(e ? `${e.value}|${e.nextDay}` : "");
  }
  function chooseStart(s: string) {
    setStart(s);
    const e = room ? endChoices(room, s)[0] : undefined;
    setEnd(e ? `${e.value}|${e.nextDay}` : "");
  }

  async function book(event: Event) {
    event.preventDefault();
    setError(null);
    setBusy(true);
    const [endTime, nextDay] = end.split("|");
    try {
      const result = await api<Booking>("POST", `/api/v1/studios/${encodeURIComponent(studio.id)}/book`, {
        body: {
          date: day.date,
          room_id: roomId,
          start_time: start,
          end_time: endTime,
          ends_next_day: nextDay === "true",
          ...(notes.trim() ? { notes: notes.trim() } : {}),
        },
      });
      setBooked(result);
      onBooked();
    } catch (e) {
      setError(e as Error);
      // Taken meanwhile (409 slot_unavailable): show the date's time as it is now.
      if (e instanceof ApiError && e.status === 409) onBooked();
    } finally {
      setBusy(false);
    }
  }

  if (booked) return <Confirmation booking={booked} onAgain={() => setBooked(null)} />;
  if (bookable.length === 0) {
    return (
      <Section title="Book a room">
        <p class="muted">No room has a free start on {day.date}; try another date.</p>
      </Section>
    );
  }
  const endChoice = ends.find((e) => `${e.value}|${e.nextDay}` === end);
  return (
    <section class="card" aria-labelledby="book-title">
      <h2 id="book-title">Book a room on {day.date}</h2>
      <form onSubmit={book}>
        <div class="row">
          <div>
            <label for="book-room">Room</label>
            <select id="book-room" value={roomId} onChange={(e) => chooseRoom((e.target as HTMLSelectElement).value)}>
              {bookable.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.name}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="book-start">Start time</label>
            <select id="book-start" value={start} onChange={(e) => chooseStart((e.target as HTMLSelectElement).value)}>
              {(room?.start_times ?? []).map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="book-end">End time</label>
            <select id="book-end" value={end} onChange={(e) => setEnd((e.target as HTMLSelectElement).value)}>
              {ends.map((e) => (
                <option key={`${e.value}|${e.nextDay}`} value={`${e.value}|${e.nextDay}`}>
                  {e.text}
                </option>
              ))}
            </select>
          </div>
        </div>
        <label for="book-notes">Notes for the studio (optional)</label>
        <textarea id="book-notes" maxLength={1000} value={notes} onInput={(e) => setNotes((e.target as HTMLTextAreaElement).value)} />
        {room && (
          <p class="notice">
            {room.name}, {day.date} {start}–{endChoice?.text ?? "?"} ({day.timezone}), at {formatMoney(room.hourly_rate_cents, room.currency)} an hour.
          </p>
        )}
        {quote && (
          <dl class="quote" aria-label="Price" aria-live="polite">
            <dt>Duration</dt>
            <dd>{quote.duration_minutes} min</dd>
            <dt>Subtotal</dt>
            <dd data-testid="price-subtotal">{formatMoney(quote.subtotal_cents, quote.currency)}</dd>
            <dt>Platform fee (2.5%)</dt>
            <dd data-testid="price-fee">{formatMoney(quote.platform_fee_cents, quote.currency)}</dd>
            <dt>Total</dt>
            <dd data-testid="price-total">
              <strong>{formatMoney(quote.total_cents, quote.currency)}</strong>
            </dd>
          </dl>
        )}
        <ErrorBox error={quoteError} />
        <ErrorBox error={error} />
        <button type="submit" disabled={busy || !room || !start || !end}>
          {busy ? "Booking…" : "Book this slot"}
        </button>
      </form>
    </section>
  );
}

function Confirmation({ booking: b, onAgain }: { booking: Booking; onAgain: () => void }) {
  return (
    <section class="card confirmation" aria-labelledby="confirmation-title">
      <h2 id="confirmation-title">Booking confirmed</h2>
      <p role="status">
        {b.room_name} at {b.studio_name}, {b.date} {timeOf(b)} ({b.timezone}): <span class={`status status-${b.status}`}>{b.status}</span>
      </p>
      <dl class="quote" aria-label="Amounts">
        <dt>Booking</dt>
        <dd>
          <code data-testid="booking-id">{b.id}</code>
        </dd>
        <dt>Duration</dt>
        <dd>{b.duration_minutes} min at {formatMoney(b.hourly_rate_cents, b.currency)} an hour</dd>
        <dt>Subtotal</dt>
        <dd data-testid="quote-subtotal">{formatMoney(b.subtotal_cents, b.currency)}</dd>
        <dt>Platform fee (2.5%)</dt>
        <dd data-testid="quote-fee">{formatMoney(b.platform_fee_cents, b.currency)}</dd>
        <dt>Total</dt>
        <dd data-testid="quote-total">
          <strong>{formatMoney(b.total_cents, b.currency)}</strong>
        </dd>
        <dt>Booked</dt>
        <dd>{formatDate(b.created_at)}</dd>
      </dl>
      <p class="muted">Cancelling refunds the whole total with 48 hours' notice or more, half the subtotal with 24 to 48 hours, nothing later.</p>
      <button type="button" class="secondary" onClick={onAgain}>
        Book another slot
      </button>
    </section>
  );
}
