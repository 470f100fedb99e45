//! The seam to the identity provider: the trait an adapter implements (discovery; the token request and the ID token's signature), the provider's metadata with the rules it must meet, and the typed failures of talking to it.

use std::fmt;

use thiserror::Error;
use url::Url;

use super::attempt::PkceVerifier;
use super::callback::AuthorizationCode;
use super::claims::IdTokenClaims;
use super::settings::{IssuerUrl, RedirectUri, SsoSettings};
use crate::public_address::NonPublic;

/// What the service needs from an OpenID provider. Implementations do the network and the
/// cryptography, within bounded time and size, connecting to public addresses only unless
/// configured otherwise; every acceptance rule stays in this module.
pub trait IdentityProvider: Send + Sync {
    /// Reads the provider's metadata at [`IssuerUrl::discovery_url`] and checks it with
    /// [`ProviderMetadata::from_discovery`].
    fn discover(&self, issuer: &IssuerUrl) -> Result<ProviderMetadata, ProviderError>;

    /// Redeems `code` at the token endpoint (with the verifier, the redirect URI and the client
    /// credentials, authenticated as [`ProviderMetadata::token_auth`] says), then verifies the
    /// returned ID token's signature with the provider's published key of its `kid`, and returns
    /// its claims, not yet checked against [`super::check_claims`]'s rules.
    fn exchange_code(
        &self,
        metadata: &ProviderMetadata,
        settings: &SsoSettings,
        code: &AuthorizationCode,
        verifier: &PkceVerifier,
        redirect_uri: &RedirectUri,
    ) -> Result<IdTokenClaims, ProviderError>;
}

/// How the client authenticates at the token endpoint (OpenID Connect Core §9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenEndpointAuth {
    /// HTTP Basic with the form-encoded client id and secret (the default of the specification).
    ClientSecretBasic,
    /// `client_id` and `client_secret` in the form body.
    ClientSecretPost,
}

/// The provider's discovery document as the adapter read it, before any rule.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiscoveryDocument {
    /// `issuer`.
    pub issuer: Option<String>,
    /// `authorization_endpoint`.
    pub authorization_endpoint: Option<String>,
    /// `token_endpoint`.
    pub token_endpoint: Option<String>,
    /// `jwks_uri`.
    pub jwks_uri: Option<String>,
    /// `response_types_supported`.
    pub response_types_supported: Option<Vec<String>>,
    /// `code_challenge_methods_supported` (RFC 8414).
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// `token_endpoint_auth_methods_supported`.
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// `id_token_signing_alg_values_supported`.
    pub id_token_signing_alg_values_supported: Option<Vec<String>>,
    /// `authorization_response_iss_parameter_supported` (RFC 9207).
    pub authorization_response_iss_parameter_supported: Option<bool>,
}

/// A provider's metadata that passed the rules of [`ProviderMetadata::from_discovery`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderMetadata {
    /// The issuer as the provider spells it: what every ID token's `iss` must equal.
    pub issuer: String,
    /// Where the browser is sent.
    pub authorization_endpoint: String,
    /// Where the code is redeemed.
    pub token_endpoint: String,
    /// Where the signing keys are published.
    pub jwks_uri: String,
    /// How the client authenticates at the token endpoint.
    pub token_auth: TokenEndpointAuth,
    /// The ID token signing algorithms the provider uses, as it lists them (RS256 when it does
    /// not say, the specification's default).
    pub signing_algorithms: Vec<String>,
    /// Whether the provider sends `iss` with its authorization response (RFC 9207), which is
    /// then required.
    pub sends_issuer_in_response: bool,
}

