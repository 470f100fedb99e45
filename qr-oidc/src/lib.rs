//! The OpenID Connect client behind qr-domain's single sign-on seam ([`IdentityProvider`]): discovery, the provider's key set, the token request with the PKCE verifier, and the ID token's signature; every rule about what is accepted stays in `qr_domain::sso`.
//!
//! Network: every request goes through `fetch.rs`: `http` or `https` only, the host's addresses
//! checked before connecting (public only, unless [`OidcConfig::addresses`] is
//! [`IssuerAddresses::Any`], as tests and private deployments set, like the webhook deliverer's
//! `allow_private`), no redirects followed, each request cut at [`OidcConfig::timeout`] (5 s
//! by default) and each answer at a size limit ([`MAX_DOCUMENT_BYTES`]).
//!
//! Threads: hyper is asynchronous and the dashboard calls the seam from its blocking pool, so an
//! [`OidcClient`] owns a runtime of its own with one worker thread, as qr-dns's client does: a
//! call spawns its requests there and waits on a channel. It never calls `block_on`, so it
//! cannot collide with a caller's runtime, and dropping it anywhere shuts the runtime down in
//! the background.
//!
//! Keys: the key set is fetched for every code exchange, never cached. Sign-ins are rare (one a
//! person a session), and a fresh set means a provider's key rotation is never missed.

mod fetch;
mod id_token;

use std::fmt;
use std::future::Future;
use std::sync::{Arc, mpsc};
use std::time::Duration;

use base64::Engine as _;
use qr_domain::sso::{
    AuthorizationCode, DiscoveryDocument, IdTokenClaims, IdentityProvider, IssuerAddresses,
    IssuerUrl, PkceVerifier, ProviderError, ProviderMetadata, ProviderStep, RedirectUri,
    SsoSettings, TokenEndpointAuth,
};
use serde::Deserialize;
use url::form_urlencoded;

use fetch::{Answer, Fetcher, Outgoing};
pub use id_token::{KeySet, MAX_ID_TOKEN_BYTES, RawIdToken, verify_signature};

/// Most bytes read of a discovery document, key set or token response: real ones are 1 to
/// 20 KB (Entra ID's key set with certificates is the large one); 256 KiB bounds them.
pub const MAX_DOCUMENT_BYTES: usize = 256 * 1024;

/// How the client connects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OidcConfig {
    /// Which addresses it connects to: public ones only (the default), or any.
    pub addresses: IssuerAddresses,
    /// The time limit of each request, connecting and reading included (5 s by default: a
    /// provider that takes longer leaves a person staring at a blank page).
    pub timeout: Duration,
}

impl Default for OidcConfig {
    fn default() -> Self {
        Self {
            addresses: IssuerAddresses::PublicOnly,
            timeout: Duration::from_secs(5),
        }
    }
}

/// The OpenID Connect client (see the crate documentation for its threads and limits).
pub struct OidcClient {
    fetcher: Arc<Fetcher>,
    /// `Some` until dropped; taken by `Drop` to shut it down without blocking.
    runtime: Option<tokio::runtime::Runtime>,
    config: OidcConfig,
}

impl OidcClient {
    /// A client with `config`.
    pub fn new(config: OidcConfig) -> std::io::Result<OidcClient> {
        // One worker: a sign-in makes three requests, one after the other.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("qr-oidc")
            .enable_io()
            .enable_time()
            .build()?;
        Ok(OidcClient {
            fetcher: Arc::new(Fetcher::new(config.addresses, config.timeout)?),
            runtime: Some(runtime),
            config,
        })
    }

    /// The provider's key set, read from its `jwks_uri`.
    pub fn fetch_keys(&self, metadata: &ProviderMetadata) -> Result<KeySet, ProviderError> {
        let answer = self.fetch(ProviderStep::Keys, metadata.jwks_uri.clone(), None, None)?;
        KeySet::parse(&success(ProviderStep::Keys, answer)?)
    }

