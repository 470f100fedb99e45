-- wrk script for the redirect case: every request from its own visitor address (X-Forwarded-For,
-- which HAProxy extends and the server trusts from 127.0.0.1), so the cap of 10 scans a minute per
-- visitor and link never applies and every redirect records a scan, as a crowd of phones does.
local threads = 0
setup = function(thread)
  thread:set("id", threads)
  threads = threads + 1
end
local n = 0
request = function()
  -- 4,194,304 addresses per thread in 10.0.0.0/8 before one repeats.
  local k = (id or 0) * 4194304 + n
  n = (n + 1) % 4194304
  wrk.headers["X-Forwarded-For"] = string.format("10.%d.%d.%d",
    math.floor(k / 65536) % 256, math.floor(k / 256) % 256, k % 256)
  return wrk.format()
end
dofile(os.getenv("LOAD_DIR") .. "/report.lua")
