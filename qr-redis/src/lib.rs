//! The Redis adapter of the domain's [`qr_domain::accounts::limit_state::LimitState`]: every server's requests count against one per-second budget per key, one batch budget and one monthly count per account.
//!
//! One Lua script applies an admission atomically in Redis (the monthly count, then the batch
//! GCRA, then the key's GCRA, and only when all pass, both limiters advance and the count
//! grows), so servers racing never both take the last unit of a budget. The keys of one account
//! share a hash tag (`qr:{<account>}:…`), so the script also runs on Redis Cluster.
//!
//! When Redis cannot be reached, admission fails open: each server falls back to its own
//! in-memory limiters (a per-server budget), logs the outage at `error` level once and every
//! 30 seconds while it lasts, and keeps counting; when Redis answers again, the requests
//! counted meanwhile are added to its counts, so the monthly quota loses nothing. Monthly
//! counts stay durable in the database through the service's flush, as without Redis.
#![forbid(unsafe_code)]

mod limits;
mod scripts;

pub use limits::{OpenError, RedisLimits};
