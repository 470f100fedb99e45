//! `qr accounts`: create, list and show accounts; change their plan, e-mail and enterprise limits; and the dashboard's administration: verify addresses, decide plan requests, disable and enable accounts, make admins, and print password links.

use std::io::Write;

use anyhow::{Context as _, bail};
use chrono::{DateTime, Utc};
use clap::builder::TypedValueParser as _;
use clap::{Args, Subcommand};
use qr_domain::accounts::plan::{PerSecond, Retention};
use qr_domain::dashboard::token::TOKEN_LIFETIME;
use qr_domain::ids::UserId;
use qr_domain::service::{Actor, AdminError};
use qr_domain::{
    Account, AccountStatus, EnterpriseOverrides, Limit, Plan, PlanLimits, Role, TokenPurpose,
};
use serde::Serialize;

use crate::db::{self, AdminService, Create, DbArgs};
use crate::output::{self, Table};

/// `qr accounts`.
#[derive(Debug, Args)]
pub struct AccountsArgs {
    #[command(flatten)]
    db: DbArgs,
    #[command(subcommand)]
    command: AccountsCommand,
}

#[derive(Debug, Subcommand)]
enum AccountsCommand {
    /// Creates an account (the database file is created if missing).
    Create {
        /// The account's e-mail address; it must not belong to another account.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// The account's plan.
        #[arg(long, default_value = "free", value_parser = plan_parser())]
        plan: Plan,
        /// Print the account as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Lists every account, oldest first, with its number of keys and links.
    List {
        /// Print the accounts as a JSON array.
        #[arg(long)]
        json: bool,
    },
    /// Shows an account with the limits in force.
    Show {
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// Print the account as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Changes an account's plan; the server applies it on its next request.
    SetPlan {
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// The new plan.
        #[arg(long, value_parser = plan_parser())]
        plan: Plan,
        /// Print the account as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Changes an account's e-mail address.
    SetEmail {
        /// The account's current e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// The new e-mail address; it must not belong to another account.
        #[arg(long, value_parser = db::parse_email)]
        new_email: String,
        /// Print the account as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Sets the limits of an Enterprise account; options not given keep their current value.
    ///
    /// Each option takes a number, or `default` for the Enterprise default (unlimited requests,
    /// links and retention; 200 requests per second; batches of 1000 items, 100 per minute).
    /// The overrides are stored for any plan but only apply while the account is on Enterprise.
    SetLimits {
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// Requests per calendar month (UTC).
        #[arg(long, value_name = "N|default", value_parser = parse_override)]
        monthly_requests: Option<Override>,
        /// Requests per second per key, 1 to 1000000.
        #[arg(long, value_name = "N|default", value_parser = parse_override)]
        per_second: Option<Override>,
        /// Items per batch request, at least 1.
        #[arg(long, value_name = "N|default", value_parser = parse_override)]
        batch_items: Option<Override>,
        /// Batch requests per minute, at least 1.
        #[arg(long, value_name = "N|default", value_parser = parse_override)]
        batch_per_minute: Option<Override>,
        /// Number of dynamic links.
        #[arg(long, value_name = "N|default", value_parser = parse_override)]
        links: Option<Override>,
        /// Days of scan history kept, at least 1.
        #[arg(long, value_name = "N|default", value_parser = parse_override)]
        retention_days: Option<Override>,
        /// Reset every limit to the Enterprise default before applying the other options.
        #[arg(long)]
        reset: bool,
        /// Print the account as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Marks an account's e-mail address as verified (when the verification mail cannot reach
    /// it, or SMTP is not configured); the account may then create API keys in the dashboard.
    Verify {
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// Print the account as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Lists the pending plan requests, oldest first.
    Requests {
        /// Print the requests as a JSON array.
        #[arg(long)]
        json: bool,
    },
    /// Approves an account's pending plan request: the account moves to the plan it asked for.
    Approve {
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// Print the account as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Declines an account's pending plan request; the account keeps its plan.
    Decline {
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// Print the account as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Disables an account: its sessions end, it cannot log in, and its API keys answer 401.
    Disable {
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// Print the account as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Enables a disabled account again; its keys work again.
    Enable {
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// Print the account as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Deletes an account and everything it owns: keys, links (their printed codes answer 410),
    /// scans, analytics, usage, sessions and tokens. The owner's account cannot be deleted.
    /// Irreversible: `qr export` first if the data is wanted.
    Delete {
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// Confirms the deletion (required: nothing can bring the account back).
        #[arg(long)]
        yes: bool,
    },
    /// Makes an account an admin of the dashboard, or a customer again.
    SetRole {
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// The new role.
        #[arg(long, value_parser = ["admin", "customer"])]
        role: String,
        /// Print the account as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Prints a link that sets the account's dashboard password (single use, 24 hours); any
    /// earlier reset link of the account stops working. Following it also verifies the address.
    ResetLink {
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// The public address of the service, as `qr serve --base-url` has it.
        #[arg(
            long,
            env = "QR_BASE_URL",
            value_name = "URL",
            default_value = "http://127.0.0.1:8080"
        )]
        base_url: String,
        /// Print the link as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// A pending plan request, as `accounts requests` prints it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct RequestView {
    account_id: String,
    email: String,
    plan: Plan,
    requested_plan: Plan,
    requested_at: DateTime<Utc>,
}

/// A reset link, as `accounts reset-link --json` prints it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct LinkView {
    email: String,
    link: String,
    expires_at: DateTime<Utc>,
}

/// A limit given on the command line: a number or the Enterprise default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Override {
    /// Back to the Enterprise default.
    Default,
    /// This number.
    Value(u64),
}

/// An account with its effective limits and counts, as `show` and `list` print it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct AccountView {
    #[serde(flatten)]
    account: Account,
    /// When the workspace's owner proved their address.
    email_verified_at: Option<DateTime<Utc>>,
    /// The owner's role on the service.
    role: Role,
    #[serde(serialize_with = "limits_json")]
    limits: PlanLimits,
    keys: usize,
    links: usize,
}

/// The limits in force, as `--json` prints them: camelCase like the API, and one type per field
/// whatever the plan (the API's -1 for unlimited; a batch of 0 items when the plan has none).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct LimitsView {
    monthly_requests: i64,
    per_second: u32,
    batch: BatchView,
    logo: bool,
    links: i64,
    retention_days: i64,
}

/// Batch limits; both 0 when the plan cannot use batch generation.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct BatchView {
    max_items: u32,
    per_minute: u32,
}

fn limits_json<S: serde::Serializer>(limits: &PlanLimits, s: S) -> Result<S::Ok, S::Error> {
    LimitsView::from(*limits).serialize(s)
}

impl From<PlanLimits> for LimitsView {
    fn from(limits: PlanLimits) -> Self {
        let count = |limit: Limit| match limit {
            Limit::Unlimited => -1,
            Limit::Max(n) => i64::try_from(n).unwrap_or(i64::MAX),
        };
        let batch = limits.batch.map_or(
            BatchView {
                max_items: 0,
                per_minute: 0,
            },
            |b| BatchView {
                max_items: b.max_items,
                per_minute: b.per_minute,
            },
        );
        Self {
            monthly_requests: count(limits.monthly_requests),
            per_second: limits.per_second.get(),
            batch,
            logo: limits.logo,
            links: count(limits.links),
            retention_days: match limits.retention {
                Retention::Unlimited => -1,
                Retention::Days(days) => i64::from(days),
            },
        }
    }
}

/// The plan names as clap possible values, so that help and completions list them.
pub fn plan_parser() -> impl clap::builder::TypedValueParser<Value = Plan> {
    clap::builder::PossibleValuesParser::new(Plan::ALL.map(Plan::as_str)).try_map(|s| s.parse())
}

fn parse_override(raw: &str) -> Result<Override, String> {
    let raw = raw.trim();
    if raw.eq_ignore_ascii_case("default") {
        return Ok(Override::Default);
    }
    raw.parse::<u64>()
        .map(Override::Value)
        .map_err(|_| format!("expected a whole number or `default`, got {raw:?}"))
}

impl Override {
    fn to_u64(self) -> Option<u64> {
        match self {
            Override::Default => None,
            Override::Value(n) => Some(n),
        }
    }

    fn to_u32(self, what: &str) -> anyhow::Result<Option<u32>> {
        self.to_u64()
            .map(|n| {
                u32::try_from(n)
                    .map_err(|_| crate::error::usage(format!("{what} {n} is too large")))
            })
            .transpose()
    }
}

/// Runs `qr accounts`.
pub fn run(args: AccountsArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let create = match args.command {
        AccountsCommand::Create { .. } => Create::IfMissing,
        _ => Create::Never,
    };
    let service = args.db.open(create)?;
    match args.command {
        AccountsCommand::Create { email, plan, json } => {
            let account = service.create_account(&email, plan)?;
            print_account(&service, account, json, out)
        }
        AccountsCommand::List { json } => list(&service, json, out),
        AccountsCommand::Show { email, json } => {
            let account = db::account_by_email(&service, &email)?;
            print_account(&service, account, json, out)
        }
        AccountsCommand::SetPlan { email, plan, json } => {
            let account = db::account_by_email(&service, &email)?;
            let account = service.set_plan(account.id, plan)?;
            print_account(&service, account, json, out)
        }
        AccountsCommand::SetEmail {
            email,
            new_email,
            json,
        } => {
            let account = db::account_by_email(&service, &email)?;
            let account = match service.set_email(account.id, &new_email) {
                Err(AdminError::EmailTaken(_)) => {
                    bail!("another account already has the e-mail address {new_email}")
                }
                changed => changed?,
            };
            print_account(&service, account, json, out)
        }
        AccountsCommand::SetLimits {
            email,
            monthly_requests,
            per_second,
            batch_items,
            batch_per_minute,
            links,
            retention_days,
            reset,
            json,
        } => {
            let account = db::account_by_email(&service, &email)?;
            let mut o = if reset {
                EnterpriseOverrides::default()
            } else {
                account.overrides
            };
            if let Some(v) = monthly_requests {
                o.monthly_requests = v.to_u64();
            }
            if let Some(v) = per_second {
                o.per_second = v
                    .to_u64()
                    .map(PerSecond::new)
                    .transpose()
                    .map_err(|e| crate::error::usage(format!("--per-second: {e}")))?;
            }
            if let Some(v) = batch_items {
                o.batch_items = v.to_u32("--batch-items")?;
            }
            if let Some(v) = batch_per_minute {
                o.batch_per_minute = v.to_u32("--batch-per-minute")?;
            }
            if let Some(v) = links {
                o.links = v.to_u64();
            }
            if let Some(v) = retention_days {
                o.retention_days = v.to_u32("--retention-days")?;
            }
            o.validate()
                .map_err(|e| crate::error::usage(e.to_string()))?;
            let account = service.set_overrides(account.id, o)?;
            if account.plan != Plan::Enterprise {
                eprintln!(
                    "qr: note: {} is on the {} plan; these limits apply once it is on enterprise",
                    account.email, account.plan
                );
            }
            print_account(&service, account, json, out)
        }
        AccountsCommand::Verify { email, json } => {
            let account = db::account_by_email(&service, &email)?;
            service.mark_verified(Actor::Operator, owner_of(&service, &account)?)?;
            print_account(&service, account, json, out)
        }
        AccountsCommand::Requests { json } => requests(&service, json, out),
        AccountsCommand::Approve { email, json } => decide(&service, &email, true, json, out),
        AccountsCommand::Decline { email, json } => decide(&service, &email, false, json, out),
        AccountsCommand::Disable { email, json } => {
            status(&service, &email, AccountStatus::Disabled, json, out)
        }
        AccountsCommand::Enable { email, json } => {
            status(&service, &email, AccountStatus::Active, json, out)
        }
        AccountsCommand::Delete { email, yes } => {
            if !yes {
                return Err(crate::error::usage(
                    "deleting an account cannot be undone: add --yes to confirm",
                ));
            }
            let account = db::account_by_email(&service, &email)?;
            service.admin_delete_account(Actor::Operator, account.id)?;
            eprintln!(
                "qr: deleted the account {} ({}) and everything it owned",
                account.email, account.id
            );
            Ok(())
        }
        AccountsCommand::SetRole { email, role, json } => {
            let role: Role = role.parse().map_err(crate::error::usage)?;
            let account = db::account_by_email(&service, &email)?;
            service.set_role(Actor::Operator, owner_of(&service, &account)?, role)?;
            print_account(&service, account, json, out)
        }
        AccountsCommand::ResetLink {
            email,
            base_url,
            json,
        } => {
            let account = db::account_by_email(&service, &email)?;
            let (account, token) =
                service.issue_token(owner_of(&service, &account)?, TokenPurpose::Reset)?;
            let link = format!(
                "{}/dashboard/reset?token={}",
                base_url.trim_end_matches('/'),
                token.expose()
            );
            if json {
                return output::write_json(
                    out,
                    &LinkView {
                        email: account.email.to_string(),
                        link,
                        expires_at: service.now() + TOKEN_LIFETIME,
                    },
                );
            }
            writeln!(out, "{link}")?;
            Ok(())
        }
    }
}

fn decide(
    service: &AdminService,
    email: &str,
    approve: bool,
    json: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let account = db::account_by_email(service, email)?;
    let account = match service.decide_plan_request(Actor::Operator, account.id, approve) {
        Err(AdminError::NoPlanRequest(_)) => {
            bail!("{} has no pending plan request", account.email)
        }
        decided => decided?,
    };
    print_account(service, account, json, out)
}

fn status(
    service: &AdminService,
    email: &str,
    status: AccountStatus,
    json: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let account = db::account_by_email(service, email)?;
    let account = service.set_status(Actor::Operator, account.id, status)?;
    print_account(service, account, json, out)
}

fn requests(service: &AdminService, json: bool, out: &mut dyn Write) -> anyhow::Result<()> {
    let views: Vec<RequestView> = service
        .admin_plan_requests(Actor::Operator)?
        .into_iter()
        .map(|(r, a)| RequestView {
            account_id: a.id.to_string(),
            email: a.email.to_string(),
            plan: a.plan,
            requested_plan: r.plan,
            requested_at: r.created_at,
        })
        .collect();
    if json {
        return output::write_json(out, &views);
    }
    let mut table = Table::new(&["E-MAIL", "PLAN", "REQUESTED", "AT"]);
    for v in &views {
        table.row(vec![
            v.email.clone(),
            v.plan.to_string(),
            v.requested_plan.to_string(),
            output::time(v.requested_at),
        ]);
    }
    Ok(table.write(out)?)
}

/// The user owning a workspace: `set-role`, `verify` and `reset-link` act on them.
fn owner_of(service: &AdminService, account: &Account) -> anyhow::Result<UserId> {
    service
        .owner_of(account.id)?
        .map(|o| o.id)
        .with_context(|| format!("the account {} has no owner", account.email))
}

fn view(service: &AdminService, account: Account) -> anyhow::Result<AccountView> {
    let owner = service.owner_of(account.id)?;
    Ok(AccountView {
        email_verified_at: owner.as_ref().and_then(|o| o.email_verified_at),
        role: owner.map_or(Role::Customer, |o| o.role),
        limits: account.limits(),
        keys: service.keys(account.id)?.len(),
        links: service.links(account.id)?.len(),
        account,
    })
}

fn list(service: &AdminService, json: bool, out: &mut dyn Write) -> anyhow::Result<()> {
    let views = service
        .accounts()?
        .into_iter()
        .map(|a| view(service, a))
        .collect::<anyhow::Result<Vec<_>>>()?;
    if json {
        return output::write_json(out, &views);
    }
    let mut table = Table::new(&["ID", "E-MAIL", "PLAN", "KEYS", "LINKS", "CREATED"]);
    for v in &views {
        table.row(vec![
            v.account.id.to_string(),
            v.account.email.to_string(),
            v.account.plan.to_string(),
            v.keys.to_string(),
            v.links.to_string(),
            output::time(v.account.created_at),
        ]);
    }
    Ok(table.write(out)?)
}

fn print_account(
    service: &AdminService,
    account: Account,
    json: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let v = view(service, account)?;
    if json {
        return output::write_json(out, &v);
    }
    let l = &v.limits;
    let batch = l.batch.map_or_else(
        || "not available".to_owned(),
        |b| format!("{} items, {} per minute", b.max_items, b.per_minute),
    );
    let retention = match l.retention {
        Retention::Unlimited => "unlimited".to_owned(),
        Retention::Days(d) => format!("{d} days"),
    };
    Ok(output::write_fields(
        out,
        &[
            ("id", v.account.id.to_string()),
            ("e-mail", v.account.email.to_string()),
            ("plan", v.account.plan.to_string()),
            ("created", output::time(v.account.created_at)),
            ("status", v.account.status.to_string()),
            ("role", v.role.to_string()),
            (
                "e-mail verified",
                output::time_or_never(v.email_verified_at),
            ),
            ("keys", v.keys.to_string()),
            ("links", format!("{} of {}", v.links, limit(l.links))),
            ("monthly requests", limit(l.monthly_requests)),
            ("requests per second", l.per_second.get().to_string()),
            ("batch", batch),
            ("scan retention", retention),
            ("enterprise limits", overrides(&v.account.overrides)),
        ],
    )?)
}

/// The overrides that are set, as `links 3, per second 20`, or `none`.
fn overrides(o: &EnterpriseOverrides) -> String {
    let set: Vec<String> = [
        ("monthly requests", o.monthly_requests),
        ("per second", o.per_second.map(|r| u64::from(r.get()))),
        ("batch items", o.batch_items.map(u64::from)),
        ("batch per minute", o.batch_per_minute.map(u64::from)),
        ("links", o.links),
        ("retention days", o.retention_days.map(u64::from)),
    ]
    .into_iter()
    .filter_map(|(name, value)| value.map(|v| format!("{name} {v}")))
    .collect();
    if set.is_empty() {
        "none (enterprise defaults)".to_owned()
    } else {
        set.join(", ")
    }
}

fn limit(l: Limit) -> String {
    match l {
        Limit::Unlimited => "unlimited".to_owned(),
        Limit::Max(n) => n.to_string(),
    }
}
