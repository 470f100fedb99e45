//! Contract checks of the audit log: entries read back as appended, filters, newest-first pages by cursor under concurrent appends, tenant isolation, retention, and entries that outlive the objects they name.

use std::sync::Arc;

use crate::accounts::caller::{Actor, Caller};
use crate::accounts::key::{KeyCreator, KeyMode};
use crate::accounts::permissions::{Grant, MemberRole, Operation};
use crate::accounts::plan::Plan;
use crate::accounts::service::AdminError;
use crate::audit::entry::{
    ActorKind, AuditAction, AuditActor, AuditEntry, AuditObject, Change, ClientNetwork,
    NewAuditEntry, ObjectKind,
};
use crate::audit::query::{AuditError, AuditQuery};
use crate::contract::{key_for, service, setup, t};
use crate::ids::{AccountId, KeyId, LinkId, UserId};
use crate::links::link::{LinkError, LinkUpdate};
use crate::store::Store;

fn entry(account: AccountId, at: &str, actor: AuditActor, object: AuditObject) -> NewAuditEntry {
    NewAuditEntry {
        account_id: account,
        at: t(at),
        actor,
        action: AuditAction::LinkUpdated,
        object,
        changes: vec![
            Change::shown("name", Some("Flyer".into()), Some("Poster ✓".into())),
            Change::shown("domain", Some("go.example.com".into()), None),
            Change::hidden("password"),
        ],
        network: Some(ClientNetwork::of("203.0.113.9".parse().expect("ip"))),
    }
}

fn key_actor(id: KeyId) -> AuditActor {
    AuditActor {
        kind: ActorKind::Key,
        id: id.to_string(),
        label: "Server (qr_live_AbCd…)".into(),
    }
}

fn read<S: Store>(store: &S, account: AccountId, query: &AuditQuery) -> Vec<AuditEntry> {
    store
        .read(|tx| tx.audit_entries(account, query))
        .expect("read the log")
}

fn ids(entries: &[AuditEntry]) -> Vec<i64> {
    entries.iter().map(|e| e.id.0).collect()
}

/// Every field of an entry reads back as appended, ids increasing, newest first.
pub fn audit_entries_read_back_as_appended<S: Store>(store: S) {
    let a = setup(&store, Plan::Pro);
    let link = AuditObject::new(ObjectKind::Link, LinkId::random());
    let first = entry(
        a.id,
        "2024-03-01T10:00:00Z",
        key_actor(KeyId::random()),
        link,
    );
    let second = NewAuditEntry {
        actor: AuditActor::of(&Actor::Operator),
        action: AuditAction::DesignCreated,
        object: AuditObject::new(ObjectKind::Design, "d-1"),
        changes: Vec::new(),
        network: None,
        ..first.clone()
    };
    let ids_given = store
        .write(|tx| {
            Ok::<_, crate::error::StoreError>([tx.append_audit(&first)?, tx.append_audit(&second)?])
        })
        .expect("append");
    assert!(ids_given[0] < ids_given[1], "ids increase");
    let back = read(&store, a.id, &AuditQuery::default());
    assert_eq!(back.len(), 2);
    assert_eq!(back[0].id, ids_given[1], "newest first");
    assert_eq!(back[0].entry, second);
    assert_eq!(back[1].entry, first, "every field comes back as written");
}