impl ProviderMetadata {
    /// Applies the rules to a discovery document read for `issuer`: the document names the same
    /// issuer (Discovery §4.3, one final `/` aside); the three endpoints are absolute URLs, on
    /// `https` unless the issuer itself is plain `http` (a loopback test provider); the code flow
    /// and S256 are supported when the document lists what it supports; the token endpoint takes
    /// `client_secret_basic` (preferred, the default) or `client_secret_post`.
    pub fn from_discovery(
        issuer: &IssuerUrl,
        document: DiscoveryDocument,
    ) -> Result<Self, ProviderError> {
        let invalid = |detail: String| ProviderError::Invalid {
            step: ProviderStep::Discovery,
            detail,
        };
        let found = document
            .issuer
            .ok_or_else(|| invalid("no issuer".to_owned()))?;
        if !issuer.matches(&found) {
            return Err(ProviderError::IssuerMismatch {
                expected: issuer.as_str().to_owned(),
                found,
            });
        }
        let plain_http_allowed = issuer.as_str().starts_with("http:");
        let endpoint = |name: &str, value: Option<String>| -> Result<String, ProviderError> {
            let value = value.ok_or_else(|| invalid(format!("no {name}")))?;
            let url = Url::parse(&value).map_err(|_| invalid(format!("{name} is not a URL")))?;
            match url.scheme() {
                "https" => Ok(value),
                "http" if plain_http_allowed => Ok(value),
                _ => Err(invalid(format!("{name} is not an https URL"))),
            }
        };
        let authorization_endpoint =
            endpoint("authorization_endpoint", document.authorization_endpoint)?;
        let token_endpoint = endpoint("token_endpoint", document.token_endpoint)?;
        let jwks_uri = endpoint("jwks_uri", document.jwks_uri)?;
        let lists = |list: &Option<Vec<String>>, wanted: &str| {
            list.as_ref().is_none_or(|l| l.iter().any(|v| v == wanted))
        };
        if !lists(&document.response_types_supported, "code") {
            return Err(ProviderError::Unsupported(
                "the authorization code flow (response type code)",
            ));
        }
        if !lists(&document.code_challenge_methods_supported, "S256") {
            return Err(ProviderError::Unsupported("PKCE with S256"));
        }
        let auth_methods = document.token_endpoint_auth_methods_supported;
        let token_auth = if lists(&auth_methods, "client_secret_basic") {
            TokenEndpointAuth::ClientSecretBasic
        } else if lists(&auth_methods, "client_secret_post") {
            TokenEndpointAuth::ClientSecretPost
        } else {
            return Err(ProviderError::Unsupported(
                "client_secret_basic or client_secret_post at the token endpoint",
            ));
        };
        Ok(Self {
            issuer: found,
            authorization_endpoint,
            token_endpoint,
            jwks_uri,
            token_auth,
            signing_algorithms: document
                .id_token_signing_alg_values_supported
                .unwrap_or_else(|| vec!["RS256".to_owned()]),
            sends_issuer_in_response: document
                .authorization_response_iss_parameter_supported
                .unwrap_or(false),
        })
    }

    /// Metadata with the given issuer and authorization endpoint, for unit tests.
    #[cfg(test)]
    pub(crate) fn for_tests(issuer: &str, authorization_endpoint: &str) -> Self {
        Self {
            issuer: issuer.to_owned(),
            authorization_endpoint: authorization_endpoint.to_owned(),
            token_endpoint: format!("{issuer}/token"),
            jwks_uri: format!("{issuer}/jwks"),
            token_auth: TokenEndpointAuth::ClientSecretBasic,
            signing_algorithms: vec!["RS256".to_owned()],
            sends_issuer_in_response: false,
        }
    }
}

/// Which request to the provider failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderStep {
    /// The discovery document.
    Discovery,
    /// The key set (JWKS).
    Keys,
    /// The token request.
    Token,
}

impl fmt::Display for ProviderStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProviderStep::Discovery => "discovery document",
            ProviderStep::Keys => "key set",
            ProviderStep::Token => "token endpoint",
        })
    }
}

/// Why an ID token's signature was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SignatureError {
    /// Not a compact JWS of three base64url parts with a JSON header and payload.
    #[error("the ID token is malformed: {0}")]
    Malformed(String),
    /// An algorithm outside those accepted (`none` and the HMAC family never are).
    #[error("the ID token is signed with {0}, which is not accepted")]
    AlgorithmNotAccepted(String),
    /// No published key has the token's `kid` (or, without one, no single key fits).
    #[error("no published key of the provider matches the ID token (kid {0:?})")]
    UnknownKey(Option<String>),
    /// The signature does not verify.
    #[error("the ID token's signature is invalid")]
    Invalid,
}

