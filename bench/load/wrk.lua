-- wrk script of bench/load.py: the requests of a phase ("burst": GET /api/v1/credits; "mix":
-- credits and voice lists alternating, one TTS per 100 reads) and a tally of the statuses
-- answered, printed with the latency percentiles when the run is done.
-- Arguments (after --): phase, Authorization header value, TTS body.

local threads = {}
-- Retry-After delays owed: a 503 defers the thread's next request by what it asks, as a client
-- that honours Retry-After would (wrk asks `delay` before each request of the thread; which of
-- its connections waits is wrk's choice, the number of waits is the number of 503s).
local owed = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  counts = {}
  phase = args[1]
  auth = args[2]
  tts = args[3]
  sent = 0
end

function request()
  sent = sent + 1
  local headers = {}
  if auth ~= "" then
    headers["Authorization"] = auth
  end
  if phase == "mix" then
    if sent % 100 == 99 then
      headers["Content-Type"] = "application/json"
      return wrk.format("POST", "/api/v1/speech/tts", headers, tts)
    elseif sent % 2 == 1 then
      return wrk.format("GET", "/api/v1/voices?limit=10", headers)
    end
  end
  return wrk.format("GET", "/api/v1/credits", headers)
end

function response(status, headers, body)
  counts[status] = (counts[status] or 0) + 1
  if status == 503 then
    local after = headers["retry-after"] or headers["Retry-After"] or "1"
    table.insert(owed, (tonumber(after) or 1) * 1000)
  end
end

function delay()
  if #owed > 0 then
    return table.remove(owed, 1)
  end
  return 0
end

function done(summary, latency, requests)
  local total = {}
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get("counts")) do
      total[status] = (total[status] or 0) + n
    end
  end
  io.write("statuses")
  for status, n in pairs(total) do
    io.write(string.format(" %d=%d", status, n))
  end
  io.write("\n")
  io.write(string.format("latency_us p50=%d p99=%d max=%d\n",
    latency:percentile(50), latency:percentile(99), latency.max))
  local e = summary.errors
  io.write(string.format("errors connect=%d read=%d write=%d timeout=%d\n",
    e.connect, e.read, e.write, e.timeout))
  io.write(string.format("requests=%d duration_us=%d\n", summary.requests, summary.duration))
end