/// Filters by actor (kind, id or both), object (kind, id or both) and time (since inclusive, until exclusive) combine.
pub fn audit_filters_by_actor_object_and_time<S: Store>(store: S) {
    let a = setup(&store, Plan::Pro);
    let (k1, k2) = (KeyId::random(), KeyId::random());
    let (l1, l2) = (LinkId::random(), LinkId::random());
    let rows = [
        (k1, l1, "2024-03-01T10:00:00Z"),
        (k2, l1, "2024-03-02T10:00:00Z"),
        (k1, l2, "2024-03-03T10:00:00Z"),
    ];
    store
        .write(|tx| {
            for (k, l, at) in rows {
                tx.append_audit(&entry(
                    a.id,
                    at,
                    key_actor(k),
                    AuditObject::new(ObjectKind::Link, l),
                ))?;
            }
            tx.append_audit(&NewAuditEntry {
                actor: AuditActor::of(&Actor::Operator),
                object: AuditObject::new(ObjectKind::Domain, "x"),
                ..entry(
                    a.id,
                    "2024-03-04T10:00:00Z",
                    key_actor(k1),
                    AuditObject::new(ObjectKind::Link, l1),
                )
            })?;
            Ok::<_, crate::error::StoreError>(())
        })
        .expect("append");
    let q =
        |actor: Option<&str>, object: Option<&str>, since: Option<&str>, until: Option<&str>| {
            let query = AuditQuery::parse(actor, object, since, until, None, None).expect("valid");
            read(&store, a.id, &query)
                .iter()
                .map(|e| e.entry.at.format("%d").to_string())
                .collect::<Vec<_>>()
        };
    let k1s = format!("key:{k1}");
    assert_eq!(q(Some(&k1s), None, None, None), ["03", "01"]);
    assert_eq!(q(Some(&k2.to_string()), None, None, None), ["02"]);
    assert_eq!(q(Some("operator"), None, None, None), ["04"]);
    assert_eq!(q(Some("key"), None, None, None), ["03", "02", "01"]);
    assert_eq!(q(Some("user"), None, None, None), Vec::<String>::new());
    assert_eq!(
        q(None, Some(&format!("link:{l1}")), None, None),
        ["02", "01"]
    );
    assert_eq!(q(None, Some(&l2.to_string()), None, None), ["03"]);
    assert_eq!(q(None, Some("domain"), None, None), ["04"]);
    assert_eq!(
        q(None, None, Some("2024-03-02"), Some("2024-03-03")),
        ["03", "02"]
    );
    assert_eq!(
        q(
            None,
            None,
            Some("2024-03-02T10:00:00Z"),
            Some("2024-03-03T10:00:00Z")
        ),
        ["02"],
        "since is inclusive, until exclusive"
    );
    assert_eq!(
        q(Some(&k1s), Some(&format!("link:{l1}")), None, None),
        ["01"]
    );
}

/// Pages by cursor read every entry once, newest first, while another thread appends.
pub fn audit_pages_are_stable_under_concurrent_appends<S: Store>(store: S) {
    let store = Arc::new(store);
    let a = setup(&*store, Plan::Pro);
    let append = |n: usize, at: &str| {
        for _ in 0..n {
            store
                .write(|tx| {
                    tx.append_audit(&entry(
                        a.id,
                        at,
                        key_actor(KeyId::random()),
                        AuditObject::new(ObjectKind::Link, "l"),
                    ))
                })
                .expect("append");
        }
    };
    append(25, "2024-03-01T10:00:00Z");
    let mut query = AuditQuery {
        limit: 10,
        ..AuditQuery::default()
    };
    let mut seen = Vec::new();
    let writer = {
        let store = Arc::clone(&store);
        std::thread::spawn(move || {
            for _ in 0..20 {
                store
                    .write(|tx| {
                        tx.append_audit(&entry(
                            a.id,
                            "2024-03-02T10:00:00Z",
                            key_actor(KeyId::random()),
                            AuditObject::new(ObjectKind::Link, "l"),
                        ))
                    })
                    .expect("append");
            }
        })
    };
    let first = read(&*store, a.id, &query);
    let top = first[0].id;
    seen.extend(ids(&first));
    loop {
        query.before = seen.last().map(|id| crate::audit::entry::AuditId(*id));
        let page = read(&*store, a.id, &query);
        if page.is_empty() {
            break;
        }
        seen.extend(ids(&page));
    }
    writer.join().expect("writer");
    let mut sorted = seen.clone();
    sorted.sort_unstable_by(|x, y| y.cmp(x));
    sorted.dedup();
    assert_eq!(sorted, seen, "strictly newest first, no entry twice");
    let below_top = read(
        &*store,
        a.id,
        &AuditQuery {
            limit: 1000,
            ..AuditQuery::default()
        },
    )
    .into_iter()
    .filter(|e| e.id <= top)
    .count();
    assert!(seen.len() >= 25);
    assert_eq!(
        seen.len(),
        below_top,
        "every entry at or below the first page's top was read once"
    );
}

