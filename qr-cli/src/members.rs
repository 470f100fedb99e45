//! `qr members` and `qr workspaces`: the operator lists a workspace's members, adds existing users, changes roles, removes members and hands a workspace over; and lists the workspaces a user belongs to.

use std::io::Write;

use clap::{Args, Subcommand};
use qr_domain::accounts::caller::Caller;
use qr_domain::accounts::members::MemberError;
use qr_domain::accounts::permissions::MemberRole;
use qr_domain::accounts::user::{Membership, User};
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
