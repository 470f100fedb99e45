//! A design's look: the generate parameters that describe how a code looks (colours, shapes, gradient, frame, margin, level, logo size, SVG mode), checked by the parser `/api/generate` uses, so a design accepts exactly what generate accepts.

use std::collections::BTreeMap;

use qr_generate::parameters::{self as table, Parameter};
use qr_generate::{GenerateError, GenerateParams};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The generate parameters a design holds, in the API's order. The content (`data`, `type`),
/// the image's `size` and `format`, the print settings, `verify` and `symbol` describe one
/// request rather than a look, so they stay with the request; the logo is the design's upload.
pub const LOOK_PARAMETERS: [&Parameter; 15] = [
    &table::COLOR,
    &table::BACKGROUND,
    &table::ERROR_CORRECTION,
    &table::MARGIN,
    &table::LOGO_SIZE,
    &table::STYLE,
    &table::FINDER_STYLE,
    &table::FINDER_COLOR,
    &table::GRADIENT,
    &table::COLOR2,
    &table::GRADIENT_ANGLE,
    &table::FRAME,
    &table::FRAME_TEXT,
    &table::FRAME_COLOR,
    &table::SVG_MODE,
];

/// Whether `name` (an API name) is one of [`LOOK_PARAMETERS`].
pub fn is_look_parameter(name: &str) -> bool {
    LOOK_PARAMETERS.iter().any(|p| p.name == name)
}

/// The look parameters' names, for messages.
fn look_names() -> String {
    LOOK_PARAMETERS.map(|p| p.name).join(", ")
}

/// Why a look was refused; each `Display` is the API's message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LookError {
    /// A name that is not a look parameter (a typo, or a request setting such as `size`).
    #[error("Unknown look parameter: {0}; a design holds {names}", names = look_names())]
    Unknown(String),
    /// The same parameter twice.
    #[error("Duplicate look parameter: {0}")]
    Duplicate(String),
    /// A value generate refuses, with generate's message (`Invalid color`).
    #[error(transparent)]
    Invalid(#[from] GenerateError),
}

/// Look parameters by API name, each value as `/api/generate` takes it in its query. Only
/// values the generate parser accepts together are ever held (a gradient with its `color2`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Look(BTreeMap<String, String>);

impl Look {
    /// Checks `(name, value)` pairs: every name a look parameter given once, and every value,
    /// together, accepted by [`GenerateParams::parse`] (the first refusal is reported with
    /// generate's message).
    pub fn parse<K: AsRef<str>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Result<Self, LookError> {
        let mut values = BTreeMap::new();
        for (name, value) in pairs {
            let name = name.as_ref();
            let Some(parameter) = LOOK_PARAMETERS.iter().find(|p| p.name == name) else {
                // Bounded: a name in the message is cut at 100 characters.
                return Err(LookError::Unknown(name.chars().take(100).collect()));
            };
            if values
                .insert(parameter.name.to_owned(), value.into())
                .is_some()
            {
                return Err(LookError::Duplicate(parameter.name.to_owned()));
            }
        }
        let look = Self(values);
        look.with_data("x").parse().map_err(LookError::Invalid)?;
        Ok(look)
    }

    /// A look read back from storage (checked when it was stored).
    pub fn from_stored(values: BTreeMap<String, String>) -> Self {
        Self(values)
    }

    /// The parameters, by name.
    pub fn pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The value of one parameter.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// Whether no parameter is set (the plain code).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Generate parameters encoding `data` in this look.
    pub fn with_data(&self, data: &str) -> GenerateParams {
        GenerateParams::from_pairs(
            std::iter::once(("data", data.to_owned()))
                .chain(self.0.iter().map(|(k, v)| (k.as_str(), v.clone()))),
        )
    }

    /// This look with `overrides` on top: each look parameter an override names replaces the
    /// look's (the pairs of a request, whose other names are not the look's concern).
    pub fn overridden_by<'a>(
        &self,
        overrides: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Look {
        let mut values = self.0.clone();
        for (name, value) in overrides {
            if is_look_parameter(name) {
                values.insert(name.to_owned(), value.to_owned());
            }
        }
        Look(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_look_accepts_what_generate_accepts() {
        let look = Look::parse([("color", "1a237e"), ("style", "dots"), ("frame", "box")]);
        assert!(look.is_ok(), "{look:?}");
        assert_eq!(
            Look::parse([("color", "#000")]).unwrap_err().to_string(),
            "Invalid color"
        );
        assert_eq!(
            Look::parse([("gradient", "linear")])
                .unwrap_err()
                .to_string(),
            "Invalid color2"
        );
        assert!(Look::parse([("gradient", "linear"), ("color2", "6a1b9a")]).is_ok());
        assert_eq!(
            Look::parse([("margin", "11")]).unwrap_err().to_string(),
            "Invalid margin"
        );
    }

    #[test]
    fn request_settings_and_unknown_names_are_refused() {
        for name in ["size", "format", "data", "verify", "colour"] {
            let error = Look::parse([(name, "1")]).unwrap_err();
            assert!(
                matches!(&error, LookError::Unknown(n) if n == name),
                "{error}"
            );
            assert!(error.to_string().starts_with(&format!(
                "Unknown look parameter: {name}; a design holds color, background"
            )));
        }
        assert_eq!(
            Look::parse([("color", "000"), ("color", "111")]).unwrap_err(),
            LookError::Duplicate("color".into())
        );
    }

    #[test]
    fn every_look_parameter_is_a_generate_setting() {
        for p in LOOK_PARAMETERS {
            assert!(
                qr_generate::params::PARAMETER_NAMES.contains(&p.name),
                "{}",
                p.name
            );
        }
    }

    #[test]
    fn overrides_replace_look_parameters_only() {
        let look = Look::parse([("color", "111111"), ("margin", "2")]).unwrap();
        let over = look.overridden_by([("color", "222222"), ("size", "500")]);
        assert_eq!(over.get("color"), Some("222222"));
        assert_eq!(over.get("margin"), Some("2"));
        assert_eq!(over.get("size"), None);
    }
}