/// Why talking to the provider failed; `Display` is the message a person (an admin setting up
/// single sign-on, or someone signing in) sees.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProviderError {
    /// The host is or resolves to an address the server does not connect to.
    #[error(
        "the identity provider's host {host} is {reason}, which the server does not connect to"
    )]
    AddressNotAllowed {
        /// The host as written in the URL.
        host: String,
        /// Why its address is not public.
        reason: NonPublic,
    },
    /// No connection, or a broken exchange.
    #[error("could not reach the identity provider's {step}: {detail}")]
    Unreachable {
        /// The request.
        step: ProviderStep,
        /// What failed (resolution, connection, TLS).
        detail: String,
    },
    /// The request took too long.
    #[error("the identity provider's {step} did not answer within {seconds} seconds")]
    Timeout {
        /// The request.
        step: ProviderStep,
        /// The limit.
        seconds: u64,
    },
    /// An HTTP status other than success (the token endpoint's OAuth errors aside).
    #[error("the identity provider's {step} answered HTTP {status}")]
    Status {
        /// The request.
        step: ProviderStep,
        /// The status.
        status: u16,
    },
    /// An answer past the size limit.
    #[error("the identity provider's {step} sent more than {limit} bytes")]
    TooLarge {
        /// The request.
        step: ProviderStep,
        /// The limit in bytes.
        limit: usize,
    },
    /// An answer that is not what the protocol says.
    #[error("the identity provider's {step} sent an invalid answer: {detail}")]
    Invalid {
        /// The request.
        step: ProviderStep,
        /// What was wrong.
        detail: String,
    },
    /// The metadata or the callback names another issuer.
    #[error("the identity provider says its issuer is {found:?}, not {expected:?}")]
    IssuerMismatch {
        /// The configured (or discovered) issuer.
        expected: String,
        /// What it said.
        found: String,
    },
    /// The provider lacks something the service requires.
    #[error("the identity provider does not support {0}, which the server requires")]
    Unsupported(&'static str),
    /// The token endpoint refused the code: used already, expired, or issued to another
    /// client or redirect URI (OAuth's `invalid_grant`), or the client credentials are wrong.
    #[error(
        "the identity provider refused the sign-in code ({error}{}); it may have been used already or have expired: start again",
        description.as_deref().map(|d| format!(": {d}")).unwrap_or_default()
    )]
    CodeRejected {
        /// The OAuth error code.
        error: String,
        /// The provider's explanation, if any.
        description: Option<String>,
    },
    /// The token endpoint answered without an ID token.
    #[error(
        "the identity provider's token endpoint sent no ID token (is the openid scope allowed?)"
    )]
    NoIdToken,
    /// The ID token's signature was not accepted.
    #[error(transparent)]
    Signature(#[from] SignatureError),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sso::IssuerAddresses;

    fn issuer() -> IssuerUrl {
        IssuerUrl::parse("https://id.example/tenant", IssuerAddresses::PublicOnly).unwrap()
    }

    fn document() -> DiscoveryDocument {
        DiscoveryDocument {
            issuer: Some("https://id.example/tenant".to_owned()),
            authorization_endpoint: Some("https://id.example/tenant/authorize".to_owned()),
            token_endpoint: Some("https://id.example/tenant/token".to_owned()),
            jwks_uri: Some("https://id.example/tenant/keys".to_owned()),
            ..DiscoveryDocument::default()
        }
    }

    #[test]
    fn a_minimal_document_takes_the_specifications_defaults() {
        let metadata = ProviderMetadata::from_discovery(&issuer(), document()).unwrap();
        assert_eq!(metadata.issuer, "https://id.example/tenant");
        assert_eq!(metadata.token_auth, TokenEndpointAuth::ClientSecretBasic);
        assert_eq!(metadata.signing_algorithms, ["RS256"]);
        assert!(!metadata.sends_issuer_in_response);
    }

    #[test]
    fn the_issuer_must_be_the_configured_one() {
        let mut doc = document();
        doc.issuer = Some("https://evil.example/tenant".to_owned());
        assert!(matches!(
            ProviderMetadata::from_discovery(&issuer(), doc),
            Err(ProviderError::IssuerMismatch { .. })
        ));
        let mut slash = document();
        slash.issuer = Some("https://id.example/tenant/".to_owned());
        let metadata = ProviderMetadata::from_discovery(&issuer(), slash).unwrap();
        assert_eq!(
            metadata.issuer, "https://id.example/tenant/",
            "the provider's spelling"
        );
    }

    #[test]
    fn endpoints_are_https_urls() {
        let mut doc = document();
        doc.token_endpoint = Some("http://id.example/tenant/token".to_owned());
        assert!(
            ProviderMetadata::from_discovery(&issuer(), doc)
                .unwrap_err()
                .to_string()
                .contains("token_endpoint is not an https URL")
        );
        let mut doc = document();
        doc.jwks_uri = None;
        assert!(
            ProviderMetadata::from_discovery(&issuer(), doc)
                .unwrap_err()
                .to_string()
                .contains("no jwks_uri")
        );
    }

    #[test]
    fn the_code_flow_s256_and_a_secret_method_are_required() {
        let strings = |v: &[&str]| Some(v.iter().map(|s| (*s).to_owned()).collect());
        let mut doc = document();
        doc.code_challenge_methods_supported = strings(&["plain"]);
        assert_eq!(
            ProviderMetadata::from_discovery(&issuer(), doc),
            Err(ProviderError::Unsupported("PKCE with S256"))
        );
        let mut doc = document();
        doc.response_types_supported = strings(&["id_token"]);
        assert!(ProviderMetadata::from_discovery(&issuer(), doc).is_err());
        let mut doc = document();
        doc.token_endpoint_auth_methods_supported =
            strings(&["private_key_jwt", "client_secret_post"]);
        assert_eq!(
            ProviderMetadata::from_discovery(&issuer(), doc)
                .unwrap()
                .token_auth,
            TokenEndpointAuth::ClientSecretPost
        );
        let mut doc = document();
        doc.token_endpoint_auth_methods_supported = strings(&["private_key_jwt"]);
        assert!(ProviderMetadata::from_discovery(&issuer(), doc).is_err());
    }
}
