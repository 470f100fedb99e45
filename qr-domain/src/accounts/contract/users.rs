//! Contract checks of users and memberships: records, one user per login address, memberships
//! with their roles, what deleting a user or a workspace takes along, and the service's
//! sessions across workspaces.

use crate::accounts::account::{AccountStatus, Email, Role};
use crate::accounts::caller::Caller;
use crate::accounts::members::MemberError;
use crate::accounts::permissions::MemberRole;
use crate::accounts::plan::Plan;
use crate::accounts::user::Membership;
use crate::contract::{member_of, service, setup, t, user};
use crate::dashboard::password::{Password, PasswordHash};
use crate::dashboard::session::{Session, SessionSecret};
use crate::error::StoreError;
use crate::service::{Actor, SignUp};
use crate::store::Store;

const PASSWORD: &str = "plum tree at dawn";

/// Users keep every field through insert and update, are listed oldest first, and are found by
/// login address without regard to ASCII case; no two share one.
pub fn users_roundtrip_and_are_unique_by_email<S: Store>(store: S) {
    let mut a = user();
    a.email = Email::parse("Ann@Example.com").unwrap();
    let mut b = user();
    b.created_at = t("2024-02-01T00:00:00Z");
    store
        .write(|tx| {
            tx.insert_user(&b)?;
            tx.insert_user(&a)
        })
        .unwrap();
    assert_eq!(store.read(|tx| tx.user(a.id)).unwrap(), Some(a.clone()));
    assert_eq!(
        store.read(|tx| tx.users()).unwrap(),
        vec![a.clone(), b.clone()]
    );
    a.password_hash = Some(PasswordHash::of(&Password::new(PASSWORD).unwrap()).unwrap());
    a.email_verified_at = Some(t("2024-01-02T03:04:05.123456Z"));
    a.role = Role::Admin;
    assert!(store.write(|tx| tx.update_user(&a)).unwrap());
    let back = store.read(|tx| tx.user(a.id)).unwrap().unwrap();
    assert_eq!(back, a);
    assert!(back.password_hash.unwrap().verify(PASSWORD));
    assert!(!store.write(|tx| tx.update_user(&user())).unwrap());
    let found = |raw: &str| {
        store
            .read(|tx| tx.user_by_email(&Email::parse(raw).unwrap()))
            .unwrap()
            .map(|u| u.id)
    };
    assert_eq!(found("ann@example.COM"), Some(a.id));
    let mut twin = user();
    twin.email = Email::parse("ANN@example.com").unwrap();
    assert!(matches!(
        store.write(|tx| tx.insert_user(&twin)),
        Err(StoreError::Conflict(_))
    ));
    b.email = Email::parse("ann@EXAMPLE.com").unwrap();
    assert!(matches!(
        store.write(|tx| tx.update_user(&b)),
        Err(StoreError::Conflict(_))
    ));
    a.email = Email::parse("new@example.com").unwrap();
    assert!(store.write(|tx| tx.update_user(&a)).unwrap());
    assert!(
        store.write(|tx| tx.update_user(&b)).unwrap(),
        "the old address is free"
    );
    assert_eq!(found("ann@example.com"), Some(b.id));
    assert_eq!(found("NEW@example.com"), Some(a.id));
}

