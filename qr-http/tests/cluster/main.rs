//! Integration tests of several servers on one PostgreSQL database (and Redis), in one binary (each binary links the whole server): the API and the dashboard, one module each.

// The helpers every binary shares; each binary uses a part of them.
#[path = "../common/mod.rs"]
mod common;

mod cluster;
mod dashboard_postgres;
