//! The provider's answer as it arrives on the callback URL (RFC 6749 §4.1.2): a code and the state, or an error and the state, with the issuer (RFC 9207) when the provider sends it; each parameter bounded.

use std::fmt;

use thiserror::Error;

use super::provider::{ProviderError, ProviderMetadata};

/// Longest authorization code accepted: providers issue 40 to 800 characters (Entra ID's are
/// the long ones); 4096 bounds what is sent back to the token endpoint.
const MAX_CODE_CHARS: usize = 4096;
/// Longest state accepted; ours are 43 characters, anything much longer is not ours.
const MAX_STATE_CHARS: usize = 512;
/// Longest `iss`, as an issuer URL.
const MAX_ISSUER_CHARS: usize = 2048;
/// Longest error code and description kept from the provider for the message.
const MAX_ERROR_CHARS: usize = 64;
const MAX_DESCRIPTION_CHARS: usize = 300;

/// The authorization code, redeemed once at the token endpoint. `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct AuthorizationCode(String);

impl AuthorizationCode {
    /// The code, for the token request.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for AuthorizationCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AuthorizationCode(<redacted>)")
    }
}

/// What the provider answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallbackOutcome {
    /// A code to redeem.
    Code(AuthorizationCode),
    /// A refusal (`access_denied`, `login_required`, …).
    Denied {
        /// The OAuth error code.
        error: String,
        /// The provider's explanation, shortened and without control characters.
        description: Option<String>,
    },
}

/// The callback's parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Callback {
    /// The `state` sent back.
    pub state: String,
    /// The `iss` parameter, when the provider sends one (RFC 9207).
    pub issuer: Option<String>,
    /// The code or the refusal.
    pub outcome: CallbackOutcome,
}

