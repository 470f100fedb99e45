-- wrk script for the redirect case: every request from its own visitor address (X-Forwarded-For,
-- which HAProxy extends and the server trusts from 127.0.0.1), so the cap of 10 scans a minute per
-- visitor and link never applies and every redirect records a scan, as a crowd of phones does.
-- Knobs (environment):
--   REDIRECT_CODES  comma-separated short codes: request i asks /r/<code i mod N> (the spread
--                   case: a crowd scanning 1,000 posters instead of one); unset, the URL's path.
--   COUNT_RESPONSES 1: count the responses by status and Location, and print one line
--                   `RESPONSES status=302 count=N location=URL` per pair after the RESULT line
--                   (the maxScans race tells redirects to the target from those to expiredUrl).
local codes = {}
for code in string.gmatch(os.getenv("REDIRECT_CODES") or "", "[^,]+") do
  codes[#codes + 1] = "/r/" .. code
end
local counting = os.getenv("COUNT_RESPONSES") == "1"

local threads = {}
setup = function(thread)
  thread:set("id", #threads)
  threads[#threads + 1] = thread
end
local n = 0
request = function()
  -- 4,194,304 addresses per thread in 10.0.0.0/8 before one repeats.
  local k = (id or 0) * 4194304 + n
  n = (n + 1) % 4194304
  wrk.headers["X-Forwarded-For"] = string.format("10.%d.%d.%d",
    math.floor(k / 65536) % 256, math.floor(k / 256) % 256, k % 256)
  if #codes > 0 then
    -- Threads start at different codes: their k differ by 4,194,304, which is 304 mod 1,000.
    return wrk.format(nil, codes[k % #codes + 1])
  end
  return wrk.format()
end

-- Counts per "status location" key, in each thread's own state; summed in done.
counts = {}
if counting then
  response = function(status, headers, body)
    local key = status .. " " .. (headers["Location"] or headers["location"] or "-")
    counts[key] = (counts[key] or 0) + 1
  end
end

dofile(os.getenv("LOAD_DIR") .. "/report.lua")
if counting then
  local report = done
  done = function(summary, latency, requests)
    report(summary, latency, requests)
    local total = {}
    for _, thread in ipairs(threads) do
      for key, count in pairs(thread:get("counts")) do
        total[key] = (total[key] or 0) + count
      end
    end
    for key, count in pairs(total) do
      local status, location = string.match(key, "^(%d+) (.*)$")
      io.write(string.format("RESPONSES status=%s count=%d location=%s\n", status, count, location))
    end
  end
end
