//! `/dashboard/members`: the workspace's members with their roles (changing a role, removing, handing the workspace over), the invitation form, the pending invitations (resend, revoke), and leaving the workspace.

use askama::Template;
use http::StatusCode;
use qr_domain::accounts::invitations::{Invitation, InvitationError};
use qr_domain::accounts::members::MemberError;
use qr_domain::accounts::permissions::{MemberRole, Operation};
use qr_domain::ids::{InvitationId, UserId};
use qr_domain::{Clock, Store, TokenSecret};

use super::public::capitalised;
use super::{Failure, Layout, User, page, when};
use crate::Web;
use crate::mail::{MailJob, OutgoingMail};
use crate::response::{WebResponse, redirect};

/// The roles an invitation or a role change may give (the owner's changes only by handing
/// the workspace over).
const GIVEN_ROLES: [MemberRole; 3] = [MemberRole::Admin, MemberRole::Member, MemberRole::Viewer];

struct MemberRow {
    id: String,
    email: String,
    role: &'static str,
    role_name: &'static str,
    joined: String,
    is_owner: bool,
    is_me: bool,
}

struct InvitationRow {
    id: String,
    email: String,
    role: &'static str,
    sent: String,
    /// "expires …", or "expired" when the link no longer works.
    state: String,
    expired: bool,
}

#[derive(Template)]
#[template(path = "members.html")]
struct MembersPage {
    layout: Layout,
    csrf: String,
    members: Vec<MemberRow>,
    invitations: Vec<InvitationRow>,
    roles: Vec<(&'static str, &'static str)>,
    can_write: bool,
    can_transfer: bool,
    is_owner: bool,
    email: String,
    role: &'static str,
    error: Option<String>,
}

fn invitation_row(
    i: &Invitation,
    now: qr_domain::chrono::DateTime<qr_domain::chrono::Utc>,
) -> InvitationRow {
    let expired = i.is_expired(now);
    InvitationRow {
        id: i.id.to_string(),
        email: i.email.to_string(),
        role: i.role.title(),
        sent: when(i.created_at),
        state: if expired {
            "expired".to_owned()
        } else {
            format!("expires {}", when(i.expires_at))
        },
        expired,
    }
}

/// The page, with the invitation form's values and error when a form failed.
fn show<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    status: StatusCode,
    email: String,
    role: MemberRole,
    error: Option<String>,
) -> Result<WebResponse, Failure> {
    let caller = user.caller();
    let members = web.service.members(&caller).map_err(member_failure)?;
    let invitations = web
        .service
        .invitations(&caller)
        .map_err(invitation_failure)?;
    let now = web.service.now();
    page(
        status,
        &MembersPage {
            layout: user.layout("Members", "members"),
            csrf: user.csrf(),
            members: members
                .iter()
                .map(|(m, u)| MemberRow {
                    id: u.id.to_string(),
                    email: u.email.to_string(),
                    role: m.role.title(),
                    role_name: m.role.as_str(),
                    joined: when(m.created_at),
                    is_owner: m.role == MemberRole::Owner,
                    is_me: u.id == user.ctx.user.id,
                })
                .collect(),
            invitations: invitations.iter().map(|i| invitation_row(i, now)).collect(),
            roles: GIVEN_ROLES
                .iter()
                .map(|r| (r.as_str(), r.title()))
                .collect(),
            can_write: user.ctx.may(Operation::WriteMembers),
            can_transfer: user.ctx.may(Operation::TransferOwnership),
            is_owner: user.ctx.role() == MemberRole::Owner,
            email,
            role: role.as_str(),
            error,
        },
    )
}

/// `GET /dashboard/members`.
pub(super) fn index<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    show(
        web,
        user,
        StatusCode::OK,
        String::new(),
        MemberRole::Member,
        None,
    )
}

/// `POST /dashboard/members/invite` with `email` and `role`: invites the address and mails
/// the link; a refusal (a member's address, one invited already, seats taken, an invalid
/// address) shows the page again with the domain's message.
pub(super) fn invite<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    let form = user.form()?;
    let email = form.text("email").trim().to_owned();
    let role = match form.text("role").parse::<MemberRole>() {
        Ok(role) => role,
        Err(e) => {
            return show(
                web,
                user,
                StatusCode::UNPROCESSABLE_ENTITY,
                email,
                MemberRole::Member,
                Some(capitalised(&e)),
            );
        }
    };
    match web.service.invite(&user.caller(), &email, role) {
        Ok((invitation, secret)) => {
            web.outbox
                .enqueue(invitation_mail(web, user, &invitation, &secret));
            Ok(redirect("/dashboard/members?done=invited"))
        }
        Err(
            e @ (InvitationError::Email(_)
            | InvitationError::OwnerRole
            | InvitationError::AlreadyMember(_)
            | InvitationError::AlreadyInvited(_)
            | InvitationError::SeatsTaken { .. }),
        ) => show(
            web,
            user,
            StatusCode::UNPROCESSABLE_ENTITY,
            email,
            role,
            Some(capitalised(&e.to_string())),
        ),
        Err(e) => Err(invitation_failure(e)),
    }
}

