//! Content types (`type=wifi` and the others): one table of types and their fields, shared by the API, its OpenAPI document, the CLI's `qr generate <type>` subcommands and the dashboard designer, and the payload built from those fields with `qr_core::content`.
//!
//! A field is named once here, by its API name (`postalCode`); the CLI spells it as a long
//! flag (`--postal-code`, [`ContentField::flag`]). Every refusal names the field: a missing
//! required field is [`PayloadError::MissingField`](crate::PayloadError::MissingField), a value `qr_core::content` refuses is
//! [`PayloadError::Content`](crate::PayloadError::Content) with its [`ContentError`](qr_core::content::ContentError), a value that does not parse is
//! [`PayloadError::InvalidField`](crate::PayloadError::InvalidField).

mod payload;

pub use payload::build;

/// What kind of value a field takes (for documentation, form controls and CLI flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// One line of text.
    Text,
    /// Text that may hold line breaks.
    Multiline,
    /// One of a few values (case-insensitive).
    Choice(&'static [&'static str]),
    /// `true` or `false`.
    Flag,
    /// A decimal number.
    Number,
    /// A UTC date and time, `YYYY-MM-DDTHH:MM[:SS]Z`.
    DateTime,
}

/// One field of a content type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContentField {
    /// The API parameter name (camelCase).
    pub name: &'static str,
    /// What the field holds, one sentence.
    pub help: &'static str,
    /// Whether the type needs it.
    pub required: bool,
    /// The kind of value.
    pub kind: FieldKind,
    /// An example value (used in the OpenAPI document and as the designer's placeholder; empty
    /// when the type's example leaves the field out).
    pub example: &'static str,
}

impl ContentField {
    /// The CLI's long flag for the field: the API name in kebab case (`postalCode` is
    /// `postal-code`).
    pub fn flag(&self) -> String {
        let mut flag = String::with_capacity(self.name.len() + 2);
        for c in self.name.chars() {
            if c.is_ascii_uppercase() {
                flag.push('-');
                flag.push(c.to_ascii_lowercase());
            } else {
                flag.push(c);
            }
        }
        flag
    }
}

impl ContentField {
    /// A short label for forms: the help up to its first comma, bracket, colon or full stop
    /// ("Mobile number: + and 3 to 15 digits…" is "Mobile number").
    pub fn label(&self) -> &'static str {
        self.help
            .split([',', '(', ':', '.'])
            .next()
            .unwrap_or(self.name)
            .trim()
    }
}

/// A content field as one request parameter: its name and every type that uses it (`phone` is
/// a field of vcard, mecard, sms and tel), as the API document and the designer list it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldParameter {
    /// The API name.
    pub name: &'static str,
    /// Every type with the field, with that type's field, in table order (never empty).
    pub uses: Vec<(&'static ContentType, &'static ContentField)>,
}

impl FieldParameter {
    /// The field of the first type that uses it (its kind is every type's).
    pub fn first(&self) -> &'static ContentField {
        self.uses[0].1
    }

    /// The names of the types that use it.
    pub fn types(&self) -> Vec<&'static str> {
        self.uses.iter().map(|(kind, _)| kind.name).collect()
    }

    /// The names of the types that require it.
    pub fn required_by(&self) -> Vec<&'static str> {
        self.uses
            .iter()
            .filter(|(_, f)| f.required)
            .map(|(kind, _)| kind.name)
            .collect()
    }

    /// The first example a type gives (`None` when none does).
    pub fn example(&self) -> Option<&'static str> {
        self.uses
            .iter()
            .map(|(_, f)| f.example)
            .find(|e| !e.is_empty())
    }

    /// The label of forms: the first type's ([`ContentField::label`]).
    pub fn label(&self) -> &'static str {
        self.first().label()
    }

    /// The description: one sentence per wording with the types that use it (`type=vcard,
    /// mecard: Mobile number…`), then the types that require it.
    pub fn description(&self) -> String {
        let mut wordings: Vec<(Vec<&str>, &str)> = Vec::new();
        for (kind, field) in &self.uses {
            match wordings.iter_mut().find(|(_, help)| *help == field.help) {
                Some((kinds, _)) => kinds.push(kind.name),
                None => wordings.push((vec![kind.name], field.help)),
            }
        }
        let mut description: Vec<String> = wordings
            .iter()
            .map(|(kinds, help)| format!("type={}: {help}", kinds.join(", ")))
            .collect();
        let required = self.required_by();
        if !required.is_empty() {
            description.push(format!("Required for type={}.", required.join(", ")));
        }
        description.join(" ")
    }
}

