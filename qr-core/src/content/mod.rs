//! Content helpers: validated builders for the payload strings phones act on (Wi-Fi, contacts, geo, e-mail, SMS, telephone, calendar events, SEPA transfers).
//!
//! Each payload is a type whose constructor checks its fields and returns a [`ContentError`] that
//! names the field and the rule; a built value always formats (with [`std::fmt::Display`] or
//! `payload()`) to a string the format's specification accepts, ready for
//! [`QrCode::encode_text`](crate::QrCode::encode_text).
//!
//! ```
//! use qr_core::content::{WifiNetwork, WifiSecurity};
//!
//! let wifi = WifiNetwork::new("Home; 5G", WifiSecurity::wpa("correct horse")?)?;
//! assert_eq!(wifi.payload(), r"WIFI:T:WPA;S:Home\; 5G;P:correct horse;;");
//! # Ok::<(), qr_core::content::ContentError>(())
//! ```

mod calendar;
mod contact;
mod epc;
mod fields;
mod geo;
mod messaging;
mod text;
mod wifi;

pub use calendar::{CalendarEvent, UtcDateTime};
pub use contact::{MeCard, PersonName, PhoneKind, PostalAddress, VCard, VCardVersion};
pub use epc::{Bic, EpcAmount, EpcTransfer, Iban, Remittance};
pub use fields::{EmailAddress, PhoneNumber, WebUrl};
pub use geo::{GeoLocation, Latitude, Longitude};
pub use messaging::{Mailto, Sms, Telephone};
pub use wifi::{WifiNetwork, WifiSecurity};

/// Why a payload's field was refused. Every message names the field and what would be accepted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ContentError {
    /// A required field is empty.
    #[error("{field} must not be empty")]
    Empty {
        /// The field.
        field: &'static str,
    },
    /// A field is longer than its format allows.
    #[error("{field} is {length} {unit} long; at most {max} are allowed")]
    TooLong {
        /// The field.
        field: &'static str,
        /// The largest length accepted.
        max: usize,
        /// The field's length.
        length: usize,
        /// What the lengths count: `characters` or `bytes`.
        unit: &'static str,
    },
    /// A field is shorter than its format allows.
    #[error("{field} is {length} {unit} long; at least {min} are needed")]
    TooShort {
        /// The field.
        field: &'static str,
        /// The smallest length accepted.
        min: usize,
        /// The field's length.
        length: usize,
        /// What the lengths count: `characters` or `bytes`.
        unit: &'static str,
    },
    /// A field holds a character its format cannot carry.
    #[error("{field} contains {character:?}, which is not allowed there")]
    InvalidCharacter {
        /// The field.
        field: &'static str,
        /// The first refused character.
        character: char,
    },
    /// A field does not have its format's shape.
    #[error("{field} is not valid: expected {expected}")]
    InvalidFormat {
        /// The field.
        field: &'static str,
        /// What the field must look like.
        expected: &'static str,
    },
    /// A number is outside its range.
    #[error("{field} {value} is outside {min} to {max}")]
    OutOfRange {
        /// The field.
        field: &'static str,
        /// The value given, as text.
        value: String,
        /// The smallest value accepted, as text.
        min: &'static str,
        /// The largest value accepted, as text.
        max: &'static str,
    },
    /// An IBAN whose check digits do not match (ISO 13616 mod-97).
    #[error("IBAN {iban} fails its mod-97 check: a character is probably mistyped")]
    IbanChecksum {
        /// The IBAN, normalised (no spaces, upper case).
        iban: String,
    },
    /// A transfer to an account outside the EEA needs the bank's BIC (EPC069-12 version 002).
    #[error("a BIC is required for an IBAN from {country}, which is outside the EEA")]
    BicRequired {
        /// The IBAN's country code.
        country: String,
    },
    /// A calendar event that ends before it starts.
    #[error("the event ends ({end}) before it starts ({start})")]
    EndBeforeStart {
        /// DTSTART, formatted.
        start: String,
        /// DTEND, formatted.
        end: String,
    },
    /// The whole payload is longer than its format allows.
    #[error("the {format} payload is {length} bytes; at most {max} are allowed")]
    PayloadTooLong {
        /// The payload format.
        format: &'static str,
        /// The largest payload accepted, in bytes.
        max: usize,
        /// The payload's length in bytes.
        length: usize,
    },
}
