-- wrk script: paced customer look-ups (like wrk-paced.lua, DELAY_MS between requests per
-- connection) that walk the ids in IDS, one a line, so each request reads a different customer.
local pause = tonumber(os.getenv("DELAY_MS") or "4")
local ids = {}
for line in io.lines(os.getenv("IDS")) do
    if #line > 0 then ids[#ids + 1] = line end
end
local next_id = 0

function delay()
    return pause
end

function request()
    next_id = next_id + 1
    return wrk.format("GET", "/v1/customers/" .. ids[(next_id % #ids) + 1])
end
