//! `qr keys`: create, list, show, regenerate and revoke API keys, and change their access (full or scoped) and restrictions.

use std::io::Write;

use anyhow::bail;
use chrono::{DateTime, Utc};
use clap::builder::TypedValueParser as _;
use clap::{Args, Subcommand};
use qr_domain::accounts::access::{IpRule, OriginPattern};
use qr_domain::accounts::key::KeyCreator;
use qr_domain::accounts::permissions::{Scope, ScopeSet};
use qr_domain::accounts::plan::PerSecond;
use qr_domain::service::AdminError;
use qr_domain::{Account, ApiKey, Endpoint, KeyId, KeyMode, KeySettings, Plan};
use serde::Serialize;

use crate::accounts::plan_parser;
use crate::db::{self, AdminService, Create, DbArgs};
use crate::output::{self, Table};

/// `qr keys`.
#[derive(Debug, Args)]
pub struct KeysArgs {
    #[command(flatten)]
    db: DbArgs,
    #[command(subcommand)]
    command: KeysCommand,
}

#[derive(Debug, Subcommand)]
enum KeysCommand {
    /// Creates a key and prints it alone on standard output (it is shown only this once).
    ///
    /// The account of the e-mail address is created first when there is none, so
    /// `KEY=$(qr keys create --email a@example.com --plan pro)` works on an empty database.
    Create {
        /// The e-mail address of the key's account.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// The plan of the account. It is used when the account is created (default free); for an
        /// existing account on another plan the command fails rather than change it silently.
        #[arg(long, value_parser = plan_parser())]
        plan: Option<Plan>,
        /// Create a test key (qrapi_test_...) instead of a live key (qrapi_live_...).
        #[arg(long)]
        test: bool,
        /// Limit the key to this scope (repeatable); without any the key has full access.
        #[arg(long, value_name = "SCOPE", value_parser = scope_parser())]
        scope: Vec<Scope>,
    },
    /// Lists keys (never their secrets): id, account e-mail, display prefix, mode, created, who created it, last used, access.
    List {
        /// Only the keys of this account.
        #[arg(long, value_parser = db::parse_email)]
        email: Option<String>,
        /// Print the keys as a JSON array, settings included.
        #[arg(long)]
        json: bool,
    },
    /// Shows a key and its restrictions (never its secret).
    Show {
        /// The key's id, as `qr keys list` shows it.
        id: KeyId,
        /// Print the key as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Gives a key a new secret and prints it alone; the old secret stops working at once.
    Regenerate {
        /// The key's id.
        id: KeyId,
    },
    /// Deletes a key; requests with it fail from the server's next request on.
    Revoke {
        /// The key's id.
        id: KeyId,
    },
    /// Changes a key's access and restrictions, then shows the key.
    ///
    /// Lists are changed in this order: the --clear-* options empty them, the --remove-*
    /// options take entries out, and --allow-* add entries. An empty origin list allows every
    /// origin and an empty IP list every address. --scope replaces the key's scopes with the
    /// ones given; --full-access removes them; without either the access stays as it is.
    Set {
        /// The key's id.
        id: KeyId,
        /// Limit the key to exactly these scopes (repeatable), replacing its access.
        #[arg(long, value_name = "SCOPE", value_parser = scope_parser())]
        scope: Vec<Scope>,
        /// Give the key full access again (no scopes).
        #[arg(long, conflicts_with = "scope")]
        full_access: bool,
        /// Allow browser requests from this origin: `*`, a host, `*.example.com` or
        /// `https://host[:port]` (repeatable).
        #[arg(long, value_name = "PATTERN")]
        allow_origin: Vec<OriginPattern>,
        /// Take this origin out of the allowed origins (repeatable).
        #[arg(long, value_name = "PATTERN")]
        remove_origin: Vec<OriginPattern>,
        /// Remove every allowed origin (the key then works from any origin).
        #[arg(long)]
        clear_origins: bool,
        /// Allow requests from this address or CIDR network, such as 203.0.113.7 or
        /// 10.0.0.0/8 (repeatable).
        #[arg(long, value_name = "ADDRESS|CIDR")]
        allow_ip: Vec<IpRule>,
        /// Take this address or network out of the allowlist (repeatable).
        #[arg(long, value_name = "ADDRESS|CIDR")]
        remove_ip: Vec<IpRule>,
        /// Remove every IP rule (the key then works from any address).
        #[arg(long)]
        clear_ips: bool,
        /// The key's own requests per second, at most the plan's; `plan` uses the plan's rate.
        #[arg(long, value_name = "N|plan", value_parser = parse_rate)]
        rate: Option<Rate>,
        /// Bar the key from an endpoint (repeatable).
        #[arg(long, value_name = "ENDPOINT", value_parser = endpoint_parser())]
        disable_endpoint: Vec<Endpoint>,
        /// Allow an endpoint that was disabled (repeatable).
        #[arg(long, value_name = "ENDPOINT", value_parser = endpoint_parser())]
        enable_endpoint: Vec<Endpoint>,
        /// Enable every endpoint.
        #[arg(long)]
        enable_all_endpoints: bool,
        /// Print the key as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// A `--rate` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rate {
    /// Use the plan's rate.
    Plan,
    /// This many requests per second.
    PerSecond(PerSecond),
}

/// A key as `list`, `show` and `set` print it: everything but the secret.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct KeyView {
    id: KeyId,
    account_id: qr_domain::AccountId,
    email: String,
    display_prefix: String,
    mode: KeyMode,
    created_at: DateTime<Utc>,
    last_used_at: Option<DateTime<Utc>>,
    settings: KeySettings,
    /// Who made the key: a user's current address, `operator`, `former user` for a user who
    /// is gone, or null for keys made before this was kept.
    created_by: Option<String>,
}

/// The `--scope` values, each with what it reaches (shown by `--help`), from [`Scope::ALL`].
fn scope_parser() -> impl clap::builder::TypedValueParser<Value = Scope> {
    clap::builder::PossibleValuesParser::new(
        Scope::ALL
            .map(|scope| clap::builder::PossibleValue::new(scope.as_str()).help(scope.describe())),
    )
    .try_map(|s| s.parse::<Scope>())
}

/// The scopes given on the command line: `None` (full access) when none were.
fn scopes(given: Vec<Scope>) -> Option<ScopeSet> {
    ScopeSet::new(given).ok()
}

fn endpoint_parser() -> impl clap::builder::TypedValueParser<Value = Endpoint> {
    clap::builder::PossibleValuesParser::new(Endpoint::ALL.map(Endpoint::as_str))
        .try_map(|s| s.parse::<Endpoint>())
}

fn parse_rate(raw: &str) -> Result<Rate, String> {
    if raw.trim().eq_ignore_ascii_case("plan") {
        return Ok(Rate::Plan);
    }
    let n: u64 = raw.trim().parse().map_err(|_| {
        format!("expected a whole number of requests per second or `plan`, got {raw:?}")
    })?;
    PerSecond::new(n)
        .map(Rate::PerSecond)
        .map_err(|e| e.to_string())
}

/// Runs `qr keys`.
pub fn run(args: KeysArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let create = match args.command {
        KeysCommand::Create { .. } => Create::IfMissing,
        _ => Create::Never,
    };
    let service = args.db.open(create)?;
    match args.command {
        KeysCommand::Create {
            email,
            plan,
            test,
            scope,
        } => {
            let account = match db::find_account(&service, &email)? {
                Some(account) => {
                    if let Some(plan) = plan.filter(|p| *p != account.plan) {
                        bail!(
                            "{} is on the {} plan, not {plan}; change it with `qr accounts set-plan --email {} --plan {plan}` or leave out --plan",
                            account.email,
                            account.plan,
                            account.email
                        );
                    }
                    account
                }
                None => service.create_account(&email, plan.unwrap_or(Plan::Free))?,
            };
            let mode = if test { KeyMode::Test } else { KeyMode::Live };
            let (_, secret) = service.create_key_with_scopes(account.id, mode, scopes(scope))?;
            writeln!(out, "{}", secret.expose_secret())?;
            Ok(())
        }
        KeysCommand::List { email, json } => list(&service, email.as_deref(), json, out),
        KeysCommand::Show { id, json } => {
            let key = service.key(id)?;
            print_key(&service, key, json, out)
        }
        KeysCommand::Regenerate { id } => {
            let (_, secret) = service.regenerate_key(id)?;
            writeln!(out, "{}", secret.expose_secret())?;
            Ok(())
        }
        KeysCommand::Revoke { id } => {
            service.delete_key(id)?;
            eprintln!("qr: revoked key {id}");
            Ok(())
        }
        KeysCommand::Set {
            id,
            scope,
            full_access,
            allow_origin,
            remove_origin,
            clear_origins,
            allow_ip,
            remove_ip,
            clear_ips,
            rate,
            disable_endpoint,
            enable_endpoint,
            enable_all_endpoints,
            json,
        } => {
            if let Some(both) = disable_endpoint
                .iter()
                .find(|e| enable_endpoint.contains(e))
            {
                return Err(crate::error::usage(format!(
                    "the endpoint {} is both disabled and enabled",
                    both.as_str()
                )));
            }
            let key = service.key(id)?;
            let mut s = key.settings.clone();
            if full_access {
                s.scopes = None;
            } else if let Some(scopes) = scopes(scope) {
                s.scopes = Some(scopes);
            }
            if clear_origins {
                s.allowed_origins.clear();
            }
            s.allowed_origins.retain(|p| !remove_origin.contains(p));
            for p in allow_origin {
                if !s.allowed_origins.contains(&p) {
                    s.allowed_origins.push(p);
                }
            }
            if clear_ips {
                s.ip_allowlist.clear();
            }
            s.ip_allowlist.retain(|r| !remove_ip.contains(r));
            for r in allow_ip {
                if !s.ip_allowlist.contains(&r) {
                    s.ip_allowlist.push(r);
                }
            }
            match rate {
                Some(Rate::Plan) => s.rate_per_second = None,
                Some(Rate::PerSecond(r)) => s.rate_per_second = Some(r),
                None => {}
            }
            if enable_all_endpoints {
                s.disabled_endpoints.clear();
            }
            for e in &enable_endpoint {
                s.disabled_endpoints.remove(e);
            }
            s.disabled_endpoints.extend(disable_endpoint);
            let key = service.update_key_settings(id, s)?;
            print_key(&service, key, json, out)
        }
    }
}

/// Who made a key, as `list` and `show` print it.
fn creator(service: &AdminService, key: &ApiKey) -> anyhow::Result<Option<String>> {
    Ok(match key.created_by {
        None => None,
        Some(KeyCreator::Operator) => Some("operator".to_owned()),
        Some(KeyCreator::User(id)) => Some(match service.user(id) {
            Ok(user) => user.email.to_string(),
            Err(AdminError::UserNotFound(_)) => "former user".to_owned(),
            Err(e) => return Err(e.into()),
        }),
    })
}

fn view(service: &AdminService, key: ApiKey, account: &Account) -> anyhow::Result<KeyView> {
    let created_by = creator(service, &key)?;
    Ok(KeyView {
        id: key.id,
        account_id: key.account_id,
        email: account.email.to_string(),
        display_prefix: key.display_prefix,
        mode: key.mode,
        created_at: key.created_at,
        last_used_at: key.last_used_at,
        settings: key.settings,
        created_by,
    })
}

fn list(
    service: &AdminService,
    email: Option<&str>,
    json: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let accounts = match email {
        Some(email) => vec![db::account_by_email(service, email)?],
        None => service.accounts()?,
    };
    let mut views = Vec::new();
    for account in &accounts {
        for key in service.keys(account.id)? {
            views.push(view(service, key, account)?);
        }
    }
    if json {
        return output::write_json(out, &views);
    }
    let mut table = Table::new(&[
        "ID",
        "E-MAIL",
        "PREFIX",
        "MODE",
        "CREATED",
        "CREATED BY",
        "LAST USED",
        "ACCESS",
    ]);
    for v in &views {
        table.row(vec![
            v.id.to_string(),
            v.email.clone(),
            format!("{}…", v.display_prefix),
            v.mode.as_str().to_owned(),
            output::time(v.created_at),
            v.created_by.clone().unwrap_or_else(|| "-".to_owned()),
            output::time_or_never(v.last_used_at),
            access(&v.settings),
        ]);
    }
    Ok(table.write(out)?)
}

fn print_key(
    service: &AdminService,
    key: ApiKey,
    json: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let account = service.account(key.account_id)?;
    let limits = account.limits();
    let v = view(service, key, &account)?;
    if json {
        return output::write_json(out, &v);
    }
    let s = &v.settings;
    let rate = match s.rate_per_second {
        Some(r) => format!("{}/s (plan: {}/s)", r.get(), limits.per_second.get()),
        None => format!("plan's rate, {}/s", limits.per_second.get()),
    };
    let origins = if s.allowed_origins.is_empty() {
        "any".to_owned()
    } else {
        output::list_or_dash(&s.allowed_origins)
    };
    let ips = if s.ip_allowlist.is_empty() {
        "any".to_owned()
    } else {
        output::list_or_dash(&s.ip_allowlist)
    };
    Ok(output::write_fields(
        out,
        &[
            ("id", v.id.to_string()),
            ("e-mail", v.email.clone()),
            ("prefix", format!("{}…", v.display_prefix)),
            ("mode", v.mode.as_str().to_owned()),
            ("created", output::time(v.created_at)),
            (
                "created by",
                v.created_by.clone().unwrap_or_else(|| "-".to_owned()),
            ),
            ("last used", output::time_or_never(v.last_used_at)),
            ("access", access(s)),
            ("allowed origins", origins),
            ("allowed IPs", ips),
            ("rate", rate),
            (
                "disabled endpoints",
                output::list_or_dash(s.disabled_endpoints.iter().map(|e| e.as_str())),
            ),
        ],
    )?)
}

/// A key's access as the table and the fields show it: `full`, or its scopes by name.
fn access(settings: &KeySettings) -> String {
    match &settings.scopes {
        None => "full".to_owned(),
        Some(scopes) => scopes
            .iter()
            .map(Scope::as_str)
            .collect::<Vec<_>>()
            .join(","),
    }
}