/// A workspace reads only its own entries; deleting a workspace deletes its log and no other.
pub fn audit_is_isolated_per_workspace<S: Store>(store: S) {
    let a = setup(&store, Plan::Pro);
    let b = setup(&store, Plan::Pro);
    let object = AuditObject::new(ObjectKind::Link, "shared-id");
    let k = KeyId::random();
    store
        .write(|tx| {
            tx.append_audit(&entry(
                a.id,
                "2024-03-01T10:00:00Z",
                key_actor(k),
                object.clone(),
            ))?;
            tx.append_audit(&entry(
                b.id,
                "2024-03-01T10:00:00Z",
                key_actor(k),
                object.clone(),
            ))
        })
        .expect("append");
    assert_eq!(read(&store, a.id, &AuditQuery::default()).len(), 1);
    assert_eq!(
        read(&store, a.id, &AuditQuery::default())[0]
            .entry
            .account_id,
        a.id
    );
    store.write(|tx| tx.delete_account(b.id)).expect("delete b");
    assert!(
        read(&store, b.id, &AuditQuery::default()).is_empty(),
        "a workspace's log goes with it"
    );
    assert_eq!(read(&store, a.id, &AuditQuery::default()).len(), 1);
}

/// Retention deletes only the workspace's entries older than the bound.
pub fn audit_prune_deletes_only_old_entries_of_the_workspace<S: Store>(store: S) {
    let a = setup(&store, Plan::Free);
    let b = setup(&store, Plan::Free);
    let object = AuditObject::new(ObjectKind::Link, "l");
    store
        .write(|tx| {
            for at in [
                "2024-01-01T00:00:00Z",
                "2024-01-31T23:59:59Z",
                "2024-02-01T00:00:00Z",
            ] {
                tx.append_audit(&entry(a.id, at, key_actor(KeyId::random()), object.clone()))?;
                tx.append_audit(&entry(b.id, at, key_actor(KeyId::random()), object.clone()))?;
            }
            Ok::<_, crate::error::StoreError>(())
        })
        .expect("append");
    let gone = store
        .write(|tx| tx.prune_audit(a.id, t("2024-02-01T00:00:00Z")))
        .expect("prune");
    assert_eq!(gone, 2);
    assert_eq!(read(&store, a.id, &AuditQuery::default()).len(), 1);
    assert_eq!(read(&store, b.id, &AuditQuery::default()).len(), 3);
}

/// A user of `account` with a role, from a documentation address.
fn member(account: AccountId, role: MemberRole) -> Caller {
    Caller::member(
        account,
        UserId::random(),
        "ann@example.com",
        role,
        Some("198.51.100.23".parse().expect("ip")),
    )
}

/// Link changes are recorded by their caller, without secrets, and outlive the link; refused callers change and read nothing.
pub fn service_records_changes_that_outlive_their_objects<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-03-01T10:00:00Z");
    let a = svc
        .create_account("a@example.com", Plan::Pro)
        .expect("account");
    let owner = member(a.id, MemberRole::Owner);
    let mut fields = LinkUpdate::parse(Some("Flyer"), Some("https://example.com/")).expect("valid");
    fields.set_password(Some("hunter2-secret")).expect("valid");
    let link = svc.create_link_with(&owner, fields).expect("create");
    let mut update = LinkUpdate::parse(Some("Poster"), None).expect("valid");
    update.set_password(Some("another-secret")).expect("valid");
    svc.update_link(&owner, link.id, &update).expect("update");
    svc.delete_link(&owner, link.id).expect("delete");
    let page = svc.audit_log(&owner, &AuditQuery::default()).expect("read");
    let actions: Vec<&str> = page
        .entries
        .iter()
        .map(|e| e.entry.action.as_str())
        .collect();
    assert_eq!(actions, ["link.deleted", "link.updated", "link.created"]);
    for e in &page.entries {
        assert_eq!(e.entry.object, AuditObject::new(ObjectKind::Link, link.id));
        assert_eq!(e.entry.actor.kind, ActorKind::User);
        assert_eq!(e.entry.actor.label, "ann@example.com");
        assert_eq!(
            e.entry.network.as_ref().map(ClientNetwork::as_str),
            Some("198.51.100.0/24")
        );
        let text = format!("{:?}", e.entry);
        assert!(
            !text.contains("secret") && !text.contains("argon2"),
            "{text}"
        );
    }
    let updated = &page.entries[1].entry.changes;
    assert_eq!(
        updated,
        &[
            Change::shown("name", Some("Flyer".into()), Some("Poster".into())),
            Change::hidden("password")
        ]
    );
    assert!(
        page.entries[0]
            .entry
            .changes
            .contains(&Change::shown("name", Some("Poster".into()), None)),
        "the deletion keeps what the link was"
    );
    // A refused change writes nothing; a viewer and a key may not read the log.
    let viewer = member(a.id, MemberRole::Viewer);
    assert!(matches!(
        svc.create_link(&viewer, "No", "https://example.com/"),
        Err(LinkError::NotPermitted(_))
    ));
    assert!(matches!(
        svc.audit_log(&viewer, &AuditQuery::default()),
        Err(AuditError::NotPermitted(_))
    ));
    let mut key_caller = Caller::operator(a.id);
    key_caller.actor = Actor::Key {
        id: key_for(a.id).0.id,
        label: "Server".into(),
    };
    key_caller.grant = Grant::FullKey;
    assert!(key_caller.may(Operation::WriteLinks));
    svc.create_link(&key_caller, "By key", "https://example.com/")
        .expect("a key creates");
    assert!(matches!(
        svc.audit_log(&key_caller, &AuditQuery::default()),
        Err(AuditError::NotPermitted(_))
    ));
    let page = svc.audit_log(&owner, &AuditQuery::default()).expect("read");
    assert_eq!(page.entries.len(), 4, "the refused creation left no entry");
    assert_eq!(page.entries[0].entry.actor.kind, ActorKind::Key);
    // Another workspace's owner sees none of it.
    let b = svc
        .create_account("b@example.com", Plan::Pro)
        .expect("account");
    let other = member(b.id, MemberRole::Owner);
    assert!(
        svc.audit_log(&other, &AuditQuery::default())
            .expect("read")
            .entries
            .is_empty()
    );
}

