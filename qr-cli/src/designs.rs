//! `qr designs`: list, show, create, change, delete an account's saved designs and set its default, the look given as generate parameters and the logo as a file.

use std::io::{Read as _, Write};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::{Args, Subcommand};
use qr_domain::accounts::caller::Caller;
use qr_domain::designs::design::{Design, MAX_LOGO_BYTES};
use qr_domain::designs::service::{DesignError, DesignUpdate, parse_design_id};
use qr_domain::ids::DesignId;
use serde_json::{Value, json};

use crate::db::{self, Create, DbArgs};
use crate::output::{self, Table};

/// `qr designs`.
#[derive(Debug, Args)]
pub struct DesignsArgs {
    #[command(flatten)]
    db: DbArgs,
    #[command(subcommand)]
    command: DesignsCommand,
}

/// The fields `create` and `set` take.
#[derive(Debug, Args)]
struct DesignFields {
    /// A generate parameter of the look, NAME=VALUE (color=1a237e, style=dots, frame=box, …);
    /// repeat it for each. Given on `set`, the whole look is replaced.
    #[arg(long = "look", value_name = "NAME=VALUE")]
    look: Vec<String>,
    /// `set`: clear the look (the plain code's parameters).
    #[arg(long, conflicts_with = "look")]
    no_look: bool,
    /// A PNG or JPEG logo (at most 1 MiB; Pro plan and up).
    #[arg(long, value_name = "FILE")]
    logo: Option<PathBuf>,
    /// `set`: remove the logo.
    #[arg(long, conflicts_with = "logo")]
    no_logo: bool,
    /// Make it the account's default design.
    #[arg(long)]
    default: bool,
    /// Print the design as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum DesignsCommand {
    /// Lists an account's designs by name.
    List {
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// Print `{"designs": [...]}`.
        #[arg(long)]
        json: bool,
    },
    /// Shows a design: its look, logo and whether it is the default.
    Show {
        /// The design's id.
        id: String,
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// Print the design as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Saves a new design.
    Create {
        /// Its name.
        name: String,
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        #[command(flatten)]
        fields: DesignFields,
    },
    /// Changes a design: only what is given changes.
    Set {
        /// The design's id.
        id: String,
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
        /// A new name.
        #[arg(long)]
        name: Option<String>,
        #[command(flatten)]
        fields: DesignFields,
    },
    /// Deletes a design no link names.
    Delete {
        /// The design's id.
        id: String,
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
    },
    /// Makes a design the account's default (`--none`: no default, links without a design
    /// are plain).
    Default {
        /// The design's id.
        #[arg(required_unless_present = "none")]
        id: Option<String>,
        /// Leave the account without a default design.
        #[arg(long, conflicts_with = "id")]
        none: bool,
        /// The account's e-mail address.
        #[arg(long, value_parser = db::parse_email)]
        email: String,
    },
}

/// Runs `qr designs`.
pub fn run(args: DesignsArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let service = args.db.open(Create::Never)?;
    match args.command {
        DesignsCommand::List { email, json } => {
            let account = db::account_by_email(&service, &email)?;
            let designs = service.designs(account.id)?;
            if json {
                let list: Vec<Value> = designs.iter().map(view).collect();
                return output::write_json(out, &json!({ "designs": list }));
            }
            let mut table = Table::new(&["ID", "NAME", "DEFAULT", "LOGO", "LOOK"]);
            for d in &designs {
                table.row(vec![
                    d.id.to_string(),
                    d.name.to_string(),
                    if d.is_default { "yes" } else { "no" }.to_owned(),
                    logo_text(d),
                    look_text(d),
                ]);
            }
            Ok(table.write(out)?)
        }
        DesignsCommand::Show { id, email, json } => {
            let account = db::account_by_email(&service, &email)?;
            let design = service
                .design(account.id, design_id(&id)?)
                .map_err(refusal)?;
            write_design(out, &design, json)
        }
        DesignsCommand::Create {
            name,
            email,
            fields,
        } => {
            let account = db::account_by_email(&service, &email)?;
            let mut update = DesignUpdate::default();
            update.set_name(&name).map_err(refusal)?;
            read_fields(&mut update, &fields)?;
            let design = service
                .create_design(&Caller::operator(account.id), &update)
                .map_err(refusal)?;
            write_design(out, &design, fields.json)
        }
        DesignsCommand::Set {
            id,
            email,
            name,
            fields,
        } => {
            let account = db::account_by_email(&service, &email)?;
            let mut update = DesignUpdate::default();
            if let Some(name) = name {
                update.set_name(&name).map_err(refusal)?;
            }
            read_fields(&mut update, &fields)?;
            let design = service
                .update_design(&Caller::operator(account.id), design_id(&id)?, &update)
                .map_err(refusal)?;
            write_design(out, &design, fields.json)
        }
        DesignsCommand::Delete { id, email } => {
            let account = db::account_by_email(&service, &email)?;
            let id = design_id(&id)?;
            let design = service.design(account.id, id).map_err(refusal)?;
            service
                .delete_design(&Caller::operator(account.id), id)
                .map_err(refusal)?;
            eprintln!("qr: deleted design {} ({})", design.name, design.id);
            Ok(())
        }
        DesignsCommand::Default { id, none: _, email } => {
            let account = db::account_by_email(&service, &email)?;
            let id = id.as_deref().map(design_id).transpose()?;
            match service
                .set_default_design(&Caller::operator(account.id), id)
                .map_err(refusal)?
            {
                Some(design) => eprintln!("qr: {} is the default design", design.name),
                None => eprintln!("qr: the account has no default design"),
            }
            Ok(())
        }
    }
}

/// A design id as typed: a malformed one names no design.
fn design_id(text: &str) -> anyhow::Result<DesignId> {
    parse_design_id(text).map_err(anyhow::Error::new)
}

/// Sets the look, logo and default of `update` from the flags.
fn read_fields(update: &mut DesignUpdate, fields: &DesignFields) -> anyhow::Result<()> {
    if fields.no_look {
        update
            .set_look(std::iter::empty::<(&str, String)>())
            .map_err(refusal)?;
    } else if !fields.look.is_empty() {
        let mut pairs = Vec::with_capacity(fields.look.len());
        for item in &fields.look {
            let (name, value) = item.split_once('=').ok_or_else(|| {
                crate::error::usage(format!("--look {item:?}: expected NAME=VALUE"))
            })?;
            pairs.push((name.trim(), value.to_owned()));
        }
        update.set_look(pairs).map_err(refusal)?;
    }
    if fields.no_logo {
        update.clear_logo();
    } else if let Some(path) = &fields.logo {
        update.set_logo(None, read_logo(path)?).map_err(refusal)?;
    }
    if fields.default {
        update.set_default(true);
    }
    Ok(())
}

/// The logo file, read up to one byte past the bound so an oversized one is refused with the
/// domain's message without being read whole.
fn read_logo(path: &Path) -> anyhow::Result<Vec<u8>> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(MAX_LOGO_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok(bytes)
}

fn write_design(out: &mut dyn Write, design: &Design, json: bool) -> anyhow::Result<()> {
    if json {
        return output::write_json(out, &view(design));
    }
    Ok(output::write_fields(
        out,
        &[
            ("id", design.id.to_string()),
            ("name", design.name.to_string()),
            (
                "default",
                if design.is_default { "yes" } else { "no" }.to_owned(),
            ),
            ("look", look_text(design)),
            ("logo", logo_text(design)),
            ("created", output::time(design.created_at)),
            ("updated", output::time(design.updated_at)),
        ],
    )?)
}

fn look_text(design: &Design) -> String {
    if design.look.is_empty() {
        return "-".to_owned();
    }
    design
        .look
        .pairs()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn logo_text(design: &Design) -> String {
    design.logo.as_ref().map_or_else(
        || "-".to_owned(),
        |l| format!("{} ({} bytes)", l.kind().media_type(), l.bytes().len()),
    )
}

/// A design as `--json` prints it: the API's Design without the logo's bytes.
fn view(design: &Design) -> Value {
    json!({
        "id": design.id.to_string(),
        "name": design.name.as_str(),
        "look": design.look,
        "logo": design.logo.as_ref().map(|l| json!({
            "mediaType": l.kind().media_type(),
            "bytes": l.bytes().len(),
        })),
        "isDefault": design.is_default,
        "createdAt": output::time(design.created_at),
        "updatedAt": output::time(design.updated_at),
    })
}

/// Refusals of what was typed exit 2 (usage); the others (not found, plan, limit, in use) 1.
fn refusal(e: DesignError) -> anyhow::Error {
    match e {
        DesignError::Name(_)
        | DesignError::NameRequired
        | DesignError::Look(_)
        | DesignError::Logo(_) => crate::error::usage(e.to_string()),
        other => anyhow::Error::new(other),
    }
}
