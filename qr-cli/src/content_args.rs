//! `qr generate wifi --ssid …` and the other content subcommands, built from qr-generate's table of content types, so the CLI takes exactly the API's `type` values and fields (each field as a long flag in kebab case).

use clap::{Arg, ArgAction, ArgMatches, Command, FromArgMatches, Subcommand};
use qr_generate::content::{CONTENT_TYPES, ContentField, ContentType, FieldKind, content_type};

/// A content subcommand with its fields as given.
#[derive(Debug, Clone)]
pub struct ContentCommand {
    /// The content type.
    pub kind: &'static ContentType,
    /// The fields given, by their API names.
    pub fields: Vec<(&'static str, String)>,
}

impl FromArgMatches for ContentCommand {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let Some((name, sub)) = matches.subcommand() else {
            return Err(clap::Error::new(clap::error::ErrorKind::MissingSubcommand));
        };
        let kind = content_type(name)
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidSubcommand))?;
        let fields = kind
            .fields
            .iter()
            .filter_map(|field| match field.kind {
                FieldKind::Flag => sub
                    .get_flag(field.name)
                    .then(|| (field.name, "true".to_owned())),
                _ => sub
                    .get_one::<String>(field.name)
                    .map(|value| (field.name, value.clone())),
            })
            .collect();
        Ok(ContentCommand { kind, fields })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Subcommand for ContentCommand {
    fn augment_subcommands(command: Command) -> Command {
        command.subcommands(CONTENT_TYPES.iter().map(subcommand))
    }

    fn augment_subcommands_for_update(command: Command) -> Command {
        Self::augment_subcommands(command)
    }

    fn has_subcommand(name: &str) -> bool {
        content_type(name).is_some()
    }
}

/// One content type as a subcommand: its summary, aliases and one flag per field.
fn subcommand(kind: &'static ContentType) -> Command {
    Command::new(kind.name)
        // vCard's `--version` field is the card's version, not the program's.
        .disable_version_flag(true)
        .about(kind.summary)
        .visible_aliases(kind.aliases)
        .after_help(format!(
            "The same fields as GET /api/generate?type={}; every render option of `qr generate` applies.",
            kind.name
        ))
        .args(kind.fields.iter().map(flag))
}

fn flag(field: &'static ContentField) -> Arg {
    let arg = Arg::new(field.name)
        .long(field.flag())
        .help(field.help)
        .required(field.required);
    match field.kind {
        FieldKind::Flag => arg.action(ArgAction::SetTrue),
        FieldKind::Choice(_) => arg.value_name("VALUE"),
        FieldKind::DateTime => arg.value_name("UTC"),
        FieldKind::Number => arg.value_name("NUMBER").allow_negative_numbers(true),
        FieldKind::Text | FieldKind::Multiline => arg.value_name("TEXT"),
    }
}