/// Every content field once, in table order ([`field_names`]), with the types that use it.
pub fn field_parameters() -> Vec<FieldParameter> {
    field_names()
        .into_iter()
        .map(|name| FieldParameter {
            name,
            uses: CONTENT_TYPES
                .iter()
                .filter_map(|t| t.fields.iter().find(|f| f.name == name).map(|f| (t, f)))
                .collect(),
        })
        .collect()
}

/// A content type: its name, the other names it answers to, and its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContentType {
    /// The `type` value.
    pub name: &'static str,
    /// Other accepted `type` values.
    pub aliases: &'static [&'static str],
    /// What the code does when scanned, one sentence.
    pub summary: &'static str,
    /// The fields, required ones first.
    pub fields: &'static [ContentField],
}

const fn field(
    name: &'static str,
    required: bool,
    kind: FieldKind,
    help: &'static str,
    example: &'static str,
) -> ContentField {
    ContentField {
        name,
        help,
        required,
        kind,
        example,
    }
}

use FieldKind::{Choice, DateTime, Flag, Multiline, Number, Text};

/// The values of `encryption`.
pub const ENCRYPTIONS: &[&str] = &["WPA", "WEP", "nopass"];
/// The values of `version` (vCard).
pub const VCARD_VERSIONS: &[&str] = &["3", "4"];

/// The contact fields vCard and MeCard share, after the name.
macro_rules! contact_fields {
    ($($extra:expr),*) => {
        &[
            field("firstName", false, Text, "Given name (firstName or lastName is required).", "Jane"),
            field("lastName", false, Text, "Family name (firstName or lastName is required).", "Doe"),
            field("org", false, Text, "Organisation.", "ACME Inc."),
            field("phone", false, Text, "Mobile number: + and 3 to 15 digits, spaces, dashes, dots and brackets allowed.", "+1 555 0100"),
            field("workPhone", false, Text, "Work number, as phone.", "+1 555 0199"),
            field("email", false, Text, "E-mail address.", "jane@example.com"),
            field("url", false, Text, "Web site: an absolute URL such as https://example.com.", "https://example.com"),
            field("street", false, Text, "Street and number.", "1 Main St"),
            field("city", false, Text, "City or town.", "Springfield"),
            field("region", false, Text, "State or province.", "IL"),
            field("postalCode", false, Text, "Postal code.", "62701"),
            field("country", false, Text, "Country.", "USA"),
            $($extra),*
        ]
    };
}

