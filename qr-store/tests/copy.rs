//! `qr_store::copy`: an SQLite deployment moves into PostgreSQL with every record (the dashboard's users, memberships, invitations, passwords, tokens, sessions, second factors, passkeys with their ceremonies, plan requests and daily counts included), and answers the same there.

use std::sync::Arc;

use qr_domain::accounts::caller::Caller;
use qr_domain::accounts::permissions::MemberRole;
use qr_domain::chrono::{Duration, TimeZone, Utc};
use qr_domain::dashboard::token::TokenHash;
use qr_domain::dashboard::totp::step_at;
use qr_domain::passkeys::{
    CEREMONY_LIFETIME, Ceremony, CeremonyPurpose, CeremonyState, CredentialId, Passkey,
    PasskeyData, PasskeyName,
};
use qr_domain::service::LoginError;
use qr_domain::service::{Resolution, SignUp, Visit};
use qr_domain::sso::{IssuerAddresses, SsoSettingsInput};
use qr_domain::{
    AnalyticsQuery, Clock, KeyMode, NoGeoLocator, Plan, Service, Store, TestClock, TokenPurpose,
};
use qr_store::copy::{CopyError, copy};
use qr_store::{Database, Location};
use qr_test_support::servers::postgres::PgCluster;

fn visit(i: u32, agent: &str) -> Visit {
    Visit {
        ip: Some(format!("192.0.2.{}", i % 200).parse().unwrap()),
        user_agent: Some(agent.to_owned()),
        referer: Some("https://news.example/a?x=1".to_owned()),
        hint: Default::default(),
    }
}

const PASSWORD: &str = "plum tree at dawn";
const PHONE: &str = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";
const DESKTOP: &str =
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0";

