//! `RedisLimits` against a real Redis: the same verdicts as the in-memory state, one budget shared by several servers, and failing open (then catching up) while Redis is down.

use qr_domain::accounts::limit_state::{Admit, Gcra, LimitState, MemoryLimits, Verdict};
use qr_domain::accounts::limits::{LimitKind, UsageMonth};
use qr_domain::{AccountId, KeyId};
use qr_redis::RedisLimits;
use qr_test_support::servers::redis::RedisServer;

const SECOND: i64 = 1_000_000;

fn month() -> UsageMonth {
    UsageMonth::new(2024, 5).unwrap()
}

fn admit(now: i64, key: KeyId, account: AccountId, per_second: i64) -> Admit {
    Admit {
        now,
        key,
        account,
        month: month(),
        monthly_limit: Some(1_000),
        batch: None,
        rate: Gcra {
            interval: SECOND / per_second,
            burst: per_second,
        },
    }
}

/// A small deterministic generator (64-bit LCG), so a failing sequence can be replayed.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

#[test]
fn redis_decides_exactly_as_memory_does() {
    let Some(redis) = RedisServer::start("the Redis limit state") else {
        return;
    };
    let shared = RedisLimits::open(&redis.url()).unwrap();
    assert!(shared.is_shared());
    let memory = MemoryLimits::new();
    let accounts = [AccountId::random(), AccountId::random()];
    let keys = [KeyId::random(), KeyId::random(), KeyId::random()];
    let mut rng = Lcg(7);
    let mut now = 1_714_521_600 * SECOND;
    let (mut admitted, mut refused) = (0, 0);
    for _ in 0..3_000 {
        now += i64::try_from(rng.below(400_000)).unwrap();
        let k = usize::try_from(rng.below(3)).unwrap();
        let account = accounts[k % 2];
        let per_second = [2, 10, 200][k];
        let mut request = admit(now, keys[k], account, per_second);
        request.monthly_limit = [Some(700), None][k % 2];
        if rng.below(4) == 0 {
            request.batch = Some(Gcra {
                interval: 60 * SECOND / 10,
                burst: 10,
            });
        }
        let expected = memory.admit(&request);
        assert_eq!(shared.admit(&request), expected, "at {now}: {request:?}");
        match expected {
            Verdict::Admitted { .. } => admitted += 1,
            Verdict::Refused { .. } => refused += 1,
        }
    }
    assert!(admitted > 500 && refused > 500, "{admitted} / {refused}");
    for account in accounts {
        assert_eq!(shared.used(account, month()), memory.used(account, month()));
    }
    assert_eq!(
        shared.take_dirty(month()).len(),
        memory.take_dirty(month()).len()
    );
}

#[test]
fn two_servers_share_one_budget() {
    let Some(redis) = RedisServer::start("the Redis limit state") else {
        return;
    };
    let servers = [
        RedisLimits::open(&redis.url()).unwrap(),
        RedisLimits::open(&redis.url()).unwrap(),
    ];
    let (key, account) = (KeyId::random(), AccountId::random());
    let now = 1_714_521_600 * SECOND;
    // A rate of 2 per second allows a burst of 2, wherever the requests land.
    assert!(matches!(
        servers[0].admit(&admit(now, key, account, 2)),
        Verdict::Admitted { used: 1 }
    ));
    assert!(matches!(
        servers[1].admit(&admit(now, key, account, 2)),
        Verdict::Admitted { used: 2 }
    ));
    assert_eq!(
        servers[0].admit(&admit(now, key, account, 2)),
        Verdict::Refused {
            kind: LimitKind::PerSecond,
            wait: SECOND / 2,
            used: 2
        }
    );
    assert!(matches!(
        servers[1].admit(&admit(now + SECOND / 2, key, account, 2)),
        Verdict::Admitted { used: 3 }
    ));
    assert_eq!(servers[0].used(account, month()), 3);
}

#[test]
fn an_outage_fails_open_and_loses_no_count() {
    let Some(redis) = RedisServer::start("the Redis limit state") else {
        return;
    };
    let servers = [
        RedisLimits::open(&redis.url()).unwrap(),
        RedisLimits::open(&redis.url()).unwrap(),
    ];
    let account = AccountId::random();
    let keys = [KeyId::random(), KeyId::random()];
    let mut now = 1_714_521_600 * SECOND;
    let mut accepted = 0;
    let mut round = |servers: &[RedisLimits; 2], now: i64| {
        for (server, key) in servers.iter().zip(keys) {
            if matches!(
                server.admit(&admit(now, key, account, 100)),
                Verdict::Admitted { .. }
            ) {
                accepted += 1;
            }
        }
    };
    for _ in 0..10 {
        now += SECOND / 10;
        round(&servers, now);
    }
    redis.stop();
    for _ in 0..10 {
        now += SECOND / 10;
        round(&servers, now);
    }
    assert!(
        servers.iter().all(|s| !s.is_shared()),
        "both servers noticed"
    );
    redis.start_server();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !servers.iter().all(RedisLimits::is_shared) {
        assert!(std::time::Instant::now() < deadline, "Redis never rejoined");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    for _ in 0..5 {
        now += SECOND / 10;
        round(&servers, now);
    }
    assert_eq!(accepted, 50, "nothing was refused: the limits failed open");
    assert_eq!(
        servers[0].used(account, month()),
        50,
        "every request counted while Redis was down was added when it returned"
    );
}

#[test]
fn a_redis_that_lost_its_data_resumes_from_the_count_the_server_knows() {
    let Some(redis) = RedisServer::start("the Redis limit state") else {
        return;
    };
    let server = RedisLimits::open(&redis.url()).unwrap();
    let (key, account) = (KeyId::random(), AccountId::random());
    server.load(month(), &[(account, 40)]);
    let now = 1_714_521_600 * SECOND;
    assert!(matches!(
        server.admit(&admit(now, key, account, 5)),
        Verdict::Admitted { used: 41 }
    ));
    assert_eq!(redis.command(&["FLUSHALL"]).unwrap(), "+OK");
    assert!(matches!(
        server.admit(&admit(now + SECOND, key, account, 5)),
        Verdict::Admitted { used: 42 }
    ));
}