/// Every content type, in the order documents list them.
pub const CONTENT_TYPES: &[ContentType] = &[
    ContentType {
        name: "wifi",
        aliases: &[],
        summary: "Joins a Wi-Fi network (WIFI: payload).",
        fields: &[
            field(
                "ssid",
                true,
                Text,
                "Network name: 1 to 32 bytes.",
                "Home Wi-Fi",
            ),
            field(
                "password",
                false,
                Text,
                "Password: a WPA passphrase (8 to 63 characters, or 64 hex digits) or WEP key (5 or 13 characters, or 10 or 26 hex digits); none for an open network.",
                "correct horse",
            ),
            field(
                "encryption",
                false,
                Choice(ENCRYPTIONS),
                "Security: WPA (also WPA2 and WPA3), WEP or nopass (none is accepted too); default WPA with a password, nopass without.",
                "WPA",
            ),
            field(
                "hidden",
                false,
                Flag,
                "Hidden network: true when the network does not broadcast its name.",
                "false",
            ),
        ],
    },
    ContentType {
        name: "vcard",
        aliases: &[],
        summary: "Adds a contact (vCard 3.0 or 4.0).",
        fields: contact_fields!(field(
            "version",
            false,
            Choice(VCARD_VERSIONS),
            "vCard version, 3 or 4 (default 3, which every phone reads).",
            "3"
        )),
    },
    ContentType {
        name: "mecard",
        aliases: &[],
        summary: "Adds a contact (MeCard, shorter than a vCard).",
        fields: contact_fields!(),
    },
    ContentType {
        name: "geo",
        aliases: &[],
        summary: "Opens a place on the map (geo: URI).",
        fields: &[
            field(
                "latitude",
                true,
                Number,
                "Latitude in degrees, -90 to 90.",
                "48.8584",
            ),
            field(
                "longitude",
                true,
                Number,
                "Longitude in degrees, -180 to 180.",
                "2.2945",
            ),
        ],
    },
    ContentType {
        name: "email",
        aliases: &["mailto"],
        summary: "Writes an e-mail (mailto: URI).",
        fields: &[
            field(
                "to",
                true,
                Text,
                "Recipient's e-mail address.",
                "jane@example.com",
            ),
            field("subject", false, Text, "Subject, one line.", "Hello"),
            field("body", false, Multiline, "Message text.", "See you soon."),
        ],
    },
    ContentType {
        name: "sms",
        aliases: &[],
        summary: "Writes a text message (SMSTO: payload).",
        fields: &[
            field(
                "phone",
                true,
                Text,
                "Recipient's number: + and 3 to 15 digits, spaces, dashes, dots and brackets allowed.",
                "+1 555 0100",
            ),
            field("message", false, Multiline, "Message text.", "Hello"),
        ],
    },
    ContentType {
        name: "tel",
        aliases: &["phone"],
        summary: "Calls a number (tel: URI).",
        fields: &[field(
            "phone",
            true,
            Text,
            "Number to call: + and 3 to 15 digits, spaces, dashes, dots and brackets allowed.",
            "+1 555 0100",
        )],
    },
    ContentType {
        name: "event",
        aliases: &["calendar"],
        summary: "Adds a calendar event (iCalendar VEVENT).",
        fields: &[
            field(
                "summary",
                true,
                Text,
                "Event title, one line.",
                "Team meeting",
            ),
            field(
                "start",
                true,
                DateTime,
                "Start in UTC: YYYY-MM-DDTHH:MM[:SS]Z.",
                "2025-03-14T09:30:00Z",
            ),
            field(
                "end",
                false,
                DateTime,
                "End in UTC, not before the start.",
                "2025-03-14T10:30:00Z",
            ),
            field("location", false, Text, "Place, one line.", "Room 4"),
            field(
                "description",
                false,
                Multiline,
                "Details.",
                "Quarterly review",
            ),
        ],
    },
    ContentType {
        name: "epc",
        aliases: &["girocode"],
        summary: "Fills in a SEPA credit transfer (EPC QR code, GiroCode).",
        fields: &[
            field(
                "name",
                true,
                Text,
                "Beneficiary's name, at most 70 characters.",
                "Red Cross",
            ),
            field(
                "iban",
                true,
                Text,
                "Beneficiary's IBAN (spaces allowed).",
                "DE89 3704 0044 0532 0130 00",
            ),
            field(
                "bic",
                false,
                Text,
                "Bank's BIC, 8 or 11 characters; required outside the EEA.",
                "COBADEFFXXX",
            ),
            field(
                "amount",
                false,
                Number,
                "Amount in euros, 0.01 to 999999999.99, at most 2 decimals.",
                "12.30",
            ),
            field(
                "reference",
                false,
                Text,
                "Structured creditor reference, at most 35 letters, digits and spaces (not with message).",
                "RF18539007547034",
            ),
            // No example: the example uses the reference, and the two exclude each other.
            field(
                "message",
                false,
                Text,
                "Remittance text, at most 140 characters (not with reference).",
                "",
            ),
        ],
    },
];

/// The content type called `name` (its name or an alias, case-insensitive).
pub fn content_type(name: &str) -> Option<&'static ContentType> {
    CONTENT_TYPES.iter().find(|t| {
        t.name.eq_ignore_ascii_case(name) || t.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
    })
}

/// Every field name of every type, each once, in table order.
pub fn field_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for field in CONTENT_TYPES.iter().flat_map(|t| t.fields) {
        if !names.contains(&field.name) {
            names.push(field.name);
        }
    }
    names
}

/// Whether `name` is a field of some content type.
pub fn is_field_name(name: &str) -> bool {
    CONTENT_TYPES
        .iter()
        .flat_map(|t| t.fields)
        .any(|f| f.name == name)
}

/// The `type` values, for messages: `wifi, vcard, …`.
pub fn type_names() -> String {
    CONTENT_TYPES
        .iter()
        .map(|t| t.name)
        .collect::<Vec<_>>()
        .join(", ")
}
