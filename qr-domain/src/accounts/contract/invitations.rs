//! Contract checks of invitations: records found by id, token hash and address, one per
//! workspace and address, resends, what deleting a workspace takes along; and the service's
//! rules (roles, seats with pending invitations, single use, expiry, the invited address only,
//! sign-up through an invitation, decline, revoke, resend and the audit log).

use chrono::Duration;

use crate::accounts::account::Email;
use crate::accounts::caller::Caller;
use crate::accounts::invitations::{INVITATION_LIFETIME, Invitation, InvitationError};
use crate::accounts::members::MemberError;
use crate::accounts::permissions::MemberRole;
use crate::accounts::plan::Plan;
use crate::audit::query::AuditQuery;
use crate::clock::Clock;
use crate::contract::{service, setup, t};
use crate::dashboard::token::TokenSecret;
use crate::error::StoreError;
use crate::ids::InvitationId;
use crate::store::Store;

const PASSWORD: &str = "plum tree at dawn";

fn invitation(account: crate::ids::AccountId, email: &str, at: &str) -> Invitation {
    Invitation {
        id: InvitationId::random(),
        account_id: account,
        email: Email::parse(email).unwrap(),
        role: MemberRole::Member,
        token_hash: TokenSecret::generate().unwrap().hash(),
        created_at: t(at),
        expires_at: t(at) + INVITATION_LIFETIME,
    }
}

/// Invitations keep every field, are found by id (in their workspace only), token hash and
/// address (any ASCII case), listed oldest first; one per workspace and address; a resend
/// changes role, token and expiry only; they go with their workspace.
pub fn invitations_roundtrip_and_are_unique_per_address<S: Store>(store: S) {
    let a = setup(&store, Plan::Pro);
    let b = setup(&store, Plan::Pro);
    let first = invitation(a.id, "Ann@Example.com", "2024-01-02T00:00:00Z");
    let second = invitation(a.id, "bob@example.com", "2024-01-01T00:00:00Z");
    let elsewhere = invitation(b.id, "ann@example.com", "2024-01-01T00:00:00Z");
    store
        .write(|tx| {
            tx.put_invitation(&first)?;
            tx.put_invitation(&second)?;
            tx.put_invitation(&elsewhere)
        })
        .unwrap();
    assert_eq!(
        store.read(|tx| tx.invitation(a.id, first.id)).unwrap(),
        Some(first.clone())
    );
    assert_eq!(
        store.read(|tx| tx.invitation(b.id, first.id)).unwrap(),
        None
    );
    assert_eq!(
        store
            .read(|tx| tx.invitation_by_token(&first.token_hash))
            .unwrap(),
        Some(first.clone())
    );
    assert_eq!(
        store
            .read(|tx| tx.invitation_to(a.id, &Email::parse("ann@EXAMPLE.com").unwrap()))
            .unwrap()
            .map(|i| i.id),
        Some(first.id)
    );
    assert_eq!(
        store.read(|tx| tx.invitations_of(a.id)).unwrap(),
        vec![second.clone(), first.clone()]
    );
    let twin = invitation(a.id, "ANN@example.com", "2024-01-03T00:00:00Z");
    assert!(matches!(
        store.write(|tx| tx.put_invitation(&twin)),
        Err(StoreError::Conflict(_))
    ));
    let mut orphan = invitation(a.id, "orphan@example.com", "2024-01-03T00:00:00Z");
    orphan.account_id = crate::ids::AccountId::random();
    assert!(matches!(
        store.write(|tx| tx.put_invitation(&orphan)),
        Err(StoreError::Conflict(_))
    ));
    let mut resent = first.clone();
    resent.role = MemberRole::Viewer;
    resent.token_hash = TokenSecret::generate().unwrap().hash();
    resent.expires_at = t("2024-02-01T00:00:00Z");
    resent.created_at = t("2024-03-01T00:00:00Z");
    store.write(|tx| tx.put_invitation(&resent)).unwrap();
    let back = store
        .read(|tx| tx.invitation(a.id, first.id))
        .unwrap()
        .unwrap();
    assert_eq!(back.created_at, first.created_at, "the first sending stays");
    assert_eq!(
        (back.role, back.token_hash, back.expires_at),
        (resent.role, resent.token_hash, resent.expires_at)
    );
    assert_eq!(
        store
            .read(|tx| tx.invitation_by_token(&first.token_hash))
            .unwrap(),
        None,
        "the old token is gone"
    );
    assert!(
        !store
            .write(|tx| tx.delete_invitation(b.id, first.id))
            .unwrap()
    );
    assert!(
        store
            .write(|tx| tx.delete_invitation(a.id, first.id))
            .unwrap()
    );
    assert!(
        !store
            .write(|tx| tx.delete_invitation(a.id, first.id))
            .unwrap()
    );
    store.write(|tx| tx.delete_account(a.id)).unwrap();
    assert_eq!(
        store
            .read(|tx| tx.invitation_by_token(&second.token_hash))
            .unwrap(),
        None
    );
    assert_eq!(store.read(|tx| tx.invitations_of(b.id)).unwrap().len(), 1);
}