/// `POST /dashboard/members/invitations/{id}/resend`: a new link (the old one stops working),
/// mailed again, valid 7 days from now.
pub(super) fn resend<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
) -> Result<WebResponse, Failure> {
    user.form()?;
    let id: InvitationId = id.parse().map_err(|_| Failure::NotFound)?;
    match web.service.resend_invitation(&user.caller(), id) {
        Ok((invitation, secret)) => {
            web.outbox
                .enqueue(invitation_mail(web, user, &invitation, &secret));
            Ok(redirect("/dashboard/members?done=invitation-resent"))
        }
        Err(e @ InvitationError::SeatsTaken { .. }) => show(
            web,
            user,
            StatusCode::UNPROCESSABLE_ENTITY,
            String::new(),
            MemberRole::Member,
            Some(capitalised(&e.to_string())),
        ),
        Err(e) => Err(invitation_failure(e)),
    }
}

/// `POST /dashboard/members/invitations/{id}/revoke`: the link stops working at once.
pub(super) fn revoke<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
) -> Result<WebResponse, Failure> {
    user.form()?;
    let id: InvitationId = id.parse().map_err(|_| Failure::NotFound)?;
    web.service
        .revoke_invitation(&user.caller(), id)
        .map_err(invitation_failure)?;
    Ok(redirect("/dashboard/members?done=invitation-revoked"))
}

/// `POST /dashboard/members/{user}/role` with `role`.
pub(super) fn change_role<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
) -> Result<WebResponse, Failure> {
    let form = user.form()?;
    let member: UserId = id.parse().map_err(|_| Failure::NotFound)?;
    let role = match form.text("role").parse::<MemberRole>() {
        Ok(role) => role,
        Err(e) => return member_refusal(web, user, capitalised(&e)),
    };
    match web.service.change_member_role(&user.caller(), member, role) {
        Ok(_) => Ok(redirect("/dashboard/members?done=role-changed")),
        Err(e @ MemberError::OwnerStays) => member_refusal(web, user, capitalised(&e.to_string())),
        Err(e) => Err(member_failure(e)),
    }
}

/// `POST /dashboard/members/{user}/remove`: the owner is never removed.
pub(super) fn remove<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
) -> Result<WebResponse, Failure> {
    user.form()?;
    let member: UserId = id.parse().map_err(|_| Failure::NotFound)?;
    match web.service.remove_member(&user.caller(), member) {
        Ok(()) => Ok(redirect("/dashboard/members?done=member-removed")),
        Err(e @ MemberError::OwnerStays) => member_refusal(web, user, capitalised(&e.to_string())),
        Err(e) => Err(member_failure(e)),
    }
}

/// `POST /dashboard/members/{user}/transfer`: the member becomes the owner; the old owner
/// stays as an admin.
pub(super) fn transfer<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    id: &str,
) -> Result<WebResponse, Failure> {
    user.form()?;
    let member: UserId = id.parse().map_err(|_| Failure::NotFound)?;
    web.service
        .transfer_ownership(&user.caller(), member)
        .map_err(member_failure)?;
    Ok(redirect("/dashboard/members?done=owner-changed"))
}

/// `POST /dashboard/members/leave`: any role but the owner leaves the workspace shown; the
/// session shows their next workspace.
pub(super) fn leave<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
) -> Result<WebResponse, Failure> {
    user.form()?;
    match web.service.leave_workspace(&user.ctx) {
        Ok(()) => Ok(redirect("/dashboard?done=left")),
        Err(MemberError::OwnerStays) => Err(Failure::Forbidden),
        Err(e) => Err(member_failure(e)),
    }
}

/// The page again with a refused member change's message (the members page needs
/// [`Operation::ReadMembers`], which every role that changes members has).
fn member_refusal<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    message: String,
) -> Result<WebResponse, Failure> {
    show(
        web,
        user,
        StatusCode::UNPROCESSABLE_ENTITY,
        String::new(),
        MemberRole::Member,
        Some(message),
    )
}

/// The failure page of a member change: another workspace's member is not found, a role
/// that does not allow it is forbidden.
fn member_failure(e: MemberError) -> Failure {
    match e {
        MemberError::NotPermitted(_) => Failure::Forbidden,
        MemberError::Store(e) => Failure::Store(e),
        MemberError::NotMember(_) | MemberError::NoWorkspace(_) | MemberError::NoSuchUser(_) => {
            Failure::NotFound
        }
        other => Failure::Internal(other.to_string()),
    }
}

/// The failure page of an invitation change: another workspace's invitation is not found.
fn invitation_failure(e: InvitationError) -> Failure {
    match e {
        InvitationError::NotPermitted(_) => Failure::Forbidden,
        InvitationError::Store(e) => Failure::Store(e),
        InvitationError::NotFound(_) | InvitationError::NoWorkspace(_) => Failure::NotFound,
        other => Failure::Internal(other.to_string()),
    }
}

/// The mail of an invitation with its link (the secret travels only in it).
fn invitation_mail<S: Store, C: Clock>(
    web: &Web<S, C>,
    user: &User<'_>,
    invitation: &Invitation,
    secret: &TokenSecret,
) -> MailJob {
    let link = web.link(&format!("/dashboard/invitation?token={}", secret.expose()));
    let to = invitation.email.to_string();
    let inviter = user.ctx.user.email.to_string();
    let workspace = user.ctx.account.email.to_string();
    let role = invitation.role.title();
    Box::new(move || {
        Some(OutgoingMail {
            to,
            subject: format!("You are invited to the workspace {workspace} on QR Platform"),
            body: format!(
                "{inviter} invited you to the QR Platform workspace {workspace} as {role}.\n\nOpen this link within 7 days to accept or decline; you can sign up there if you have no account yet:\n\n{link}\n\nIf you did not expect this invitation, ignore this message.\n"
            ),
        })
    })
}
