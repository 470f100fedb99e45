//! `qr webhooks`: register, list and remove an account's webhook endpoints, and list their deliveries (pending, delivered, failed).

use std::io::Write;

use clap::{Args, Subcommand};
use qr_domain::accounts::caller::Caller;
use qr_domain::service::WebhookSettings;
use qr_domain::webhooks::webhook::{EndpointAddresses, WebhookError, WebhookId};
use serde_json::json;

use crate::db::{self, Create, DbArgs};
use crate::output::{self, Table};

/// Most deliveries `qr webhooks deliveries` lists by default.
const DEFAULT_DELIVERIES: u16 = 50;

/// `qr webhooks`.
#[derive(Debug, Args)]
pub struct WebhooksArgs {
    #[command(flatten)]
    db: DbArgs,
    #[command(subcommand)]
    command: WebhooksCommand,
}

#[derive(Debug, Subcommand)]
enum WebhooksCommand {
    /// Registers an endpoint; prints its signing secret, which is shown only this once.
    Add {
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// Where deliveries are POSTed: an http or https URL on a public address.
        #[arg(long, value_name = "URL")]
        url: String,
        /// Accept a URL on a loopback, private or other non-public address, as a server started
        /// with --webhooks-allow-private delivers to them (the same environment variable).
        #[arg(
            long,
            env = "QR_WEBHOOKS_ALLOW_PRIVATE",
            value_parser = clap::builder::BoolishValueParser::new(),
            action = clap::ArgAction::SetTrue
        )]
        allow_private: bool,
        /// The events wanted, comma-separated: link.created, link.updated, link.deleted,
        /// scan.recorded, usage.threshold.
        #[arg(long, value_delimiter = ',', required = true, value_name = "EVENT")]
        events: Vec<String>,
        /// The signing secret (16 to 128 printable ASCII characters); generated when absent.
        #[arg(long, env = "QR_WEBHOOK_SECRET", hide_env_values = true)]
        secret: Option<String>,
        /// Print the webhook with its secret as the API does.
        #[arg(long)]
        json: bool,
    },
    /// Lists an account's endpoints, oldest first (never their secrets).
    List {
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// Print `{"webhooks": [...]}` as the API does.
        #[arg(long)]
        json: bool,
    },
    /// Removes an endpoint with its undelivered events.
    Remove {
        /// The webhook's id (`wh_…`).
        id: String,
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
    },
    /// Lists an account's recent deliveries, newest first: pending (with the next attempt),
    /// delivered, or failed after 3 days of retries, with the last error.
    Deliveries {
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// Most deliveries listed.
        #[arg(long, default_value_t = DEFAULT_DELIVERIES, value_parser = clap::value_parser!(u16).range(1..=1000))]
        limit: u16,
        /// Print `{"deliveries": [...]}`.
        #[arg(long)]
        json: bool,
    },
}

/// Runs `qr webhooks`.
pub fn run(args: WebhooksArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let service = args.db.open(Create::Never)?;
    match args.command {
        WebhooksCommand::Add {
            email,
            url,
            allow_private,
            events,
            secret,
            json,
        } => {
            let endpoints = if allow_private {
                EndpointAddresses::Any
            } else {
                EndpointAddresses::PublicOnly
            };
            let settings = WebhookSettings {
                endpoints,
                ..service.webhook_settings()
            };
            let service = service.with_webhook_settings(settings);
            let account = db::account_by_email(&service, &email)?;
            let events: Vec<&str> = events.iter().map(String::as_str).collect();
            let hook = service
                .create_webhook(
                    &Caller::operator(account.id),
                    &url,
                    &events,
                    secret.as_deref(),
                )
                .map_err(refusal)?;
            if json {
                let mut value = serde_json::to_value(&hook)?;
                value["secret"] = json!(hook.secret.expose());
                return output::write_json(out, &value);
            }
            output::write_fields(
                out,
                &[
                    ("id", hook.id.to_string()),
                    ("url", hook.url.as_str().to_owned()),
                    (
                        "events",
                        output::list_or_dash(hook.events.kinds().map(|k| k.as_str())),
                    ),
                    ("secret", hook.secret.expose().to_owned()),
                ],
            )?;
            eprintln!("qr: keep the secret: it is not shown again");
            Ok(())
        }
        WebhooksCommand::List { email, json } => {
            let account = db::account_by_email(&service, &email)?;
            let hooks = service.webhooks(account.id)?;
            if json {
                return output::write_json(out, &json!({ "webhooks": hooks }));
            }
            let mut table = Table::new(&["ID", "URL", "EVENTS", "CREATED"]);
            for h in &hooks {
                table.row(vec![
                    h.id.to_string(),
                    h.url.as_str().to_owned(),
                    output::list_or_dash(h.events.kinds().map(|k| k.as_str())),
                    output::time(h.created_at),
                ]);
            }
            Ok(table.write(out)?)
        }
        WebhooksCommand::Remove { id, email } => {
            let account = db::account_by_email(&service, &email)?;
            let id: WebhookId = id.parse().map_err(refusal)?;
            service
                .delete_webhook(&Caller::operator(account.id), id)
                .map_err(refusal)?;
            eprintln!("qr: removed webhook {id}");
            Ok(())
        }
        WebhooksCommand::Deliveries { email, limit, json } => {
            let account = db::account_by_email(&service, &email)?;
            let list = service.webhook_deliveries(account.id, usize::from(limit))?;
            if json {
                return output::write_json(out, &json!({ "deliveries": list }));
            }
            let mut table = Table::new(&[
                "EVENT",
                "TYPE",
                "WEBHOOK",
                "STATE",
                "ATTEMPTS",
                "CREATED",
                "NEXT",
                "LAST ERROR",
            ]);
            for d in &list {
                let pending = d.state == qr_domain::webhooks::outbox::DeliveryState::Pending;
                table.row(vec![
                    d.id.to_string(),
                    d.kind.as_str().to_owned(),
                    d.webhook_id.to_string(),
                    d.state.as_str().to_owned(),
                    d.attempts.to_string(),
                    output::time(d.created_at),
                    if pending {
                        output::time(d.next_attempt_at)
                    } else {
                        "-".into()
                    },
                    d.last_error.clone().unwrap_or_else(|| "-".into()),
                ]);
            }
            Ok(table.write(out)?)
        }
    }
}

/// A refusal of the command line (exit 2) or of the data (exit 1, not found or over the limit).
fn refusal(e: WebhookError) -> anyhow::Error {
    match e {
        WebhookError::InvalidUrl(_)
        | WebhookError::NonPublicHost { .. }
        | WebhookError::InvalidEvents(_)
        | WebhookError::InvalidSecret => crate::error::usage(e.to_string()),
        other => anyhow::Error::new(other),
    }
}