#[test]
fn a_deployment_moves_to_postgres_without_loss() {
    let Some(cluster) = PgCluster::shared("the SQLite to PostgreSQL copy") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let from = Location::Sqlite(dir.path().join("qr.db"));
    let clock = TestClock::new(Utc.with_ymd_and_hms(2024, 5, 1, 9, 0, 0).unwrap());
    let sqlite_store = Arc::new(Database::open(&from).unwrap());
    let sqlite = Service::new(
        Arc::clone(&sqlite_store),
        clock.clone(),
        Arc::new(NoGeoLocator),
    )
    .unwrap();
    let owner = sqlite
        .create_account("Owner@Example.com", Plan::Pro)
        .unwrap();
    let other = sqlite.create_account("b@example.com", Plan::Free).unwrap();
    let (key, secret) = sqlite.create_key(owner.id, KeyMode::Live).unwrap();
    let ctx = sqlite
        .authenticate(Some(secret.expose_secret()), None)
        .unwrap();
    for _ in 0..3 {
        sqlite.admit(&ctx, false).unwrap();
    }
    let kept = sqlite
        .create_link(
            &Caller::operator(owner.id),
            "Poster",
            "https://example.com/poster",
        )
        .unwrap();
    let gone = sqlite
        .create_link(
            &Caller::operator(other.id),
            "Old",
            "https://example.com/old",
        )
        .unwrap();
    for _day in 0..3 {
        for i in 0..40 {
            let agent = if i % 3 == 0 { DESKTOP } else { PHONE };
            sqlite.record_scan(&kept, &visit(i, agent)).unwrap();
        }
        clock.advance(Duration::days(1));
    }
    sqlite.record_scan(&gone, &visit(1, PHONE)).unwrap();
    sqlite
        .delete_link(&Caller::operator(other.id), gone.id)
        .unwrap();
    // The dashboard's records: a customer with a password who asked for Pro (a plan request),
    // has a verification link waiting (a token) and is logged in (a session).
    let SignUp::Created {
        user: customer_user,
        account: customer,
        requested: Some(Plan::Pro),
    } = sqlite
        .sign_up("customer@example.com", PASSWORD, Plan::Pro)
        .unwrap()
    else {
        panic!("a new account with a plan request");
    };
    let (_, verification) = sqlite
        .issue_token(customer_user.id, TokenPurpose::Verify)
        .unwrap();
    let (_, session) = sqlite
        .log_in("customer@example.com", PASSWORD, None, Some(DESKTOP))
        .unwrap();
    // The owner invited someone; the invitation's link works after the move.
    let (_, invitation) = sqlite
        .invite(
            &Caller::operator(owner.id),
            "invitee@example.com",
            MemberRole::Member,
        )
        .unwrap();
    // Single sign-on: the owner's settings (with the client secret the provider must be shown)
    // and the customer's identity link.
    let sso = SsoSettingsInput {
        issuer: "https://id.example",
        client_id: "qr-app",
        client_secret: "the-client-secret",
        allowed_domains: "example.com",
        default_role: "member",
    };
    sqlite
        .save_sso_settings(
            &Caller::operator(owner.id),
            sso,
            IssuerAddresses::PublicOnly,
        )
        .unwrap();
    sqlite_store
        .write(|tx| {
            tx.link_sso_identity("https://id.example", "sub-1", customer_user.id, clock.now())
        })
        .unwrap();
    // Her second factor (an authenticator app with its recovery codes), which her workspace
    // requires.
    let ctx = sqlite.session(session.expose()).unwrap().unwrap();
    let totp = sqlite.begin_totp_enrolment(&ctx).unwrap();
    let code = totp.code_at_step(step_at(clock.now()).unwrap());
    let recovery = sqlite.confirm_totp_enrolment(&ctx, &code, None).unwrap();
    sqlite.require_two_factor(&ctx.caller(None), &ctx).unwrap();
    // And a passkey she has signed in with, with two ceremonies in flight: her second step's
    // and a passkey login's, which names nobody yet.
    let passkey = Passkey {
        credential_id: CredentialId::new(vec![0xa5; 32]).unwrap(),
        user_id: customer_user.id,
        name: PasskeyName::parse("Work laptop").unwrap(),
        data: PasskeyData::new(r#"{"cred":"public key","counter":3}"#.to_owned()),
        created_at: clock.now() - Duration::hours(2),
        last_used_at: Some(clock.now() - Duration::minutes(30)),
    };
    let ceremony = |byte: u8, purpose, user_id| Ceremony {
        hash: TokenHash([byte; 32]),
        purpose,
        user_id,
        state: CeremonyState::new(format!(r#"{{"challenge":{byte}}}"#)),
        created_at: clock.now(),
        expires_at: clock.now() + CEREMONY_LIFETIME,
    };
    let second_step = ceremony(1, CeremonyPurpose::SecondFactor, Some(customer_user.id));
    let passkey_login = ceremony(2, CeremonyPurpose::Login, None);
    sqlite_store
        .write(|tx| {
            tx.insert_passkey(&passkey)?;
            tx.insert_ceremony(&second_step)?;
            tx.insert_ceremony(&passkey_login)
        })
        .unwrap();
    let query = AnalyticsQuery::default();
    let before = sqlite.analytics(&owner, kept.id, &query).unwrap();
    sqlite.shutdown().unwrap();
    drop(sqlite);

    let to = Location::Postgres(cluster.create_database());
    let report = copy(&from, &to).unwrap();
    let rows = |table: &str| report.iter().find(|r| r.table == table).unwrap().rows;
    assert_eq!(rows("api_keys"), 1);
    assert_eq!(rows("links"), 1);
    assert_eq!(rows("tombstones"), 1);
    assert_eq!(rows("scans"), 120);
    assert_eq!(rows("usage"), 1);
    assert!(rows("daily_dims") > 0 && rows("salts") > 0);
    for table in [
        "tokens",
        "sessions",
        "plan_requests",
        "daily_usage",
        "two_factors",
        "two_factor_required",
        "passkeys",
    ] {
        assert_eq!(rows(table), 1, "{table}");
    }
    assert_eq!(rows("accounts"), 3);
    assert_eq!(rows("users"), 3);
    assert_eq!(rows("memberships"), 3);
    assert_eq!(rows("invitations"), 1);
    assert_eq!(rows("sso_settings"), 1);
    assert_eq!(rows("sso_identities"), 1);
    assert_eq!(rows("passkey_ceremonies"), 2);
    // The scans landed in their days' partitions, which retention drops whole.
    let Location::Postgres(url) = &to else {
        unreachable!("the destination is PostgreSQL")
    };
    let mut client = postgres::Client::connect(url, postgres::NoTls).unwrap();
    let per_day: Vec<i64> = [
        "scans_default",
        "scans_20240501",
        "scans_20240502",
        "scans_20240503",
    ]
    .iter()
    .map(|t| {
        client
            .query_one(&format!("SELECT count(*) FROM {t}"), &[])
            .unwrap()
            .get(0)
    })
    .collect();
    assert_eq!(per_day, vec![0, 40, 40, 40]);

    let pg = Service::new(
        Arc::new(Database::open(&to).unwrap()),
        clock.clone(),
        Arc::new(NoGeoLocator),
    )
    .unwrap();
    let moved = pg.authenticate(Some(secret.expose_secret()), None).unwrap();
    assert_eq!(moved.key.id, key.id);
    assert_eq!(moved.account, owner);
    let sso_moved = pg
        .sso_settings(&Caller::operator(owner.id))
        .unwrap()
        .expect("the settings moved");
    assert_eq!(
        sso_moved.settings.client_secret.reveal_to_provider(),
        "the-client-secret"
    );
    assert_eq!(pg.usage(&moved).usage.current, 3);
    let day_one = Utc
        .with_ymd_and_hms(2024, 5, 1, 0, 0, 0)
        .unwrap()
        .date_naive();
    assert!(
        pg.daily_requests(owner.id).unwrap().contains(&(day_one, 3)),
        "the chart's daily counts moved"
    );
    // The customer's session, plan request, verification link and password work on PostgreSQL.
    let ctx = pg
        .session(session.expose())
        .unwrap()
        .expect("the session moved");
    assert_eq!(ctx.account.id, customer.id);
    assert!(ctx.two_factor_on && ctx.two_factor_required);
    assert_eq!(
        pg.pending_plan_request(customer.id)
            .unwrap()
            .map(|r| r.plan),
        Some(Plan::Pro)
    );
    assert!(
        pg.verify_email(verification.expose())
            .unwrap()
            .email_verified_at
            .is_some()
    );
    let Err(LoginError::SecondFactorNeeded(pending)) =
        pg.log_in("customer@example.com", PASSWORD, None, Some(PHONE))
    else {
        panic!("her second factor moved");
    };
    let (logged_in, _) = pg
        .finish_login(
            pending.expose(),
            recovery[0].expose_secret(),
            None,
            Some(PHONE),
        )
        .unwrap();
    assert_eq!(logged_in.id, customer_user.id);
    assert_eq!(
        pg.passkeys(customer_user.id).unwrap(),
        [passkey],
        "her passkey moved, field for field"
    );
    let pg_store = Database::open(&to).unwrap();
    for moved in [second_step, passkey_login] {
        assert_eq!(
            pg_store.write(|tx| tx.take_ceremony(&moved.hash)).unwrap(),
            Some(moved),
            "the ceremonies in flight moved"
        );
    }
    drop(pg_store);
    assert_eq!(
        pg.workspaces_of(customer_user.id).unwrap().len(),
        1,
        "her membership moved"
    );
    let moved_invitation = pg.invitation_for_token(invitation.expose()).unwrap();
    assert_eq!(moved_invitation.workspace.id, owner.id);
    assert_eq!(
        moved_invitation.invitation.email.as_str(),
        "invitee@example.com"
    );
    assert_eq!(pg.analytics(&owner, kept.id, &query).unwrap(), before);
    assert_eq!(
        pg.resolve(None, gone.short_code.as_str()).unwrap(),
        Resolution::Gone
    );
    // New scans get ids after the copied ones.
    let Resolution::Live(link) = pg.resolve(None, kept.short_code.as_str()).unwrap() else {
        panic!("the link is live");
    };
    assert_eq!(link.scan_count, 120);
    pg.record_scan(&link, &visit(7, PHONE)).unwrap();
    assert_eq!(
        pg.analytics(&owner, kept.id, &query)
            .unwrap()
            .analytics
            .total_scans,
        121
    );
    drop(pg);

    // A second copy would mix two deployments: refused, and nothing changes.
    let again = copy(&from, &to).unwrap_err();
    assert!(
        matches!(
            again,
            CopyError::NotEmpty {
                table: "accounts",
                rows: 3,
                ..
            }
        ),
        "{again}"
    );
    let backwards = copy(&to, &from).unwrap_err();
    assert!(
        matches!(backwards, CopyError::Unsupported { .. }),
        "{backwards}"
    );
}
