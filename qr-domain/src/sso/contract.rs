//! Contract checks of single sign-on: settings read back and found by domain, attempts taken once and pruned after 10 minutes, identity links going with their user, settings for owners and admins only and audited without the secret, and the sign-in through a fake provider (link, join within seats, replay, an existing account not taken over).

use std::sync::Mutex;

use url::Url;

use crate::accounts::caller::Caller;
use crate::accounts::permissions::MemberRole;
use crate::accounts::plan::Plan;
use crate::audit::entry::{AuditAction, ChangeValues};
use crate::audit::query::AuditQuery;
use crate::contract::{member_of, service, setup, t, user};
use crate::error::StoreError;
use crate::ids::AccountId;
use crate::sso::store::StoredSsoSettings;
use crate::sso::{
    AuthorizationCode, DiscoveryDocument, IdTokenClaims, IdentityProvider, IssuerAddresses,
    IssuerUrl, PkceVerifier, ProviderError, ProviderMetadata, RedirectUri, SsoAttempt,
    SsoEnvironment, SsoError, SsoLoginError, SsoSettings, SsoSettingsChangeError, SsoSettingsInput,
    SsoTarget, StateToken,
};
use crate::store::Store;

const ISSUER: &str = "https://id.example";

fn input(domains: &'static str) -> SsoSettingsInput<'static> {
    SsoSettingsInput {
        issuer: ISSUER,
        client_id: "qr-app",
        client_secret: "first-secret",
        allowed_domains: domains,
        default_role: "viewer",
    }
}

fn stored(account: AccountId, domains: &'static str, enabled: bool) -> StoredSsoSettings {
    StoredSsoSettings {
        account_id: account,
        enabled,
        settings: SsoSettings::parse(input(domains), IssuerAddresses::PublicOnly).expect("valid"),
        updated_at: t("2024-03-01T10:00:00Z"),
    }
}

/// Settings read back field for field (the secret included), replaced in place, and found by
/// each of their domains while enabled; another workspace's are never returned.
pub fn sso_settings_roundtrip_and_are_found_by_domain<S: Store>(store: S) {
    let a = setup(&store, Plan::Pro);
    let b = setup(&store, Plan::Pro);
    let first = stored(a.id, "example.com corp.example", true);
    store.write(|tx| tx.put_sso_settings(&first)).expect("save");
    let back = store.read(|tx| tx.sso_settings(a.id)).expect("read");
    assert_eq!(back.as_ref(), Some(&first));
    assert_eq!(
        back.expect("saved")
            .settings
            .client_secret
            .reveal_to_provider(),
        "first-secret"
    );
    assert_eq!(store.read(|tx| tx.sso_settings(b.id)).expect("read"), None);
    let found = |domain: &str| -> Vec<AccountId> {
        store
            .read(|tx| tx.sso_settings_for_domain(domain))
            .expect("lookup")
            .into_iter()
            .map(|s| s.account_id)
            .collect()
    };
    assert_eq!(found("corp.example"), [a.id]);
    assert_eq!(found("example.com"), [a.id]);
    assert!(found("sub.example.com").is_empty(), "exact domains only");
    assert!(found("example").is_empty());
    let mut both = vec![a.id, b.id];
    both.sort();
    store
        .write(|tx| tx.put_sso_settings(&stored(b.id, "example.com", true)))
        .expect("save b");
    assert_eq!(found("example.com"), both);
    store
        .write(|tx| tx.put_sso_settings(&stored(b.id, "example.com", false)))
        .expect("disable b");
    assert_eq!(
        found("example.com"),
        [a.id],
        "disabled settings are not found"
    );
    let missing = StoredSsoSettings {
        account_id: AccountId::random(),
        ..first
    };
    assert!(matches!(
        store.write(|tx| tx.put_sso_settings(&missing)),
        Err(StoreError::Conflict(_))
    ));
    store
        .write(|tx| tx.delete_account(a.id))
        .expect("delete workspace");
    assert_eq!(store.read(|tx| tx.sso_settings(a.id)).expect("read"), None);
    assert!(found("corp.example").is_empty());
}

/// An attempt reads back whole once; a second take finds nothing; attempts older than the bound
/// given to the next insert are gone.
pub fn sso_attempts_are_taken_once_and_expire<S: Store>(store: S) {
    let a = setup(&store, Plan::Pro);
    let old = SsoAttempt::begin(a.id, t("2024-03-01T10:00:00Z")).expect("rng");
    let new = SsoAttempt::begin(a.id, t("2024-03-01T10:11:00Z")).expect("rng");
    store
        .write(|tx| tx.insert_sso_attempt(&old, t("2024-03-01T09:50:00Z")))
        .expect("keep old");
    store
        .write(|tx| tx.insert_sso_attempt(&new, t("2024-03-01T10:01:00Z")))
        .expect("keep new, prune old");
    let take = |state: &StateToken| store.write(|tx| tx.take_sso_attempt(state)).expect("take");
    assert_eq!(take(old.state()), None, "pruned after its 10 minutes");
    assert_eq!(take(new.state()), Some(new.clone()), "every field back");
    assert_eq!(take(new.state()), None, "single use");
    let other = SsoAttempt::begin(AccountId::random(), t("2024-03-01T10:11:00Z")).expect("rng");
    assert!(matches!(
        store.write(|tx| tx.insert_sso_attempt(&other, t("2024-03-01T10:01:00Z"))),
        Err(StoreError::Conflict(_))
    ));
}

/// A subject links to one user; linking it again is a conflict; the link goes with its user.
pub fn sso_identities_link_users_and_go_with_them<S: Store>(store: S) {
    let u = user();
    store.write(|tx| tx.insert_user(&u)).expect("user");
    let at = t("2024-03-01T10:00:00Z");
    store
        .write(|tx| tx.link_sso_identity(ISSUER, "sub-1", u.id, at))
        .expect("link");
    let linked = |issuer: &str, subject: &str| {
        store
            .read(|tx| tx.sso_identity(issuer, subject))
            .expect("read")
    };
    assert_eq!(linked(ISSUER, "sub-1"), Some(u.id));
    assert_eq!(linked("https://other.example", "sub-1"), None, "per issuer");
    assert_eq!(linked(ISSUER, "sub-2"), None);
    let v = user();
    store.write(|tx| tx.insert_user(&v)).expect("user");
    assert!(matches!(
        store.write(|tx| tx.link_sso_identity(ISSUER, "sub-1", v.id, at)),
        Err(StoreError::Conflict(_))
    ));
    assert!(matches!(
        store.write(|tx| tx.link_sso_identity(ISSUER, "sub-9", crate::ids::UserId::random(), at)),
        Err(StoreError::Conflict(_))
    ));
    store.write(|tx| tx.delete_user(u.id)).expect("delete");
    assert_eq!(linked(ISSUER, "sub-1"), None, "gone with the user");
    store
        .write(|tx| tx.link_sso_identity(ISSUER, "sub-1", v.id, at))
        .expect("the subject may link again once its user is gone");
    assert_eq!(linked(ISSUER, "sub-1"), Some(v.id));
}

/// Owners and admins read and save settings, members and viewers are refused; an empty secret
/// keeps the saved one; `settings.changed` names the secret as changed, never its value.
pub fn service_sso_settings_are_for_owners_and_admins_and_audited<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-03-01T10:00:00Z");
    let a = svc
        .create_account("owner@example.net", Plan::Pro)
        .expect("workspace");
    let as_role = |role: MemberRole| {
        let m = member_of(&*svc.store, a.id, role);
        Caller::member(a.id, m.id, m.email.as_str(), role, None)
    };
    let admin = as_role(MemberRole::Admin);
    for role in [MemberRole::Member, MemberRole::Viewer] {
        let caller = as_role(role);
        assert!(matches!(
            svc.save_sso_settings(&caller, input("example.com"), IssuerAddresses::PublicOnly),
            Err(SsoSettingsChangeError::NotPermitted(_))
        ));
        assert!(svc.sso_settings(&caller).is_err());
        assert!(svc.disable_sso(&caller).is_err());
    }
    assert_eq!(
        svc.disable_sso(&admin),
        Err(SsoSettingsChangeError::NotSetUp)
    );
    assert!(matches!(
        svc.save_sso_settings(
            &admin,
            SsoSettingsInput {
                default_role: "owner",
                ..input("example.com")
            },
            IssuerAddresses::PublicOnly
        ),
        Err(SsoSettingsChangeError::Invalid(_))
    ));
    svc.save_sso_settings(&admin, input("example.com"), IssuerAddresses::PublicOnly)
        .expect("save");
    let kept = SsoSettingsInput {
        client_secret: "  ",
        allowed_domains: "example.com corp.example",
        ..input("")
    };
    let saved = svc
        .save_sso_settings(&admin, kept, IssuerAddresses::PublicOnly)
        .expect("save again");
    assert_eq!(
        saved.settings.client_secret.reveal_to_provider(),
        "first-secret",
        "an empty secret keeps the saved one"
    );
    svc.disable_sso(&admin).expect("disable");
    let read = svc.sso_settings(&admin).expect("read").expect("kept");
    assert!(!read.enabled);
    assert_eq!(read.settings.allowed_domains.iter().count(), 2);
    let log = svc
        .audit_log(&Caller::operator(a.id), &AuditQuery::default())
        .expect("log");
    let actions: Vec<AuditAction> = log.entries.iter().map(|e| e.entry.action).collect();
    assert_eq!(actions, [AuditAction::SettingsChanged; 3]);
    let text = format!("{:?}", log.entries);
    assert!(!text.contains("first-secret"), "{text}");
    let first = &log.entries[2].entry.changes;
    assert!(first.iter().any(
        |c| c.field == "sso.clientSecret" && c.values == ChangeValues::Hidden { hidden: true }
    ));
    let second = &log.entries[1].entry.changes;
    assert_eq!(
        second.iter().map(|c| c.field.as_str()).collect::<Vec<_>>(),
        ["sso.domains"],
        "only what changed, and the kept secret is no change"
    );
}

