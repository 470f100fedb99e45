-- wrk script for the redirect case: every request comes from another visitor, as a crowd scanning
-- a poster would. The address is a counter in 198.18.0.0/15 (the benchmarking range) sent as
-- X-Forwarded-For, which the server trusts from 127.0.0.1 in this script, so each request is a
-- scan that is counted and committed before its 302 (one visitor's replays count 10 a minute).
local n = 0
request = function()
  n = n + 1
  wrk.headers["X-Forwarded-For"] = string.format("198.%d.%d.%d",
    18 + math.floor(n / 65536) % 2, math.floor(n / 256) % 256, n % 256)
  return wrk.format()
end
dofile(os.getenv("LOAD_DIR") .. "/report.lua")
