//! `qr members` and `qr workspaces`: the operator lists a workspace's members, adds existing users, changes roles, removes members, hands a workspace over, invites addresses (printing the invitation's link), lists and revokes invitations; and lists the workspaces a user belongs to.

use std::io::Write;

use chrono::{DateTime, Utc};
use clap::{Args, Subcommand};
use qr_domain::accounts::caller::Caller;
use qr_domain::accounts::invitations::{Invitation, InvitationError};
use qr_domain::accounts::members::MemberError;
use qr_domain::accounts::permissions::MemberRole;
use qr_domain::accounts::user::{Membership, User};
use qr_domain::ids::InvitationId;
use qr_domain::{Account, Email};
use serde_json::{Value, json};

use crate::db::{self, AdminService, Create, DbArgs};
use crate::output::{self, Table};

/// `qr members`.
#[derive(Debug, Args)]
pub struct MembersArgs {
    #[command(flatten)]
    db: DbArgs,
    #[command(subcommand)]
    command: MembersCommand,
}

/// `qr workspaces`.
#[derive(Debug, Args)]
pub struct WorkspacesArgs {
    #[command(flatten)]
    db: DbArgs,
    #[command(subcommand)]
    command: WorkspacesCommand,
}

#[derive(Debug, Subcommand)]
enum MembersCommand {
    /// Lists a workspace's members, its owner first, with their roles.
    List {
        /// The workspace's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// Print `{"members": [...]}`.
        #[arg(long)]
        json: bool,
    },
    /// Adds an existing user to a workspace, within the plan's seats (Free 1, Starter 3, Pro 10).
    Add {
        /// The user's login address.
        user: String,
        /// The workspace's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// The member's role: admin, member or viewer.
        #[arg(long, default_value = "member", value_parser = parse_role)]
        role: MemberRole,
        /// Print the membership as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Gives a member another role (admin, member or viewer; the owner changes by `transfer`).
    Role {
        /// The member's login address.
        user: String,
        /// The workspace's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// The new role.
        #[arg(long, value_parser = parse_role)]
        role: MemberRole,
        /// Print the membership as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Removes a member (not the owner); the workspace's keys and links stay.
    Remove {
        /// The member's login address.
        user: String,
        /// The workspace's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
    },
    /// Hands the workspace to another member; the old owner stays as an admin.
    Transfer {
        /// The new owner's login address (a member already).
        user: String,
        /// The workspace's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
    },
    /// Invites an address to a workspace with a role (admin, member or viewer), within the
    /// plan's seats, and prints the invitation's link (it works 7 days, once, for that address).
    /// No mail is sent: the operator passes the link on.
    Invite {
        /// The invited address (a user or not: the link lets them sign up).
        address: String,
        /// The workspace's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// The invitee's role: admin, member or viewer.
        #[arg(long, default_value = "member", value_parser = parse_role)]
        role: MemberRole,
        /// The public address of the service, as `qr serve --base-url` has it.
        #[arg(
            long,
            env = "QR_BASE_URL",
            value_name = "URL",
            default_value = "http://127.0.0.1:8080"
        )]
        base_url: String,
        /// Print the invitation and its link as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Lists a workspace's invitations, oldest first; expired ones stay listed (holding no seat)
    /// until revoked.
    Invitations {
        /// The workspace's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// Print `{"invitations": [...]}`.
        #[arg(long)]
        json: bool,
    },
    /// Revokes an invitation: its link stops working at once and its seat is free.
    Revoke {
        /// The invitation's id, as `qr members invitations` lists it.
        #[arg(value_name = "INVITATION_ID", value_parser = parse_invitation_id)]
        invitation: InvitationId,
        /// The workspace's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
    },
}

#[derive(Debug, Subcommand)]
enum WorkspacesCommand {
    /// Lists the workspaces a user belongs to, with their role in each.
    List {
        /// The user's login address.
        #[arg(long, value_parser = db::parse_email)]
        user: String,
        /// Print `{"workspaces": [...]}`.
        #[arg(long)]
        json: bool,
    },
}

/// A role as the flags take it.
fn parse_role(raw: &str) -> Result<MemberRole, String> {
    raw.parse()
}

/// An invitation's id as the flags take it; a malformed one is a usage error (exit code 2).
fn parse_invitation_id(raw: &str) -> Result<InvitationId, String> {
    raw.trim()
        .parse()
        .map_err(|e| format!("not an invitation id: {e}"))
}

/// Runs `qr members`.
pub fn run_members(args: MembersArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let service = args.db.open(Create::Never)?;
    match args.command {
        MembersCommand::List { email, json } => {
            let account = db::account_by_email(&service, &email)?;
            let members = service
                .members(&Caller::operator(account.id))
                .map_err(refusal)?;
            if json {
                let list: Vec<Value> = members.iter().map(|(m, u)| member_json(m, u)).collect();
                return output::write_json(out, &json!({ "members": list }));
            }
            let mut table = Table::new(&["E-MAIL", "ROLE", "JOINED"]);
            for (m, u) in &members {
                table.row(vec![
                    u.email.to_string(),
                    m.role.to_string(),
                    output::time(m.created_at),
                ]);
            }
            Ok(table.write(out)?)
        }
        MembersCommand::Add {
            user,
            email,
            role,
            json,
        } => {
            let account = db::account_by_email(&service, &email)?;
            let membership = service
                .add_member(&Caller::operator(account.id), &user, role)
                .map_err(refusal)?;
            print_member(&service, &membership, json, out)
        }
        MembersCommand::Role {
            user,
            email,
            role,
            json,
        } => {
            let account = db::account_by_email(&service, &email)?;
            let user = user_by_email(&service, &user)?;
            let membership = service
                .change_member_role(&Caller::operator(account.id), user.id, role)
                .map_err(refusal)?;
            print_member(&service, &membership, json, out)
        }
        MembersCommand::Remove { user, email } => {
            let account = db::account_by_email(&service, &email)?;
            let user = user_by_email(&service, &user)?;
            service
                .remove_member(&Caller::operator(account.id), user.id)
                .map_err(refusal)?;
            eprintln!(
                "qr: {} is no longer a member of {}",
                user.email, account.email
            );
            Ok(())
        }
        MembersCommand::Transfer { user, email } => {
            let account = db::account_by_email(&service, &email)?;
            let user = user_by_email(&service, &user)?;
            service
                .transfer_ownership(&Caller::operator(account.id), user.id)
                .map_err(refusal)?;
            eprintln!("qr: {} now owns the workspace {}", user.email, account.id);
            Ok(())
        }
        MembersCommand::Invite {
            address,
            email,
            role,
            base_url,
            json,
        } => {
            let account = db::account_by_email(&service, &email)?;
            let (invitation, secret) = service
                .invite(&Caller::operator(account.id), &address, role)
                .map_err(invitation_refusal)?;
            // The same link as the dashboard's invitation mail has.
            let link = format!(
                "{}/dashboard/invitation?token={}",
                base_url.trim_end_matches('/'),
                secret.expose()
            );
            if json {
                let mut view = invitation_json(&invitation, service.now());
                view["link"] = Value::String(link);
                return output::write_json(out, &view);
            }
            eprintln!(
                "qr: invited {} to {} as {} until {}; send them this link:",
                invitation.email,
                account.email,
                invitation.role,
                output::time(invitation.expires_at)
            );
            writeln!(out, "{link}")?;
            Ok(())
        }
        MembersCommand::Invitations { email, json } => {
            let account = db::account_by_email(&service, &email)?;
            let invitations = service
                .invitations(&Caller::operator(account.id))
                .map_err(invitation_refusal)?;
            let now = service.now();
            if json {
                let list: Vec<Value> = invitations
                    .iter()
                    .map(|i| invitation_json(i, now))
                    .collect();
                return output::write_json(out, &json!({ "invitations": list }));
            }
            let mut table = Table::new(&["ID", "E-MAIL", "ROLE", "INVITED", "EXPIRES"]);
            for i in &invitations {
                let expires = if i.is_expired(now) {
                    format!("{} (expired)", output::time(i.expires_at))
                } else {
                    output::time(i.expires_at)
                };
                table.row(vec![
                    i.id.to_string(),
                    i.email.to_string(),
                    i.role.to_string(),
                    output::time(i.created_at),
                    expires,
                ]);
            }
            Ok(table.write(out)?)
        }
        MembersCommand::Revoke { invitation, email } => {
            let account = db::account_by_email(&service, &email)?;
            let revoked = service
                .revoke_invitation(&Caller::operator(account.id), invitation)
                .map_err(invitation_refusal)?;
            eprintln!(
                "qr: the invitation of {} to {} is revoked; its link no longer works",
                revoked.email, account.email
            );
            Ok(())
        }
    }
}

/// Runs `qr workspaces`.
pub fn run_workspaces(args: WorkspacesArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let service = args.db.open(Create::Never)?;
    match args.command {
        WorkspacesCommand::List { user, json } => {
            let user = user_by_email(&service, &user)?;
            let workspaces = service.workspaces_of(user.id)?;
            if json {
                let list: Vec<Value> = workspaces
                    .iter()
                    .map(|(a, m)| workspace_json(a, m))
                    .collect();
                return output::write_json(out, &json!({ "workspaces": list }));
            }
            let mut table = Table::new(&["ID", "E-MAIL", "PLAN", "ROLE"]);
            for (a, m) in &workspaces {
                table.row(vec![
                    a.id.to_string(),
                    a.email.to_string(),
                    a.plan.to_string(),
                    m.role.to_string(),
                ]);
            }
            Ok(table.write(out)?)
        }
    }
}

/// The user with a login address, or a clear error (exit code 1).
fn user_by_email(service: &AdminService, raw: &str) -> anyhow::Result<User> {
    let email = Email::parse(raw).map_err(|e| crate::error::usage(format!("{raw:?}: {e}")))?;
    service
        .user_by_email(&email)?
        .ok_or_else(|| anyhow::Error::new(MemberError::NoSuchUser(email)))
}

fn member_json(m: &Membership, u: &User) -> Value {
    json!({
        "userId": u.id,
        "email": u.email.as_str(),
        "role": m.role.as_str(),
        "joinedAt": m.created_at,
    })
}

/// An invitation as `invite --json` and `invitations --json` print it (`expired` as of `now`).
fn invitation_json(i: &Invitation, now: DateTime<Utc>) -> Value {
    json!({
        "id": i.id,
        "email": i.email.as_str(),
        "role": i.role.as_str(),
        "invitedAt": i.created_at,
        "expiresAt": i.expires_at,
        "expired": i.is_expired(now),
    })
}

fn workspace_json(a: &Account, m: &Membership) -> Value {
    json!({
        "id": a.id,
        "email": a.email.as_str(),
        "plan": a.plan.as_str(),
        "role": m.role.as_str(),
        "joinedAt": m.created_at,
    })
}

fn print_member(
    service: &AdminService,
    m: &Membership,
    json: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let user = service.user(m.user_id)?;
    if json {
        return output::write_json(out, &member_json(m, &user));
    }
    Ok(output::write_fields(
        out,
        &[
            ("e-mail", user.email.to_string()),
            ("role", m.role.to_string()),
            ("joined", output::time(m.created_at)),
        ],
    )?)
}

/// A refusal by the data (exit code 1), or a wrong command line (exit code 2).
fn refusal(e: MemberError) -> anyhow::Error {
    match e {
        MemberError::Email(_) => crate::error::usage(e.to_string()),
        other => anyhow::Error::new(other),
    }
}

/// An invitation refused by the data (exit code 1: seats taken, owner role, member or invited
/// already, not found), or a wrong command line (exit code 2: an invalid address); the domain's
/// message either way.
fn invitation_refusal(e: InvitationError) -> anyhow::Error {
    match e {
        InvitationError::Email(_) => crate::error::usage(e.to_string()),
        other => anyhow::Error::new(other),
    }
}