/// A provider answering the claims it is given, its nonce taken from the last authorization
/// URL (as a real provider echoes it).
struct FakeProvider {
    claims: Mutex<Option<IdTokenClaims>>,
}

impl IdentityProvider for FakeProvider {
    fn discover(&self, issuer: &IssuerUrl) -> Result<ProviderMetadata, ProviderError> {
        ProviderMetadata::from_discovery(
            issuer,
            DiscoveryDocument {
                issuer: Some(ISSUER.to_owned()),
                authorization_endpoint: Some(format!("{ISSUER}/auth")),
                token_endpoint: Some(format!("{ISSUER}/token")),
                jwks_uri: Some(format!("{ISSUER}/jwks")),
                ..DiscoveryDocument::default()
            },
        )
    }

    fn exchange_code(
        &self,
        _: &ProviderMetadata,
        _: &SsoSettings,
        _: &AuthorizationCode,
        _: &PkceVerifier,
        _: &RedirectUri,
    ) -> Result<IdTokenClaims, ProviderError> {
        Ok(self
            .claims
            .lock()
            .expect("lock")
            .clone()
            .expect("a sign-in began"))
    }
}

/// Starts a sign-in as `(subject, email)` and answers the callback's query and the state.
fn sign_in_as(
    provider: &FakeProvider,
    start: &crate::sso::SsoStart,
    subject: &str,
    email: &str,
) -> Vec<(String, String)> {
    let url = Url::parse(&start.authorization_url).expect("url");
    let nonce = url
        .query_pairs()
        .find(|(k, _)| k == "nonce")
        .map(|(_, v)| v.into_owned());
    *provider.claims.lock().expect("lock") = Some(IdTokenClaims {
        issuer: ISSUER.to_owned(),
        audiences: vec!["qr-app".to_owned()],
        authorized_party: None,
        subject: subject.to_owned(),
        expires_at: t("2024-03-01T11:00:00Z"),
        issued_at: t("2024-03-01T10:00:00Z"),
        nonce,
        email: Some(email.to_owned()),
        email_verified: Some(true),
    });
    vec![
        ("code".to_owned(), "c".to_owned()),
        ("state".to_owned(), start.state.as_str().to_owned()),
    ]
}