    /// Redeems `code` at the token endpoint and returns the ID token, unverified: the request
    /// carries the verifier and redirect URI, authenticated with the client secret as the
    /// metadata chose (Basic: id and secret form-encoded first, RFC 6749 §2.3.1). An OAuth
    /// error answer (a code used twice, expired, or the wrong client) is
    /// [`ProviderError::CodeRejected`].
    pub fn redeem_code(
        &self,
        metadata: &ProviderMetadata,
        settings: &SsoSettings,
        code: &AuthorizationCode,
        verifier: &PkceVerifier,
        redirect_uri: &RedirectUri,
    ) -> Result<RawIdToken, ProviderError> {
        let client_id = settings.client_id.as_str();
        let secret = settings.client_secret.reveal_to_provider();
        let mut form = form_urlencoded::Serializer::new(String::new());
        form.append_pair("grant_type", "authorization_code")
            .append_pair("code", code.as_str())
            .append_pair("redirect_uri", redirect_uri.as_str())
            .append_pair("code_verifier", verifier.as_str());
        let authorization = match metadata.token_auth {
            TokenEndpointAuth::ClientSecretBasic => {
                let encode =
                    |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
                let pair = format!("{}:{}", encode(client_id), encode(secret));
                Some(format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode(pair)
                ))
            }
            TokenEndpointAuth::ClientSecretPost => {
                form.append_pair("client_id", client_id)
                    .append_pair("client_secret", secret);
                None
            }
        };
        let answer = self.fetch(
            ProviderStep::Token,
            metadata.token_endpoint.clone(),
            Some(form.finish()),
            authorization,
        )?;
        token_response(answer)
    }

    /// Verifies a raw ID token's signature with the provider's current key set (fetched now) and
    /// returns its claims, unjudged.
    pub fn verify_id_token(
        &self,
        metadata: &ProviderMetadata,
        token: &RawIdToken,
    ) -> Result<IdTokenClaims, ProviderError> {
        let keys = self.fetch_keys(metadata)?;
        verify_signature(token, &keys, &metadata.signing_algorithms)
    }

    /// One request on the client's runtime, waited for.
    fn fetch(
        &self,
        step: ProviderStep,
        url: String,
        form: Option<String>,
        authorization: Option<String>,
    ) -> Result<Answer, ProviderError> {
        let fetcher = Arc::clone(&self.fetcher);
        self.run(step, async move {
            fetcher
                .fetch(Outgoing {
                    step,
                    url: &url,
                    form,
                    authorization,
                    max_bytes: MAX_DOCUMENT_BYTES,
                })
                .await
        })
    }

    /// Runs `request` on the client's runtime and waits for its answer (the request is cut at
    /// the timeout there; a second's grace covers a busy worker).
    fn run<T, F>(&self, step: ProviderStep, request: F) -> Result<T, ProviderError>
    where
        T: Send + 'static,
        F: Future<Output = Result<T, ProviderError>> + Send + 'static,
    {
        let stopped = || ProviderError::Unreachable {
            step,
            detail: "the OpenID client stopped".to_owned(),
        };
        let Some(runtime) = &self.runtime else {
            return Err(stopped());
        };
        let (sender, receiver) = mpsc::sync_channel(1);
        runtime.spawn(async move {
            // The caller may have given up (below); then nobody needs the answer.
            let _ = sender.send(request.await);
        });
        let limit = self.config.timeout + Duration::from_secs(1);
        match receiver.recv_timeout(limit) {
            Ok(answer) => answer,
            Err(mpsc::RecvTimeoutError::Timeout) => Err(ProviderError::Timeout {
                step,
                seconds: self.config.timeout.as_secs().max(1),
            }),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(stopped()),
        }
    }
}

impl IdentityProvider for OidcClient {
    fn discover(&self, issuer: &IssuerUrl) -> Result<ProviderMetadata, ProviderError> {
        let answer = self.fetch(ProviderStep::Discovery, issuer.discovery_url(), None, None)?;
        let body = success(ProviderStep::Discovery, answer)?;
        ProviderMetadata::from_discovery(issuer, discovery_document(&body)?)
    }

