//! The Lua scripts that run in Redis: an admission (quota, batch GCRA, key GCRA) and the addition of requests counted during an outage.
//!
//! Times are microseconds since the Unix epoch, passed by the caller (the service's clock).
//! Lua's numbers are doubles, exact for integers below 2^53 (about 285 years of microseconds),
//! and `%.0f` writes them back without loss.

use redis::Script;

/// Keys: the account's monthly count, the account's batch limiter, the key's limiter.
/// Arguments: now, the monthly limit (-1 when unlimited), the count to start from when the
/// count is missing (what the server knows), the batch interval and burst (burst 0: not a batch
/// request), the key's interval and burst, and the count's time to live in milliseconds.
/// Returns `{verdict, wait, used}`: verdict 0 admitted, 1 monthly quota, 2 batch, 3 per second.
///
/// The GCRA is the domain's `qr_domain::accounts::limit_state::gcra`, line for line.
pub(crate) const ADMIT: &str = r"
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local used = redis.call('GET', KEYS[1])
if used then used = tonumber(used) else used = tonumber(ARGV[3]) end
if limit >= 0 and used >= limit then
  return {1, 0, used}
end
local function gcra(key, interval, burst)
  local tat = redis.call('GET', key)
  if tat then tat = tonumber(tat) else tat = now end
  if tat < now then tat = now end
  local tolerance = interval * (burst - 1)
  if tat - now > tolerance then
    return nil, tat - tolerance - now
  end
  return tat + interval, 0
end
local batch_tat = nil
local batch_burst = tonumber(ARGV[5])
if batch_burst > 0 then
  local tat, wait = gcra(KEYS[2], tonumber(ARGV[4]), batch_burst)
  if not tat then
    return {2, wait, used}
  end
  batch_tat = tat
end
local key_tat, wait = gcra(KEYS[3], tonumber(ARGV[6]), tonumber(ARGV[7]))
if not key_tat then
  return {3, wait, used}
end
-- A limiter's state is worthless once its arrival time has passed: let it expire a second later.
redis.call('SET', KEYS[3], string.format('%.0f', key_tat), 'PX', math.floor((key_tat - now) / 1000) + 1000)
if batch_tat then
  redis.call('SET', KEYS[2], string.format('%.0f', batch_tat), 'PX', math.floor((batch_tat - now) / 1000) + 1000)
end
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('SET', KEYS[1], string.format('%.0f', used), 'PX', ARGV[8])
end
return {0, 0, redis.call('INCR', KEYS[1])}
";

/// Keys: an account's monthly count. Arguments: the count to start from when it is missing,
/// the requests to add, the count's time to live in milliseconds. Returns the new count.
pub(crate) const ADD: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
end
return redis.call('INCRBY', KEYS[1], ARGV[2])
";

/// The scripts, hashed once (they run by `EVALSHA`, loaded again after a Redis restart).
pub(crate) struct Scripts {
    pub(crate) admit: Script,
    pub(crate) add: Script,
}

impl Scripts {
    pub(crate) fn new() -> Scripts {
        Scripts {
            admit: Script::new(ADMIT),
            add: Script::new(ADD),
        }
    }
}
