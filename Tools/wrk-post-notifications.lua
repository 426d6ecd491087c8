-- wrk script: each request POSTs the next line of NOTIFICATIONS (webhook bodies), so every
-- request carries a distinct signed notification. With DELAY_MS, each connection waits that long
-- between requests: a steady webhook load well below what the machine can verify, so its latency
-- measures the server, not a queue.
local path = os.getenv("NOTIFICATIONS")
local pause = tonumber(os.getenv("DELAY_MS") or "")
-- SKIP: start this many lines in, so two runs against one server post different notifications.
local skip = tonumber(os.getenv("SKIP") or "0")
local bodies = {}
for line in io.lines(path) do
    if #line > 0 then bodies[#bodies + 1] = line end
end
-- Each thread has its own Lua state: threads walk the file from evenly spaced starts.
local started = 0

function setup(thread)
    thread:set("id", started)
    started = started + 1
end

function init(args)
    index = id * math.floor(#bodies / 2) + skip
end

if pause then
    function delay()
        return pause
    end
end

function request()
    local body = bodies[(index % #bodies) + 1]
    index = index + 1
    return wrk.format("POST", "/v1/notifications/appstore", {["Content-Type"] = "application/json"}, body)
end

function done(summary, latency, requests)
    local non2xx = summary.errors.status
    io.write(string.format("posted %d requests, %d non-2xx, p50 %.2f ms, p99 %.2f ms\n",
        summary.requests, non2xx, latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