/// The service's invitations: admins and owners invite (never as owner) within the seats that
/// members and unexpired invitations share; a member's address or an invited one is refused;
/// the link works once, for 7 days after the last sending, for the invited address only; a
/// new user signs up through it verified; decline, revoke and resend end the old link; every
/// step is in the audit log.
pub fn service_invitations_follow_their_rules<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-05-01T10:00:00Z");
    let team = svc
        .create_account("team@example.com", Plan::Starter)
        .unwrap();
    let owner = svc.owner_of(team.id).unwrap().unwrap();
    let as_owner = Caller::member(
        team.id,
        owner.id,
        "team@example.com",
        MemberRole::Owner,
        None,
    );
    let viewer_home = svc
        .create_account("viewer@example.com", Plan::Free)
        .unwrap();
    let viewer = svc.owner_of(viewer_home.id).unwrap().unwrap();
    svc.add_member(&as_owner, "viewer@example.com", MemberRole::Viewer)
        .unwrap();
    let as_viewer = Caller::member(
        team.id,
        viewer.id,
        viewer.email.as_str(),
        MemberRole::Viewer,
        None,
    );
    assert!(matches!(
        svc.invite(&as_viewer, "x@example.com", MemberRole::Member),
        Err(InvitationError::NotPermitted(_))
    ));
    assert!(matches!(
        svc.invite(&as_owner, "x@example.com", MemberRole::Owner),
        Err(InvitationError::OwnerRole)
    ));
    assert!(matches!(
        svc.invite(&as_owner, viewer.email.as_str(), MemberRole::Member),
        Err(InvitationError::AlreadyMember(_))
    ));
    assert!(matches!(
        svc.invite(&as_owner, "not an address", MemberRole::Member),
        Err(InvitationError::Email(_))
    ));
    // Starter: 3 seats; the owner and the viewer take two, one invitation the third.
    let (ann, ann_token) = svc
        .invite(&as_owner, "ann@example.com", MemberRole::Admin)
        .unwrap();
    assert!(matches!(
        svc.invite(&as_owner, "ANN@example.com", MemberRole::Member),
        Err(InvitationError::AlreadyInvited(_))
    ));
    let full = svc
        .invite(&as_owner, "bob@example.com", MemberRole::Member)
        .unwrap_err();
    assert_eq!(
        full.to_string(),
        "the Starter plan has 3 seats and all are taken by members and pending invitations; remove a member, revoke an invitation or change the plan"
    );
    let bob_home = svc.create_account("Bob@Example.com", Plan::Free).unwrap();
    let bob = svc.owner_of(bob_home.id).unwrap().unwrap();
    assert!(matches!(
        svc.add_member(&as_owner, "bob@example.com", MemberRole::Member),
        Err(MemberError::SeatsTaken { .. })
    ));
    assert_eq!(svc.invitations(&as_owner).unwrap(), vec![ann.clone()]);
    assert!(matches!(
        svc.invitations(&as_viewer),
        Err(InvitationError::NotPermitted(_))
    ));
    // The link shows the workspace; another workspace's id is not found.
    let view = svc.invitation_for_token(ann_token.expose()).unwrap();
    assert_eq!(
        (view.workspace.id, view.invitation.role),
        (team.id, MemberRole::Admin)
    );
    let other = svc.create_account("other@example.com", Plan::Pro).unwrap();
    let as_other = Caller::operator(other.id);
    assert!(matches!(
        svc.revoke_invitation(&as_other, ann.id),
        Err(InvitationError::NotFound(_))
    ));
    assert!(matches!(
        svc.resend_invitation(&as_other, ann.id),
        Err(InvitationError::NotFound(_))
    ));
    // Resending: a new token, the old one dead, the expiry counted again.
    clock.advance(Duration::days(6));
    let (resent, new_token) = svc.resend_invitation(&as_owner, ann.id).unwrap();
    assert_eq!(resent.expires_at, clock.now() + INVITATION_LIFETIME);
    assert!(matches!(
        svc.invitation_for_token(ann_token.expose()),
        Err(InvitationError::InvalidToken)
    ));
    // Someone else logged in with the link is refused, and the link still works.
    let stranger = svc
        .create_account("stranger@example.com", Plan::Free)
        .unwrap();
    let stranger = svc.owner_of(stranger.id).unwrap().unwrap();
    assert!(matches!(
        svc.accept_invitation(&stranger, new_token.expose(), None),
        Err(InvitationError::WrongAddress)
    ));
    // Signing up through it: a verified user, a member with the invited role; once only.
    assert!(matches!(
        svc.sign_up_by_invitation(new_token.expose(), "short", None),
        Err(InvitationError::Password(_))
    ));
    let (ann_user, joined) = svc
        .sign_up_by_invitation(new_token.expose(), PASSWORD, None)
        .unwrap();
    assert!(ann_user.is_verified());
    assert_eq!(ann_user.email.as_str(), "ann@example.com");
    assert_eq!(
        (joined.account_id, joined.role),
        (team.id, MemberRole::Admin)
    );
    let (ann_logged_in, _) = svc.log_in("ann@example.com", PASSWORD, None, None).unwrap();
    assert_eq!(ann_logged_in.id, ann_user.id);
    for used in [
        svc.sign_up_by_invitation(new_token.expose(), PASSWORD, None)
            .map(drop),
        svc.accept_invitation(&ann_user, new_token.expose(), None)
            .map(drop),
        svc.decline_invitation(new_token.expose(), None).map(drop),
    ] {
        assert!(matches!(used, Err(InvitationError::InvalidToken)));
    }
    assert!(svc.invitations(&as_owner).unwrap().is_empty());
    // Seats are full by members now: removing the viewer frees one.
    svc.remove_member(&as_owner, viewer.id).unwrap();
    // An existing user accepts as themselves (any case of the address).
    let (_, bob_token) = svc
        .invite(&as_owner, "bob@example.com", MemberRole::Viewer)
        .unwrap();
    assert!(matches!(
        svc.sign_up_by_invitation(bob_token.expose(), PASSWORD, None),
        Err(InvitationError::AccountExists)
    ));
    let membership = svc
        .accept_invitation(&bob, bob_token.expose(), None)
        .unwrap();
    assert_eq!(membership.role, MemberRole::Viewer);
    assert_eq!(svc.workspaces_of(bob.id).unwrap().len(), 2);
    // Decline and revoke end a link; expiry does too, and an expired invitation holds no seat.
    svc.remove_member(&as_owner, bob.id).unwrap();
    let (declined, decline_token) = svc
        .invite(&as_owner, "carl@example.com", MemberRole::Member)
        .unwrap();
    assert_eq!(
        svc.decline_invitation(decline_token.expose(), None)
            .unwrap()
            .id,
        declined.id
    );
    assert!(matches!(
        svc.invitation_for_token(decline_token.expose()),
        Err(InvitationError::InvalidToken)
    ));
    let (revoked, revoke_token) = svc
        .invite(&as_owner, "dora@example.com", MemberRole::Member)
        .unwrap();
    svc.revoke_invitation(&as_owner, revoked.id).unwrap();
    assert!(matches!(
        svc.invitation_for_token(revoke_token.expose()),
        Err(InvitationError::InvalidToken)
    ));
    let (expiring, expiring_token) = svc
        .invite(&as_owner, "eve@example.com", MemberRole::Member)
        .unwrap();
    clock.advance(INVITATION_LIFETIME);
    assert!(matches!(
        svc.invitation_for_token(expiring_token.expose()),
        Err(InvitationError::InvalidToken)
    ));
    let (_, fresh) = svc
        .invite(&as_owner, "fay@example.com", MemberRole::Member)
        .unwrap();
    assert!(
        matches!(
            svc.resend_invitation(&as_owner, expiring.id),
            Err(InvitationError::SeatsTaken { .. })
        ),
        "reviving an expired invitation needs a free seat"
    );
    assert!(matches!(
        svc.invitation_for_token("not-a-token"),
        Err(InvitationError::InvalidToken)
    ));
    assert!(svc.invitation_for_token(fresh.expose()).is_ok());
    // The log: invited, resent, joined, declined, revoked (and the members added and removed
    // directly around them, and a member's login); never a token.
    let actions: Vec<String> = svc
        .audit_log(&as_owner, &AuditQuery::default())
        .unwrap()
        .entries
        .iter()
        .rev()
        .map(|e| e.entry.action.as_str().to_owned())
        .collect();
    assert_eq!(
        actions,
        [
            "member.joined",
            "member.invited",
            "member.invited",
            "member.joined",
            "login.succeeded",
            "member.removed",
            "member.invited",
            "member.joined",
            "member.removed",
            "member.invited",
            "member.invitation_declined",
            "member.invited",
            "member.invitation_revoked",
            "member.invited",
            "member.invited"
        ]
    );
}
