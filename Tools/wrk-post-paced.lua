-- wrk script: as wrk-post-notifications.lua (each request POSTs the next signed notification of
-- NOTIFICATIONS), but each connection waits DELAY_MS between requests: a steady webhook load
-- well below what the machine can verify, so its latency measures the server, not a queue.
local pause = tonumber(os.getenv("DELAY_MS") or "100")
local path = os.getenv("NOTIFICATIONS")
local bodies = {}
for line in io.lines(path) do
    if #line > 0 then bodies[#bodies + 1] = line end
end
local started = 0

function setup(thread)
    thread:set("id", started)
    started = started + 1
end

function init(args)
    index = id * math.floor(#bodies / 2)
end

function delay()
    return pause
end

function request()
    local body = bodies[(index % #bodies) + 1]
    index = index + 1
    return wrk.format("POST", "/v1/notifications/appstore", {["Content-Type"] = "application/json"}, body)
end

function done(summary, latency, requests)
    io.write(string.format("posted %d requests, %d non-2xx, p50 %.2f ms, p99 %.2f ms\n",
        summary.requests, summary.errors.status, latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