/// Keys, members and plans: each change is recorded by who made it (a key's secret never,
/// only that it changed), refused changes write nothing, and keys name who made them.
pub fn service_records_keys_members_and_plans<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-03-01T10:00:00Z");
    let a = svc
        .create_account("a@example.com", Plan::Free)
        .expect("workspace");
    let owner_user = svc.owner_of(a.id).expect("read").expect("owner");
    svc.set_plan(a.id, Plan::Pro).expect("plan");
    let b = svc
        .create_account("b@example.com", Plan::Free)
        .expect("another");
    let owner = Caller::member(
        a.id,
        owner_user.id,
        "a@example.com",
        MemberRole::Owner,
        None,
    );
    // The owner was never verified: the operator's key needs no verification, theirs does.
    let (operator_key, _) = svc.create_key(a.id, KeyMode::Live).expect("operator key");
    assert_eq!(operator_key.created_by, Some(KeyCreator::Operator));
    assert!(matches!(
        svc.create_own_key(&owner, "CI", KeyMode::Live, None),
        Err(AdminError::NotVerified)
    ));
    svc.mark_verified(crate::accounts::admin::Actor::Operator, owner_user.id)
        .expect("verify");
    let (key, secret) = svc
        .create_own_key(&owner, "CI", KeyMode::Live, None)
        .expect("key");
    assert_eq!(key.created_by, Some(KeyCreator::User(owner_user.id)));
    let (_, new_secret) = svc.regenerate_own_key(&owner, key.id).expect("regenerate");
    let mut settings = key.settings.clone();
    settings.ip_allowlist = vec!["203.0.113.0/24".parse().expect("rule")];
    svc.update_own_key_settings(&owner, key.id, settings)
        .expect("settings");
    // An admin who is not verified may not make keys, though the owner is verified; a member
    // may not touch them at all.
    let admin_account = svc
        .create_account("admin@example.com", Plan::Free)
        .expect("admin");
    let admin_user = svc.owner_of(admin_account.id).expect("read").expect("user");
    svc.add_member(&owner, "admin@example.com", MemberRole::Admin)
        .expect("seat");
    let admin = Caller::member(
        a.id,
        admin_user.id,
        "admin@example.com",
        MemberRole::Admin,
        None,
    );
    assert!(matches!(
        svc.create_own_key(&admin, "Admin's", KeyMode::Live, None),
        Err(AdminError::NotVerified)
    ));
    let viewer = member(a.id, MemberRole::Member);
    assert!(matches!(
        svc.revoke_own_key(&viewer, key.id),
        Err(AdminError::NotPermitted(_))
    ));
    // Another workspace's key is not found, and its log stays empty.
    let in_b = Caller::operator(b.id);
    assert!(matches!(
        svc.revoke_own_key(&in_b, key.id),
        Err(AdminError::KeyNotFound(_))
    ));
    svc.change_member_role(&owner, admin_user.id, MemberRole::Viewer)
        .expect("role");
    svc.transfer_ownership(&owner, admin_user.id)
        .expect("hand over");
    let new_owner = Caller::member(
        a.id,
        admin_user.id,
        "admin@example.com",
        MemberRole::Owner,
        None,
    );
    svc.remove_member(&new_owner, owner_user.id)
        .expect("remove");
    svc.revoke_own_key(&new_owner, key.id).expect("revoke");
    // The workspace's other key outlives the member who is gone.
    assert!(svc.own_key(a.id, operator_key.id).is_ok());

    let page = svc
        .audit_log(&new_owner, &AuditQuery::default())
        .expect("read");
    let actions: Vec<(&str, &str)> = page
        .entries
        .iter()
        .rev()
        .map(|e| (e.entry.action.as_str(), e.entry.actor.label.as_str()))
        .collect();
    assert_eq!(
        actions,
        [
            ("plan.changed", "operator"),
            ("key.created", "operator"),
            ("key.created", "a@example.com"),
            ("key.regenerated", "a@example.com"),
            ("key.updated", "a@example.com"),
            ("member.joined", "a@example.com"),
            ("role.changed", "a@example.com"),
            ("role.changed", "a@example.com"),
            ("role.changed", "a@example.com"),
            ("member.removed", "admin@example.com"),
            ("key.revoked", "admin@example.com"),
        ]
    );
    let changes = |i: usize| &page.entries[page.entries.len() - 1 - i].entry.changes;
    assert_eq!(
        changes(0),
        &[Change::shown(
            "plan",
            Some("free".into()),
            Some("pro".into())
        )]
    );
    assert!(
        changes(3).contains(&Change::hidden("secret")),
        "{:?}",
        changes(3)
    );
    assert_eq!(
        changes(4),
        &[Change::shown(
            "ipAllowlist",
            None,
            Some(r#"["203.0.113.0/24"]"#.into())
        )]
    );
    assert_eq!(
        changes(6),
        &[Change::shown(
            "role",
            Some("admin".into()),
            Some("viewer".into())
        )]
    );
    assert_eq!(
        [changes(7), changes(8)],
        [
            &vec![Change::shown(
                "role",
                Some("owner".into()),
                Some("admin".into())
            )],
            &vec![Change::shown(
                "role",
                Some("viewer".into()),
                Some("owner".into())
            )],
        ],
        "the hand-over: the old owner becomes an admin, the member the owner"
    );
    for e in &page.entries {
        let text = format!("{:?}", e.entry);
        for s in [secret.expose_secret(), new_secret.expose_secret()] {
            assert!(!text.contains(s), "a key's secret is never logged: {text}");
        }
    }
    assert!(
        svc.audit_log(&in_b, &AuditQuery::default())
            .expect("read")
            .entries
            .is_empty()
    );
}

/// The log shows and keeps the plan's retention, as analytics do.
pub fn service_audit_retention_follows_the_plan<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-01-01T10:00:00Z");
    let a = svc
        .create_account("a@example.com", Plan::Free)
        .expect("account");
    let owner = Caller::operator(a.id);
    svc.create_link(&owner, "Old", "https://example.com/")
        .expect("create");
    clock.set(t("2024-01-30T10:00:00Z"));
    svc.create_link(&owner, "New", "https://example.com/")
        .expect("create");
    let read = |svc: &crate::service::Service<S, crate::clock::TestClock>| {
        svc.audit_log(&owner, &AuditQuery::default())
            .expect("read")
            .entries
            .len()
    };
    assert_eq!(read(&svc), 2, "day 30 of 30 still shows Jan 1");
    clock.set(t("2024-01-31T00:00:00Z"));
    assert_eq!(read(&svc), 1, "past retention is hidden at once");
    assert_eq!(svc.prune().expect("prune").audit_deleted, 1);
    assert_eq!(read(&svc), 1);
}