/// Memberships are listed per user and per workspace oldest first, change role in place,
/// need both ends, and go with their user or their workspace; a session showing a deleted
/// workspace shows none and stays.
pub fn memberships_roundtrip_and_follow_deletions<S: Store>(store: S) {
    let w1 = setup(&store, Plan::Free);
    let w2 = setup(&store, Plan::Pro);
    let ann = member_of(&store, w1.id, MemberRole::Owner);
    let bob = member_of(&store, w1.id, MemberRole::Viewer);
    let later = Membership {
        account_id: w2.id,
        user_id: bob.id,
        role: MemberRole::Admin,
        created_at: t("2024-03-01T00:00:00Z"),
    };
    store.write(|tx| tx.put_membership(&later)).unwrap();
    let roles = |ms: Vec<Membership>| {
        ms.into_iter()
            .map(|m| (m.account_id, m.user_id, m.role))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        roles(store.read(|tx| tx.members_of(w1.id)).unwrap()).len(),
        2
    );
    assert_eq!(
        roles(store.read(|tx| tx.memberships_of_user(bob.id)).unwrap()),
        vec![
            (w1.id, bob.id, MemberRole::Viewer),
            (w2.id, bob.id, MemberRole::Admin)
        ]
    );
    let promoted = Membership {
        role: MemberRole::Member,
        created_at: t("2024-06-01T00:00:00Z"),
        ..store
            .read(|tx| tx.membership(w1.id, bob.id))
            .unwrap()
            .unwrap()
    };
    store.write(|tx| tx.put_membership(&promoted)).unwrap();
    let back = store
        .read(|tx| tx.membership(w1.id, bob.id))
        .unwrap()
        .unwrap();
    assert_eq!(back.role, MemberRole::Member);
    assert_eq!(
        back.created_at,
        t("2024-01-01T00:00:00Z"),
        "joining time stays"
    );
    let stranger = Membership {
        user_id: user().id,
        ..later
    };
    assert!(store.write(|tx| tx.put_membership(&stranger)).is_err());
    let secret = SessionSecret::generate().unwrap();
    let session = Session {
        hash: secret.hash(),
        user_id: bob.id,
        account_id: Some(w2.id),
        created_at: t("2024-01-02T00:00:00Z"),
        last_seen_at: t("2024-01-02T00:00:00Z"),
        user_agent: String::new(),
    };
    store.write(|tx| tx.save_session(&session)).unwrap();
    assert!(store.write(|tx| tx.delete_account(w2.id)).unwrap());
    store
        .read(|tx| {
            assert_eq!(tx.membership(w2.id, bob.id)?, None);
            assert_eq!(tx.session(&session.hash)?.map(|s| s.account_id), Some(None));
            assert!(tx.user(bob.id)?.is_some(), "users outlive workspaces");
            Ok::<_, StoreError>(())
        })
        .unwrap();
    assert!(
        store
            .write(|tx| tx.delete_membership(w1.id, ann.id))
            .unwrap()
    );
    assert!(
        !store
            .write(|tx| tx.delete_membership(w1.id, ann.id))
            .unwrap()
    );
    assert!(store.write(|tx| tx.delete_user(bob.id)).unwrap());
    assert!(!store.write(|tx| tx.delete_user(bob.id)).unwrap());
    store
        .read(|tx| {
            assert!(tx.members_of(w1.id)?.is_empty());
            assert_eq!(
                tx.session(&session.hash)?,
                None,
                "sessions go with their user"
            );
            assert!(tx.account(w1.id)?.is_some(), "workspaces outlive members");
            Ok::<_, StoreError>(())
        })
        .unwrap();
}

/// Sign-up makes a user owning a workspace; a session shows a workspace the user belongs to,
/// switches only to another of theirs, and falls back when one is disabled or left.
pub fn service_workspaces_and_sessions<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-05-01T10:00:00Z");
    let SignUp::Created {
        user: ann,
        account: own,
        ..
    } = svc
        .sign_up("ann@example.com", PASSWORD, Plan::Free)
        .unwrap()
    else {
        panic!("a new user")
    };
    assert_eq!(own.email.as_str(), "ann@example.com");
    let team = svc.create_account("team@example.com", Plan::Pro).unwrap();
    let elsewhere = svc.create_account("else@example.com", Plan::Pro).unwrap();
    svc.store
        .write(|tx| {
            tx.put_membership(&Membership {
                account_id: team.id,
                user_id: ann.id,
                role: MemberRole::Viewer,
                created_at: t("2024-05-01T11:00:00Z"),
            })
        })
        .unwrap();
    let (_, secret) = svc.log_in("ANN@example.com", PASSWORD, None, None).unwrap();
    let ctx = svc.session(secret.expose()).unwrap().unwrap();
    assert_eq!((ctx.account.id, ctx.role()), (own.id, MemberRole::Owner));
    assert_eq!(
        svc.workspaces_of(ann.id)
            .unwrap()
            .into_iter()
            .map(|(a, m)| (a.id, m.role))
            .collect::<Vec<_>>(),
        vec![(own.id, MemberRole::Owner), (team.id, MemberRole::Viewer)]
    );
    assert!(
        !svc.switch_workspace(&ctx, elsewhere.id).unwrap(),
        "not hers"
    );
    assert!(svc.switch_workspace(&ctx, team.id).unwrap());
    let ctx = svc.session(secret.expose()).unwrap().unwrap();
    assert_eq!((ctx.account.id, ctx.role()), (team.id, MemberRole::Viewer));
    assert_eq!(ctx.caller(None).account, team.id);
    svc.set_status(Actor::Operator, team.id, AccountStatus::Disabled)
        .unwrap();
    let ctx = svc.session(secret.expose()).unwrap().unwrap();
    assert_eq!(ctx.account.id, own.id, "back to one she may open");
    svc.set_status(Actor::Operator, own.id, AccountStatus::Disabled)
        .unwrap();
    assert!(
        svc.session(secret.expose()).unwrap().is_none(),
        "nothing left to show"
    );
    assert!(matches!(
        svc.log_in("ann@example.com", PASSWORD, None, None),
        Err(crate::service::LoginError::Disabled)
    ));
}