/// The whole sign-in through a fake provider: a new user joins with the default role and gets
/// a session in the workspace; the same subject signs in as the same user; a replayed callback,
/// another browser's state, a domain nobody lists and an existing non-member's address are
/// refused; a full plan refuses the newcomer; each login is audited.
pub fn service_sso_sign_in_links_joins_and_refuses<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-03-01T10:00:00Z");
    let a = svc
        .create_account("owner@example.net", Plan::Starter)
        .expect("workspace");
    let owner = Caller::operator(a.id);
    svc.save_sso_settings(&owner, input("example.com"), IssuerAddresses::PublicOnly)
        .expect("save");
    let provider = FakeProvider {
        claims: Mutex::new(None),
    };
    let redirect =
        RedirectUri::parse("https://qr.example/dashboard/login/sso/callback").expect("uri");
    let env = SsoEnvironment {
        provider: &provider,
        addresses: IssuerAddresses::PublicOnly,
        redirect_uri: &redirect,
    };
    let begin = |target| svc.begin_sso(env, target).expect("begin");
    let finish = |query: &[(String, String)], state: &str| {
        svc.finish_sso(env, query, Some(state), None, Some("Firefox"))
    };

    let start = begin(SsoTarget::Email("Jane@Example.com"));
    let query = sign_in_as(&provider, &start, "jane-1", "jane@example.com");
    let login = finish(&query, start.state.as_str()).expect("signed in");
    assert!(login.joined);
    assert_eq!(login.workspace, a.id);
    assert!(
        login.user.is_verified(),
        "the provider verified the address"
    );
    assert!(login.user.password_hash.is_none());
    let ctx = svc
        .session(login.secret.expose())
        .expect("session")
        .expect("live");
    assert_eq!(ctx.account.id, a.id);
    assert_eq!(ctx.role(), MemberRole::Viewer, "the default role");
    assert!(
        matches!(
            finish(&query, start.state.as_str()),
            Err(SsoLoginError::UnknownAttempt)
        ),
        "a replayed callback finds no attempt"
    );

    let again = begin(SsoTarget::Workspace(a.id));
    let query = sign_in_as(&provider, &again, "jane-1", "jane.new@example.com");
    assert!(matches!(
        finish(&query, "another-browsers-state"),
        Err(SsoLoginError::Sso(SsoError::StateMismatch))
    ));
    let again = begin(SsoTarget::Workspace(a.id));
    let query = sign_in_as(&provider, &again, "jane-1", "jane.new@example.com");
    let second = finish(&query, again.state.as_str()).expect("signed in again");
    assert_eq!(second.user.id, login.user.id, "the subject keeps its user");
    assert!(!second.joined);

    assert!(matches!(
        svc.begin_sso(env, SsoTarget::Email("ann@other.example")),
        Err(SsoLoginError::NoWorkspace { .. })
    ));
    let stranger = user();
    svc.store
        .write(|tx| tx.insert_user(&stranger))
        .expect("user");
    let taken = begin(SsoTarget::Workspace(a.id));
    let query = sign_in_as(&provider, &taken, "mallory", "ignored@example.com");
    // The stranger's address is at example.com in the contract's fixtures.
    let claims = provider.claims.lock().expect("lock").clone();
    *provider.claims.lock().expect("lock") = claims.map(|c| IdTokenClaims {
        email: Some(stranger.email.as_str().to_owned()),
        ..c
    });
    assert!(matches!(
        finish(&query, taken.state.as_str()),
        Err(SsoLoginError::ExistingAccount(_))
    ));

    // Starter has 3 seats: the owner's account and Jane leave one.
    let third = begin(SsoTarget::Workspace(a.id));
    let query = sign_in_as(&provider, &third, "bob-1", "bob@example.com");
    finish(&query, third.state.as_str()).expect("the third seat");
    let fourth = begin(SsoTarget::Workspace(a.id));
    let query = sign_in_as(&provider, &fourth, "carl-1", "carl@example.com");
    let refused = finish(&query, fourth.state.as_str()).expect_err("no seat left");
    assert!(refused.to_string().contains("seats"), "{refused}");

    svc.disable_sso(&owner).expect("disable");
    assert!(matches!(
        svc.begin_sso(env, SsoTarget::Workspace(a.id)),
        Err(SsoLoginError::NotEnabled)
    ));
    let log = svc.audit_log(&owner, &AuditQuery::default()).expect("log");
    let count = |action| {
        log.entries
            .iter()
            .filter(|e| e.entry.action == action)
            .count()
    };
    assert_eq!(count(AuditAction::LoginSucceeded), 3);
    assert_eq!(count(AuditAction::MemberJoined), 2);
}