    fn exchange_code(
        &self,
        metadata: &ProviderMetadata,
        settings: &SsoSettings,
        code: &AuthorizationCode,
        verifier: &PkceVerifier,
        redirect_uri: &RedirectUri,
    ) -> Result<IdTokenClaims, ProviderError> {
        let token = self.redeem_code(metadata, settings, code, verifier, redirect_uri)?;
        self.verify_id_token(metadata, &token)
    }
}

impl fmt::Debug for OidcClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OidcClient")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Drop for OidcClient {
    fn drop(&mut self) {
        // `Runtime`'s own drop waits for its worker, which panics on an async worker thread; the
        // background shutdown does not wait.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// The body of a 200 answer; another status is [`ProviderError::Status`] (redirects included:
/// none is followed).
fn success(step: ProviderStep, answer: Answer) -> Result<Vec<u8>, ProviderError> {
    if answer.status == 200 {
        Ok(answer.body.to_vec())
    } else {
        Err(ProviderError::Status {
            step,
            status: answer.status,
        })
    }
}

/// The discovery document's fields this client reads.
#[derive(Deserialize)]
struct DiscoveryJson {
    issuer: Option<String>,
    authorization_endpoint: Option<String>,
    token_endpoint: Option<String>,
    jwks_uri: Option<String>,
    response_types_supported: Option<Vec<String>>,
    code_challenge_methods_supported: Option<Vec<String>>,
    token_endpoint_auth_methods_supported: Option<Vec<String>>,
    id_token_signing_alg_values_supported: Option<Vec<String>>,
    authorization_response_iss_parameter_supported: Option<bool>,
}

fn discovery_document(body: &[u8]) -> Result<DiscoveryDocument, ProviderError> {
    let json: DiscoveryJson = serde_json::from_slice(body).map_err(|e| ProviderError::Invalid {
        step: ProviderStep::Discovery,
        detail: format!("not a discovery document: {e}"),
    })?;
    Ok(DiscoveryDocument {
        issuer: json.issuer,
        authorization_endpoint: json.authorization_endpoint,
        token_endpoint: json.token_endpoint,
        jwks_uri: json.jwks_uri,
        response_types_supported: json.response_types_supported,
        code_challenge_methods_supported: json.code_challenge_methods_supported,
        token_endpoint_auth_methods_supported: json.token_endpoint_auth_methods_supported,
        id_token_signing_alg_values_supported: json.id_token_signing_alg_values_supported,
        authorization_response_iss_parameter_supported: json
            .authorization_response_iss_parameter_supported,
    })
}

/// A token endpoint answer (RFC 6749 §5.1 and §5.2): the ID token of a success, or the OAuth
/// error of a 400 or 401.
#[derive(Deserialize)]
struct TokenJson {
    id_token: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

fn token_response(answer: Answer) -> Result<RawIdToken, ProviderError> {
    let json: Option<TokenJson> = serde_json::from_slice(&answer.body).ok();
    match (answer.status, json) {
        (
            200,
            Some(TokenJson {
                id_token: Some(token),
                ..
            }),
        ) => Ok(RawIdToken::new(token)?),
        (200, Some(_)) => Err(ProviderError::NoIdToken),
        (
            400 | 401,
            Some(TokenJson {
                error: Some(error),
                error_description,
                ..
            }),
        ) => Err(ProviderError::CodeRejected {
            error: printable(&error, 64),
            description: error_description.map(|d| printable(&d, 300)),
        }),
        (200, None) => Err(ProviderError::Invalid {
            step: ProviderStep::Token,
            detail: "the token response is not JSON".to_owned(),
        }),
        (status, _) => Err(ProviderError::Status {
            step: ProviderStep::Token,
            status,
        }),
    }
}

/// A provider's text made safe to show: control characters dropped, at most `max` characters.
fn printable(text: &str, max: usize) -> String {
    text.chars().filter(|c| !c.is_control()).take(max).collect()
}
