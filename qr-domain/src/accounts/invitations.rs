//! Invitations to a workspace by e-mail: inviting an address with a role within the plan's seats, listing, revoking and resending them, and the invitee's side (reading, accepting as the invited address, signing up through one, declining).
//!
//! An invitation's token is sent once, in the e-mailed link, and stored only as its SHA-256
//! (as the other one-time tokens). It works once, for [`INVITATION_LIFETIME`] after it was
//! (re)sent, and only for the address it was sent to. A pending invitation holds a seat, so
//! members plus unexpired invitations never exceed the plan's seats. An unknown, used,
//! declined, revoked or expired token all answer [`InvitationError::InvalidToken`] alike.

use std::net::IpAddr;

use chrono::{DateTime, Duration, Utc};
use thiserror::Error;

use crate::accounts::account::{Account, Email, EmailError};
use crate::accounts::caller::Caller;
use crate::accounts::permissions::{MemberRole, NotPermitted, Operation};
use crate::accounts::plan::Limit;
use crate::accounts::user::{Membership, User};
use crate::audit::entry::{
    ActorKind, AuditAction, AuditActor, AuditObject, Change, ClientNetwork, NewAuditEntry,
    ObjectKind,
};
use crate::audit::service::record;
use crate::clock::Clock;
use crate::dashboard::password::{HashError, Password, PasswordError, PasswordHash};
use crate::dashboard::token::{TokenHash, TokenSecret};
use crate::error::StoreError;
use crate::ids::{AccountId, InvitationId, UserId};
use crate::random::RandomError;
use crate::service::Service;
use crate::store::{ReadTx, Store, WriteTx};

/// How long an invitation's link works after it was sent or resent (the 7 days).
pub const INVITATION_LIFETIME: Duration = Duration::days(7);

/// A pending invitation of an address to a workspace with a role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invitation {
    /// The invitation's id (what the members page revokes and resends by).
    pub id: InvitationId,
    /// The workspace.
    pub account_id: AccountId,
    /// The invited address: only a user with this address joins by it.
    pub email: Email,
    /// The role the invitee gets (never owner).
    pub role: MemberRole,
    /// The SHA-256 of the current token; a resend replaces it.
    pub token_hash: TokenHash,
    /// When it was first sent.
    pub created_at: DateTime<Utc>,
    /// When the current token stops working.
    pub expires_at: DateTime<Utc>,
}

impl Invitation {
    /// Whether the token no longer works at `now` (the invitation stays listed until it is
    /// resent or revoked, and holds no seat meanwhile).
    pub fn is_expired(&self, now: DateTime<Utc>) -> bool {
        now >= self.expires_at
    }
}

/// What an invitation's link shows its holder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvitationView {
    /// The invitation.
    pub invitation: Invitation,
    /// The workspace it invites to.
    pub workspace: Account,
}

