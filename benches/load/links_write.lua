-- wrk script for the link-write case: every request creates a new link (POST /api/links).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local n = 0
request = function()
  n = n + 1
  local body = string.format('{"name":"load %d","targetUrl":"https://example.com/load/%d"}', n, n)
  return wrk.format(nil, nil, nil, body)
end
dofile(os.getenv("LOAD_DIR") .. "/report.lua")