/// Why a callback's query is not an authorization response.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CallbackError {
    /// No `state` parameter.
    #[error("the sign-in response has no state; start again")]
    MissingState,
    /// Neither `code` nor `error`.
    #[error("the sign-in response has neither a code nor an error")]
    MissingCode,
    /// A parameter given twice (a sign of tampering; RFC 6749 §3.1 forbids it).
    #[error("the sign-in response repeats the parameter {0:?}")]
    Repeated(&'static str),
    /// A parameter longer than any provider sends.
    #[error("the sign-in response's {0:?} is too long")]
    TooLong(&'static str),
}

impl Callback {
    /// Reads the callback's query parameters (decoded by the adapter); unknown ones are ignored
    /// (`session_state`, `scope`, …).
    pub fn from_query_pairs<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, CallbackError> {
        let mut fields: [(&'static str, usize, Option<&'a str>); 5] = [
            ("state", MAX_STATE_CHARS, None),
            ("code", MAX_CODE_CHARS, None),
            ("error", MAX_ERROR_CHARS * 4, None),
            ("error_description", MAX_DESCRIPTION_CHARS * 4, None),
            ("iss", MAX_ISSUER_CHARS, None),
        ];
        for (name, value) in pairs {
            let Some(field) = fields.iter_mut().find(|(n, _, _)| *n == name) else {
                continue;
            };
            if field.2.is_some() {
                return Err(CallbackError::Repeated(field.0));
            }
            if value.chars().count() > field.1 {
                return Err(CallbackError::TooLong(field.0));
            }
            field.2 = Some(value);
        }
        let [state, code, error, description, issuer] = fields.map(|(_, _, v)| v);
        let state = state.ok_or(CallbackError::MissingState)?.to_owned();
        let outcome = match (error, code) {
            (Some(error), _) => CallbackOutcome::Denied {
                error: printable(error, MAX_ERROR_CHARS),
                description: description.map(|d| printable(d, MAX_DESCRIPTION_CHARS)),
            },
            (None, Some(code)) if !code.is_empty() => {
                CallbackOutcome::Code(AuthorizationCode(code.to_owned()))
            }
            (None, _) => return Err(CallbackError::MissingCode),
        };
        Ok(Self {
            state,
            issuer: issuer.map(str::to_owned),
            outcome,
        })
    }

    /// Refuses an `iss` that is not the provider's issuer, or a missing one from a provider that
    /// promises to send it (`authorization_response_iss_parameter_supported`): the answer came
    /// from another provider (a mix-up attack, RFC 9207 §2.4).
    pub fn check_issuer(&self, metadata: &ProviderMetadata) -> Result<(), ProviderError> {
        match &self.issuer {
            Some(issuer) if *issuer != metadata.issuer => Err(ProviderError::IssuerMismatch {
                expected: metadata.issuer.clone(),
                found: issuer.clone(),
            }),
            None if metadata.sends_issuer_in_response => Err(ProviderError::IssuerMismatch {
                expected: metadata.issuer.clone(),
                found: "no iss parameter".to_owned(),
            }),
            _ => Ok(()),
        }
    }
}

/// A provider's text made safe to show: control characters dropped, at most `max` characters.
fn printable(text: &str, max: usize) -> String {
    text.chars().filter(|c| !c.is_control()).take(max).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_and_state_are_read() {
        let callback = Callback::from_query_pairs([
            ("code", "abc"),
            ("state", "xyz"),
            ("iss", "https://id.example"),
            ("session_state", "ignored"),
        ])
        .unwrap();
        assert_eq!(callback.state, "xyz");
        assert_eq!(callback.issuer.as_deref(), Some("https://id.example"));
        assert_eq!(
            callback.outcome,
            CallbackOutcome::Code(AuthorizationCode("abc".to_owned()))
        );
        assert!(!format!("{callback:?}").contains("abc"));
    }

    #[test]
    fn an_error_wins_over_a_code_and_is_cleaned() {
        let long = "d".repeat(1000);
        let callback = Callback::from_query_pairs([
            ("state", "s"),
            ("error", "access_denied\n"),
            ("error_description", long.as_str()),
            ("code", "c"),
        ])
        .unwrap();
        let CallbackOutcome::Denied { error, description } = callback.outcome else {
            panic!("a refusal")
        };
        assert_eq!(error, "access_denied");
        assert_eq!(description.unwrap().len(), MAX_DESCRIPTION_CHARS);
    }

    #[test]
    fn malformed_callbacks_are_refused() {
        assert_eq!(
            Callback::from_query_pairs([("code", "c")]),
            Err(CallbackError::MissingState)
        );
        assert_eq!(
            Callback::from_query_pairs([("state", "s")]),
            Err(CallbackError::MissingCode)
        );
        assert_eq!(
            Callback::from_query_pairs([("state", "s"), ("code", "")]),
            Err(CallbackError::MissingCode)
        );
        assert_eq!(
            Callback::from_query_pairs([("state", "s"), ("state", "t"), ("code", "c")]),
            Err(CallbackError::Repeated("state"))
        );
        let long = "c".repeat(MAX_CODE_CHARS + 1);
        assert_eq!(
            Callback::from_query_pairs([("state", "s"), ("code", long.as_str())]),
            Err(CallbackError::TooLong("code"))
        );
    }

    #[test]
    fn the_issuer_parameter_must_name_the_provider() {
        let mut metadata =
            ProviderMetadata::for_tests("https://id.example", "https://id.example/authorize");
        let with = |iss: Option<&str>| Callback {
            state: "s".to_owned(),
            issuer: iss.map(str::to_owned),
            outcome: CallbackOutcome::Code(AuthorizationCode("c".to_owned())),
        };
        assert_eq!(
            with(Some("https://id.example")).check_issuer(&metadata),
            Ok(())
        );
        assert!(
            with(Some("https://evil.example"))
                .check_issuer(&metadata)
                .is_err()
        );
        assert_eq!(with(None).check_issuer(&metadata), Ok(()));
        metadata.sends_issuer_in_response = true;
        assert!(with(None).check_issuer(&metadata).is_err());
    }
}