/// Why an invitation could not be made, changed or used.
#[derive(Debug, Clone, Error)]
pub enum InvitationError {
    /// The caller's role does not allow it.
    #[error(transparent)]
    NotPermitted(#[from] NotPermitted),
    /// The address is not a valid one.
    #[error(transparent)]
    Email(#[from] EmailError),
    /// An invitation never makes an owner.
    #[error(
        "an invitation cannot make someone the owner; invite them with another role, then hand the workspace over"
    )]
    OwnerRole,
    /// The address belongs to a member already.
    #[error("{0} is already a member of this workspace")]
    AlreadyMember(Email),
    /// The address has a pending invitation (resending it is the members page's other button).
    #[error("{0} already has an invitation to this workspace; resend it instead")]
    AlreadyInvited(Email),
    /// Members and unexpired invitations take every seat of the plan.
    #[error(
        "the {plan} plan has {seats} seats and all are taken by members and pending invitations; remove a member, revoke an invitation or change the plan"
    )]
    SeatsTaken {
        /// The plan's title.
        plan: &'static str,
        /// Its seats.
        seats: u64,
    },
    /// No such invitation in this workspace (another workspace's is not found either).
    #[error("invitation {0} not found")]
    NotFound(InvitationId),
    /// The link's token is unknown, used, declined, revoked or expired.
    #[error(
        "this invitation is not valid: it was already used, declined or revoked, or it has expired; ask for a new one"
    )]
    InvalidToken,
    /// The logged-in user's address is not the invited one.
    #[error(
        "this invitation was sent to another e-mail address; log in with the address it was sent to"
    )]
    WrongAddress,
    /// Signing up through an invitation whose address already has a user (the holder proved
    /// the address by the mail, so this tells them nothing about anyone else).
    #[error("this address already has an account; log in to accept the invitation")]
    AccountExists,
    /// The new password breaks a rule.
    #[error(transparent)]
    Password(#[from] PasswordError),
    /// Hashing the password failed.
    #[error(transparent)]
    Hash(#[from] HashError),
    /// The OS random number generator failed.
    #[error(transparent)]
    Random(#[from] RandomError),
    /// No such workspace.
    #[error("account {0} not found")]
    NoWorkspace(AccountId),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The seats a plan has all taken.
pub(crate) struct SeatsFull {
    pub(crate) plan: &'static str,
    pub(crate) seats: u64,
}

impl From<SeatsFull> for InvitationError {
    fn from(s: SeatsFull) -> Self {
        InvitationError::SeatsTaken {
            plan: s.plan,
            seats: s.seats,
        }
    }
}

/// Refuses one more seat holder when members and unexpired invitations (but `except`, the
/// invitation being resent or accepted, whose seat is already counted) fill the plan's seats.
pub(crate) fn ensure_seat<E: From<StoreError> + From<SeatsFull>>(
    tx: &dyn ReadTx,
    account: &Account,
    now: DateTime<Utc>,
    except: Option<InvitationId>,
) -> Result<(), E> {
    let Limit::Max(seats) = account.limits().seats else {
        return Ok(());
    };
    let members = tx.members_of(account.id)?.len() as u64;
    let pending = tx
        .invitations_of(account.id)?
        .iter()
        .filter(|i| !i.is_expired(now) && Some(i.id) != except)
        .count() as u64;
    if members + pending >= seats {
        return Err(SeatsFull {
            plan: account.plan.title(),
            seats,
        }
        .into());
    }
    Ok(())
}

/// The audit object of an invitation.
fn object(id: InvitationId) -> AuditObject {
    AuditObject::new(ObjectKind::Member, id)
}

/// The audit fields of a new or resent invitation.
fn invited_fields(invitation: &Invitation) -> Vec<Change> {
    vec![
        Change::shown("email", None, Some(invitation.email.to_string())),
        Change::shown("role", None, Some(invitation.role.as_str().to_owned())),
    ]
}

impl<S: Store, C: Clock> Service<S, C> {
    /// Invites `email` to the caller's workspace with `role` (never owner): refused for a
    /// member's address, for an address with an invitation already (resend that one), and when
    /// members and pending invitations fill the plan's seats. The token's secret is returned
    /// once, for the e-mailed link.
    pub fn invite(
        &self,
        caller: &Caller,
        email: &str,
        role: MemberRole,
    ) -> Result<(Invitation, TokenSecret), InvitationError> {
        caller.require(Operation::WriteMembers)?;
        if role == MemberRole::Owner {
            return Err(InvitationError::OwnerRole);
        }
        let email = Email::parse(email)?;
        let secret = TokenSecret::generate()?;
        let now = self.clock.now();
        let invitation = Invitation {
            id: InvitationId::random(),
            account_id: caller.account,
            email,
            role,
            token_hash: secret.hash(),
            created_at: now,
            expires_at: now + INVITATION_LIFETIME,
        };
        self.store.write(|tx| {
            let workspace = workspace(tx, caller.account)?;
            if let Some(user) = tx.user_by_email(&invitation.email)?
                && tx.membership(caller.account, user.id)?.is_some()
            {
                return Err(InvitationError::AlreadyMember(invitation.email.clone()));
            }
            if tx
                .invitation_to(caller.account, &invitation.email)?
                .is_some()
            {
                return Err(InvitationError::AlreadyInvited(invitation.email.clone()));
            }
            ensure_seat::<InvitationError>(tx, &workspace, now, None)?;
            tx.put_invitation(&invitation)?;
            record(
                tx,
                caller,
                now,
                AuditAction::MemberInvited,
                object(invitation.id),
                invited_fields(&invitation),
            )?;
            Ok(())
        })?;
        Ok((invitation, secret))
    }

    /// The workspace's invitations, oldest first, expired ones included (they hold no seat and
    /// wait to be resent or revoked).
    pub fn invitations(&self, caller: &Caller) -> Result<Vec<Invitation>, InvitationError> {
        caller.require(Operation::ReadMembers)?;
        Ok(self.store.read(|tx| tx.invitations_of(caller.account))?)
    }

    /// Revokes an invitation: its link stops working at once.
    pub fn revoke_invitation(
        &self,
        caller: &Caller,
        id: InvitationId,
    ) -> Result<Invitation, InvitationError> {
        caller.require(Operation::WriteMembers)?;
        let now = self.clock.now();
        self.store.write(|tx| {
            let invitation = tx
                .invitation(caller.account, id)?
                .ok_or(InvitationError::NotFound(id))?;
            tx.delete_invitation(caller.account, id)?;
            record(
                tx,
                caller,
                now,
                AuditAction::InvitationRevoked,
                object(id),
                vec![Change::shown(
                    "email",
                    Some(invitation.email.to_string()),
                    None,
                )],
            )?;
            Ok(invitation)
        })
    }

    /// Sends an invitation again: a new token (the old link stops working) valid for
    /// [`INVITATION_LIFETIME`] from now. An expired invitation takes a seat again, so it needs
    /// a free one.
    pub fn resend_invitation(
        &self,
        caller: &Caller,
        id: InvitationId,
    ) -> Result<(Invitation, TokenSecret), InvitationError> {
        caller.require(Operation::WriteMembers)?;
        let secret = TokenSecret::generate()?;
        let now = self.clock.now();
        self.store.write(|tx| {
            let mut invitation = tx
                .invitation(caller.account, id)?
                .ok_or(InvitationError::NotFound(id))?;
            if invitation.is_expired(now) {
                ensure_seat::<InvitationError>(tx, &workspace(tx, caller.account)?, now, Some(id))?;
            }
            invitation.token_hash = secret.hash();
            invitation.expires_at = now + INVITATION_LIFETIME;
            tx.put_invitation(&invitation)?;
            let mut fields = invited_fields(&invitation);
            fields.push(Change::shown("resent", None, Some("yes".to_owned())));
            record(
                tx,
                caller,
                now,
                AuditAction::MemberInvited,
                object(id),
                fields,
            )?;
            Ok((invitation, secret))
        })
    }

    /// The invitation of a link's token with its workspace, for the invitation page; any token
    /// that does not work (malformed, unknown, used, revoked, expired, workspace disabled) is
    /// [`InvitationError::InvalidToken`].
    pub fn invitation_for_token(&self, token: &str) -> Result<InvitationView, InvitationError> {
        let hash = token_hash(token)?;
        let now = self.clock.now();
        self.store.read(|tx| live_invitation(tx, &hash, now))
    }

    /// Accepts an invitation as `user`, whose address must be the invited one (any case). The
    /// user becomes a member with the invitation's role and the token is used up. A wrong
    /// address leaves the invitation as it was, for its rightful holder.
    pub fn accept_invitation(
        &self,
        user: &User,
        token: &str,
        client: Option<IpAddr>,
    ) -> Result<Membership, InvitationError> {
        let hash = token_hash(token)?;
        let now = self.clock.now();
        self.store.write(|tx| {
            let view = live_invitation(tx, &hash, now)?;
            if view.invitation.email.lookup_key() != user.email.lookup_key() {
                return Err(InvitationError::WrongAddress);
            }
            join(tx, &view, user, now, client)
        })
    }

    /// Signs up through an invitation: a new user with the invited address, already verified
    /// (the mail's link proved it), who joins the workspace with the invitation's role and
    /// owns no workspace of their own. It works when the operator closed sign-up, which is of
    /// workspaces, not of people a workspace invites. The password is hashed before any
    /// lookup, so every answer takes the same time.
    pub fn sign_up_by_invitation(
        &self,
        token: &str,
        password: &str,
        client: Option<IpAddr>,
    ) -> Result<(User, Membership), InvitationError> {
        let hash = token_hash(token)?;
        let password = Password::new(password)?;
        let password_hash = PasswordHash::of(&password)?;
        let now = self.clock.now();
        self.store.write(|tx| {
            let view = live_invitation(tx, &hash, now)?;
            if tx.user_by_email(&view.invitation.email)?.is_some() {
                return Err(InvitationError::AccountExists);
            }
            let mut user = User::new(UserId::random(), view.invitation.email.clone(), now);
            user.password_hash = Some(password_hash.clone());
            user.email_verified_at = Some(now);
            tx.insert_user(&user)?;
            let membership = join(tx, &view, &user, now, client)?;
            Ok((user, membership))
        })
    }

    /// Declines an invitation: the holder of the link (logged in or not) ends it; it frees its
    /// seat and the workspace's log says the invited address declined.
    pub fn decline_invitation(
        &self,
        token: &str,
        client: Option<IpAddr>,
    ) -> Result<Invitation, InvitationError> {
        let hash = token_hash(token)?;
        let now = self.clock.now();
        self.store.write(|tx| {
            let view = live_invitation(tx, &hash, now)?;
            let invitation = view.invitation;
            tx.delete_invitation(invitation.account_id, invitation.id)?;
            let user = tx.user_by_email(&invitation.email)?;
            tx.append_audit(&NewAuditEntry {
                account_id: invitation.account_id,
                at: now,
                // The invitee acts by the link: named by the invited address (and their user's
                // id when the address has one), as no membership names them yet.
                actor: AuditActor {
                    kind: ActorKind::User,
                    id: user.map(|u| u.id.to_string()).unwrap_or_default(),
                    label: invitation.email.to_string(),
                },
                action: AuditAction::InvitationDeclined,
                object: object(invitation.id),
                changes: vec![Change::shown(
                    "email",
                    Some(invitation.email.to_string()),
                    None,
                )],
                network: client.map(ClientNetwork::of),
            })?;
            Ok(invitation)
        })
    }
}

/// The hash of a presented token, or [`InvitationError::InvalidToken`] when it cannot be one
/// (no lookup is made then).
fn token_hash(token: &str) -> Result<TokenHash, InvitationError> {
    TokenSecret::parse(token)
        .map(|s| s.hash())
        .ok_or(InvitationError::InvalidToken)
}

/// The workspace, or [`InvitationError::NoWorkspace`].
fn workspace(tx: &dyn ReadTx, account: AccountId) -> Result<Account, InvitationError> {
    tx.account(account)?
        .ok_or(InvitationError::NoWorkspace(account))
}

/// The invitation of a token that works at `now`, with its active workspace.
fn live_invitation(
    tx: &dyn ReadTx,
    hash: &TokenHash,
    now: DateTime<Utc>,
) -> Result<InvitationView, InvitationError> {
    let invitation = tx
        .invitation_by_token(hash)?
        .filter(|i| !i.is_expired(now))
        .ok_or(InvitationError::InvalidToken)?;
    let workspace = tx
        .account(invitation.account_id)?
        .filter(Account::is_active)
        .ok_or(InvitationError::InvalidToken)?;
    Ok(InvitationView {
        invitation,
        workspace,
    })
}

/// Makes `user` a member by the invitation, uses the invitation up and logs the joining as the
/// new member's act. A user who is a member already keeps their role; the invitation is used
/// up all the same.
fn join(
    tx: &mut dyn WriteTx,
    view: &InvitationView,
    user: &User,
    now: DateTime<Utc>,
    client: Option<IpAddr>,
) -> Result<Membership, InvitationError> {
    let invitation = &view.invitation;
    tx.delete_invitation(invitation.account_id, invitation.id)?;
    if let Some(existing) = tx.membership(invitation.account_id, user.id)? {
        return Ok(existing);
    }
    // The invitation held its seat; a plan changed since may have fewer.
    ensure_seat::<InvitationError>(tx, &view.workspace, now, Some(invitation.id))?;
    let membership = Membership {
        account_id: invitation.account_id,
        user_id: user.id,
        role: invitation.role,
        created_at: now,
    };
    tx.put_membership(&membership)?;
    let member = Caller::member(
        invitation.account_id,
        user.id,
        user.email.as_str(),
        invitation.role,
        client,
    );
    record(
        tx,
        &member,
        now,
        AuditAction::MemberJoined,
        AuditObject::new(ObjectKind::Member, user.id),
        vec![Change::shown(
            "role",
            None,
            Some(invitation.role.as_str().to_owned()),
        )],
    )?;
    Ok(membership)
}
