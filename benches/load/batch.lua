-- wrk script: POST /api/batch with 100 items (34-character URLs with a running suffix, 300 px PNG).
local items = {}
for i = 1, 100 do
  items[#items + 1] = string.format('{"data":"https://qr.example.com/r/7K3M%04d"}', i)
end
wrk.method = "POST"
wrk.body = '{"defaults":{"size":300,"format":"png"},"items":[' .. table.concat(items, ",") .. ']}'
wrk.headers["Content-Type"] = "application/json"