/// Members: listed for owners and admins only; added within the plan's seats (Free 1,
/// Starter 3, Pro 10); roles change but never to or from owner; the owner is never removed and
/// hands over instead; another workspace's member is "not a member"; a removed member's
/// session falls back to their own workspace while the workspace's keys stay.
pub fn service_members_roles_seats_and_transfer<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-05-01T10:00:00Z");
    let team = svc
        .create_account("team@example.com", Plan::Starter)
        .unwrap();
    let owner = svc.owner_of(team.id).unwrap().unwrap();
    let others: Vec<_> = ["b@example.com", "c@example.com", "d@example.com"]
        .iter()
        .map(|e| {
            let a = svc.create_account(e, Plan::Free).unwrap();
            svc.owner_of(a.id).unwrap().unwrap()
        })
        .collect();
    let as_owner = Caller::member(
        team.id,
        owner.id,
        "team@example.com",
        MemberRole::Owner,
        None,
    );
    let as_viewer = Caller::member(
        team.id,
        others[0].id,
        "b@example.com",
        MemberRole::Viewer,
        None,
    );
    assert!(matches!(
        svc.add_member(&as_viewer, "c@example.com", MemberRole::Member),
        Err(MemberError::NotPermitted(_))
    ));
    assert!(matches!(
        svc.members(&as_viewer),
        Err(MemberError::NotPermitted(_))
    ));
    clock.advance(chrono::Duration::minutes(1));
    svc.add_member(&as_owner, "B@example.com", MemberRole::Viewer)
        .unwrap();
    clock.advance(chrono::Duration::minutes(1));
    svc.add_member(&as_owner, "c@example.com", MemberRole::Admin)
        .unwrap();
    assert!(matches!(
        svc.add_member(&as_owner, "c@example.com", MemberRole::Member),
        Err(MemberError::AlreadyMember(_))
    ));
    let full = svc
        .add_member(&as_owner, "d@example.com", MemberRole::Member)
        .unwrap_err();
    assert_eq!(
        full.to_string(),
        "the Starter plan has 3 seats and all are taken by members and pending invitations; remove a member, revoke an invitation or change the plan"
    );
    assert!(matches!(
        svc.add_member(&as_owner, "nobody@example.com", MemberRole::Member),
        Err(MemberError::NoSuchUser(_))
    ));
    assert!(matches!(
        svc.add_member(&as_owner, "d@example.com", MemberRole::Owner),
        Err(MemberError::OwnerStays)
    ));
    let listed: Vec<_> = svc
        .members(&as_owner)
        .unwrap()
        .into_iter()
        .map(|(m, u)| (u.email.to_string(), m.role))
        .collect();
    assert_eq!(
        listed,
        vec![
            ("team@example.com".to_owned(), MemberRole::Owner),
            ("b@example.com".to_owned(), MemberRole::Viewer),
            ("c@example.com".to_owned(), MemberRole::Admin),
        ]
    );
    let as_admin = Caller::member(
        team.id,
        others[1].id,
        "c@example.com",
        MemberRole::Admin,
        None,
    );
    assert_eq!(
        svc.change_member_role(&as_admin, others[0].id, MemberRole::Member)
            .unwrap()
            .role,
        MemberRole::Member
    );
    assert!(matches!(
        svc.change_member_role(&as_admin, owner.id, MemberRole::Admin),
        Err(MemberError::OwnerStays)
    ));
    assert!(matches!(
        svc.change_member_role(&as_admin, others[0].id, MemberRole::Owner),
        Err(MemberError::OwnerStays)
    ));
    assert!(matches!(
        svc.remove_member(&as_admin, owner.id),
        Err(MemberError::OwnerStays)
    ));
    assert!(matches!(
        svc.transfer_ownership(&as_admin, others[1].id),
        Err(MemberError::NotPermitted(_))
    ));
    assert!(matches!(
        svc.change_member_role(&as_owner, others[2].id, MemberRole::Admin),
        Err(MemberError::NotMember(_))
    ));
    // A key made by the member outlives their removal.
    let (_, key) = svc
        .create_key(team.id, crate::accounts::key::KeyMode::Live)
        .unwrap();
    svc.remove_member(&as_admin, others[0].id).unwrap();
    assert!(svc.authenticate(Some(key.expose_secret()), None).is_ok());
    assert_eq!(svc.members(&as_owner).unwrap().len(), 2);
    // Ownership moves to the admin; the old owner stays as an admin; the address stays.
    svc.transfer_ownership(&as_owner, others[1].id).unwrap();
    let as_new_owner = Caller::member(
        team.id,
        others[1].id,
        "c@example.com",
        MemberRole::Owner,
        None,
    );
    let now: Vec<_> = svc
        .members(&as_new_owner)
        .unwrap()
        .into_iter()
        .map(|(m, u)| (u.email.to_string(), m.role))
        .collect();
    assert_eq!(
        now,
        vec![
            ("c@example.com".to_owned(), MemberRole::Owner),
            ("team@example.com".to_owned(), MemberRole::Admin),
        ]
    );
    assert_eq!(
        svc.account(team.id).unwrap().email.as_str(),
        "team@example.com",
        "the workspace keeps its address"
    );
}
