-- wrk script: each request POSTs the next line of NOTIFICATIONS (webhook bodies), so every
-- request carries a distinct signed notification. With DELAY_MS, each connection waits that long
-- between requests: a steady webhook load well below what the machine can verify, so its latency
-- measures the server, not a queue.
--
-- Lines are read as they are posted, never loaded whole: a simulation's file is hundreds of MB,
-- and loading it (once per thread's Lua state) kept a core busy for seconds at the start of a
-- run, which the look-ups measured beside it took for the server's latency.
local path = os.getenv("NOTIFICATIONS")
local pause = tonumber(os.getenv("DELAY_MS") or "")
-- OFFSET: start at the line after the one holding this byte, so two runs against one server
-- post different notifications.
local offset = tonumber(os.getenv("OFFSET") or "0")
-- ONCE (one thread only): stop at the end of the file instead of wrapping, so every notification
-- posted is new (a repeated one is answered without being stored, which flatters a rate).
local once = os.getenv("ONCE") ~= nil
local finished = false
local started = 0
local threads = {}
-- Times this thread's walk went back to the start: a repeat is answered as a duplicate, without
-- being verified or stored, so a run that wraps measures less than new notifications cost.
wraps = 0

function setup(thread)
    assert(not (once and started > 0), "ONCE walks the file in one thread: run wrk with -t1")
    thread:set("id", started)
    started = started + 1
    threads[#threads + 1] = thread
end

-- Each thread has its own Lua state: the first walks the file from OFFSET, the second from
-- halfway through the rest, wrapping at the end.
function init(args)
    file = assert(io.open(path, "rb"))
    local size = file:seek("end")
    assert(size > offset, "NOTIFICATIONS holds nothing past OFFSET: " .. path)
    local start = offset + id * math.floor((size - offset) / 2)
    file:seek("set", start)
    if start > 0 then file:read("l") end
end

local function next_body()
    local line, wrapped = file:read("l"), false
    while line == nil or #line == 0 do
        if line == nil then
            assert(not wrapped, "NOTIFICATIONS holds no notification: " .. path)
            finished = finished or once
            file:seek("set", 0)
            wrapped = true
            wraps = wraps + 1
        end
        line = file:read("l")
    end
    return line
end

if pause then
    function delay()
        return pause
    end
end

function request()
    return wrk.format("POST", "/v1/notifications/appstore", {["Content-Type"] = "application/json"}, next_body())
end

if once then
    function response()
        if finished then wrk.thread:stop() end
    end
end

function done(summary, latency, requests)
    local non2xx = summary.errors.status
    local wrapped = 0
    for _, thread in ipairs(threads) do wrapped = wrapped + thread:get("wraps") end
    io.write(string.format("posted %d requests, %d non-2xx, p50 %.2f ms, p99 %.2f ms, wrapped %d times\n",
        summary.requests, non2xx, latency:percentile(50) / 1000, latency:percentile(99) / 1000, wrapped))
end
