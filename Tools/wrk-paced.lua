-- wrk script: each connection waits DELAY_MS (default 4) between requests, so a few connections
-- make a steady, bounded read load (4 connections ≈ 1,000 requests/s) instead of as many as the
-- CPU allows, which on a small machine would starve the ingestion being measured beside it.
local pause = tonumber(os.getenv("DELAY_MS") or "4")

function delay()
    return pause
end
