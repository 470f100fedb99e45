//! The ID token's signature: the provider's key set (JWKS) read leniently (keys this crate cannot use are skipped, not fatal), the key picked by the token's `kid`, the algorithm checked against those accepted and the provider's own list, the signature verified with jsonwebtoken, and the payload read into qr-domain's claims.

use std::fmt;

use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use qr_domain::chrono::{DateTime, Utc};
use qr_domain::sso::{IdTokenClaims, ProviderError, ProviderStep, SignatureError};
use serde_json::Value;

/// Longest ID token accepted: Entra ID's with group claims reach about 8 KB; 64 KiB bounds it.
pub const MAX_ID_TOKEN_BYTES: usize = 64 * 1024;

/// Most keys read from a key set: providers publish 2 to 5 (the current and next keys).
const MAX_KEYS: usize = 50;

/// The signature algorithms accepted: the asymmetric ones OpenID providers use. Never `none`,
/// and never the HMAC family, whose key would be the client secret (a secret shared with
/// whoever configured it is not a provider's signature).
const ACCEPTED: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// An ID token as the token endpoint returned it (a compact JWS), not yet verified. `Debug`
/// shows its length only: it is a bearer credential until it expires.
#[derive(Clone, PartialEq, Eq)]
pub struct RawIdToken(String);

impl RawIdToken {
    /// Wraps a token, refusing one longer than [`MAX_ID_TOKEN_BYTES`].
    pub fn new(token: String) -> Result<Self, SignatureError> {
        if token.len() > MAX_ID_TOKEN_BYTES {
            return Err(SignatureError::Malformed(format!(
                "longer than {MAX_ID_TOKEN_BYTES} bytes"
            )));
        }
        Ok(Self(token))
    }

    /// The compact serialisation.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for RawIdToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawIdToken(<{} bytes>)", self.0.len())
    }
}

/// The provider's signing keys, as published at its `jwks_uri`.
#[derive(Debug, Clone)]
pub struct KeySet {
    keys: Vec<Jwk>,
}

impl KeySet {
    /// Reads a JWKS document. Keys that do not parse (unknown types, encryption keys of
    /// algorithms jsonwebtoken lacks) are skipped; a document that is not a key set is refused.
    pub fn parse(json: &[u8]) -> Result<Self, ProviderError> {
        let invalid = |detail: &str| ProviderError::Invalid {
            step: ProviderStep::Keys,
            detail: detail.to_owned(),
        };
        let document: Value =
            serde_json::from_slice(json).map_err(|_| invalid("the key set is not JSON"))?;
        let entries = document
            .get("keys")
            .and_then(Value::as_array)
            .ok_or_else(|| invalid("the key set has no keys array"))?;
        let keys = entries
            .iter()
            .take(MAX_KEYS)
            .filter_map(|entry| serde_json::from_value::<Jwk>(entry.clone()).ok())
            .filter(|jwk| !matches!(jwk.common.public_key_use, Some(PublicKeyUse::Encryption)))
            // Public keys only: a symmetric (`oct`) key or an unknown type never verifies here.
            .filter(|jwk| {
                matches!(
                    jwk.algorithm,
                    AlgorithmParameters::RSA(_)
                        | AlgorithmParameters::EllipticCurve(_)
                        | AlgorithmParameters::OctetKeyPair(_)
                )
            })
            .collect();
        Ok(Self { keys })
    }

    /// How many usable keys it holds.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether it holds no usable key.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The key for a token signed with `algorithm`: the one with its `kid`, or without a `kid`
    /// the only key of the algorithm's family.
    fn key_for(&self, kid: Option<&str>, algorithm: Algorithm) -> Option<&Jwk> {
        let fits = |jwk: &&Jwk| family_fits(jwk, algorithm);
        match kid {
            Some(kid) => self
                .keys
                .iter()
                .filter(fits)
                .find(|jwk| jwk.common.key_id.as_deref() == Some(kid)),
            None => {
                let mut candidates = self.keys.iter().filter(fits);
                let only = candidates.next()?;
                candidates.next().is_none().then_some(only)
            }
        }
    }
}

/// Whether a key is of the algorithm's family (RSA for RS/PS, a curve for ES, OKP for EdDSA).
fn family_fits(jwk: &Jwk, algorithm: Algorithm) -> bool {
    use Algorithm as A;
    match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => matches!(
            algorithm,
            A::RS256 | A::RS384 | A::RS512 | A::PS256 | A::PS384 | A::PS512
        ),
        AlgorithmParameters::EllipticCurve(_) => matches!(algorithm, A::ES256 | A::ES384),
        AlgorithmParameters::OctetKeyPair(_) => algorithm == A::EdDSA,
        _ => false,
    }
}

/// Verifies `token`'s signature with the key of its `kid` among `keys`, its algorithm one of
/// RS256/384/512, PS256/384/512, ES256/384 or EdDSA and one of the provider's
/// `signing_algorithms`, and reads its claims. The claims are not judged here
/// ([`qr_domain::sso::check_claims`] does that).
pub fn verify_signature(
    token: &RawIdToken,
    keys: &KeySet,
    signing_algorithms: &[String],
) -> Result<IdTokenClaims, ProviderError> {
    let header = jsonwebtoken::decode_header(token.as_str()).map_err(|e| {
        // jsonwebtoken refuses `none` (and names it) while reading the header.
        let text = header_algorithm(token.as_str()).unwrap_or_default();
        if matches!(e.kind(), jsonwebtoken::errors::ErrorKind::Json(_)) && !text.is_empty() {
            SignatureError::AlgorithmNotAccepted(text)
        } else {
            SignatureError::Malformed(e.to_string())
        }
    })?;
    // RFC 7515 §4.1.11: a `crit` header lists extensions the recipient must understand; this
    // client understands none, so such a token is refused rather than read as if they were not
    // there (jsonwebtoken 12 refuses them itself; 11, which this crate uses, reads past them).
    if let Some(critical) = header.crit.as_ref() {
        return Err(SignatureError::Malformed(format!(
            "the token requires header extensions this client does not implement: {}",
            critical.join(", ")
        ))
        .into());
    }
    let algorithm = header.alg;
    let name = format!("{algorithm:?}");
    if !ACCEPTED.contains(&algorithm) || !signing_algorithms.contains(&name) {
        return Err(SignatureError::AlgorithmNotAccepted(name).into());
    }
    let jwk = keys
        .key_for(header.kid.as_deref(), algorithm)
        .ok_or_else(|| SignatureError::UnknownKey(header.kid.clone()))?;
    if jwk
        .common
        .key_algorithm
        .is_some_and(|key_alg| format!("{key_alg:?}") != name)
    {
        return Err(SignatureError::UnknownKey(header.kid.clone()).into());
    }
    let key = DecodingKey::from_jwk(jwk)
        .map_err(|e| SignatureError::Malformed(format!("the provider's key: {e}")))?;
    let mut validation = Validation::new(algorithm);
    // Only the signature here: the claim rules are qr-domain's, with their own messages.
    validation.validate_exp = false;
    validation.validate_nbf = false;
    validation.validate_aud = false;
    validation.required_spec_claims.clear();
    let data = jsonwebtoken::decode::<Value>(token.as_str(), &key, &validation).map_err(|e| {
        use jsonwebtoken::errors::ErrorKind as K;
        match e.kind() {
            K::InvalidSignature | K::InvalidEcdsaKey | K::InvalidRsaKey(_) => {
                SignatureError::Invalid
            }
            _ => SignatureError::Malformed(e.to_string()),
        }
    })?;
    claims(&data.claims)
}

/// The `alg` of a token's header as written, for the message about an unaccepted one.
fn header_algorithm(token: &str) -> Option<String> {
    use base64::Engine as _;
    let header = token.split('.').next()?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(header)
        .ok()?;
    let value: Value = serde_json::from_slice(&bytes).ok()?;
    Some(value.get("alg")?.as_str()?.to_owned())
}

/// The payload read into qr-domain's claims: `iss`, `sub`, `aud`, `exp` and `iat` required
/// (OpenID Connect Core §2); `aud` one string or several; `exp` and `iat` whole or fractional
/// seconds; `email_verified` a boolean or, as some providers send it, the string `"true"`.
fn claims(payload: &Value) -> Result<IdTokenClaims, ProviderError> {
    let invalid = |detail: String| ProviderError::Invalid {
        step: ProviderStep::Token,
        detail: format!("the ID token's claims: {detail}"),
    };
    let text = |name: &str| payload.get(name).and_then(Value::as_str).map(str::to_owned);
    let required = |name: &str| text(name).ok_or_else(|| invalid(format!("no {name}")));
    let time = |name: &str| -> Result<DateTime<Utc>, ProviderError> {
        payload
            .get(name)
            .and_then(Value::as_f64)
            .filter(|seconds| seconds.is_finite())
            // Seconds past the range chrono can hold are no real time.
            .and_then(|seconds| DateTime::from_timestamp(seconds.floor() as i64, 0))
            .ok_or_else(|| invalid(format!("{name} is not a time")))
    };
    let audiences = match payload.get("aud") {
        Some(Value::String(one)) => vec![one.clone()],
        Some(Value::Array(many)) => many
            .iter()
            .map(|aud| aud.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| invalid("aud holds a non-string".to_owned()))?,
        _ => return Err(invalid("no aud".to_owned())),
    };
    let email_verified = match payload.get("email_verified") {
        Some(Value::Bool(verified)) => Some(*verified),
        Some(Value::String(verified)) => Some(verified == "true"),
        _ => None,
    };
    Ok(IdTokenClaims {
        issuer: required("iss")?,
        audiences,
        authorized_party: text("azp"),
        subject: required("sub")?,
        expires_at: time("exp")?,
        issued_at: time("iat")?,
        nonce: text("nonce"),
        email: text("email"),
        email_verified,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn claims_accept_the_shapes_providers_send() {
        let claims = claims(&json!({
            "iss": "https://id.example", "sub": "s", "aud": ["a", "b"], "azp": "a",
            "exp": 1_800_000_300.5, "iat": 1_800_000_000, "nonce": "n",
            "email": "e@example.com", "email_verified": "true"
        }))
        .unwrap();
        assert_eq!(claims.audiences, ["a", "b"]);
        assert_eq!(claims.authorized_party.as_deref(), Some("a"));
        assert_eq!(claims.expires_at.timestamp(), 1_800_000_300);
        assert_eq!(claims.email_verified, Some(true));
    }

    #[test]
    fn required_claims_are_required() {
        let base = json!({"iss": "i", "sub": "s", "aud": "a", "exp": 1, "iat": 1});
        assert!(claims(&base).is_ok());
        for missing in ["iss", "sub", "aud", "exp", "iat"] {
            let mut payload = base.clone();
            payload.as_object_mut().unwrap().remove(missing);
            let error = claims(&payload).unwrap_err().to_string();
            assert!(error.contains(missing), "{missing}: {error}");
        }
        let mut huge = base.clone();
        huge["exp"] = json!(1e300);
        assert!(claims(&huge).is_err());
        let mut numeric_aud = base;
        numeric_aud["aud"] = json!([1]);
        assert!(claims(&numeric_aud).is_err());
    }

    #[test]
    fn key_sets_skip_what_they_cannot_use() {
        let set = KeySet::parse(
            br#"{"keys": [
                {"kty": "RSA", "kid": "r", "n": "sXch", "e": "AQAB", "use": "sig"},
                {"kty": "RSA", "kid": "enc", "n": "sXch", "e": "AQAB", "use": "enc"},
                {"kty": "weird", "kid": "w"},
                {"kty": "oct", "kid": "o", "k": "c2VjcmV0"}
            ]}"#,
        )
        .unwrap();
        assert_eq!(set.len(), 1);
        assert!(set.key_for(Some("r"), Algorithm::RS256).is_some());
        assert!(
            set.key_for(Some("r"), Algorithm::ES256).is_none(),
            "wrong family"
        );
        assert!(
            set.key_for(None, Algorithm::RS256).is_some(),
            "the only RSA key"
        );
        assert!(set.key_for(Some("enc"), Algorithm::RS256).is_none());
        assert!(KeySet::parse(b"[]").is_err());
        assert!(KeySet::parse(b"not json").is_err());
    }

    #[test]
    fn tokens_with_critical_header_extensions_are_refused() {
        use base64::Engine as _;
        let b64 = |v: serde_json::Value| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string())
        };
        let keys =
            KeySet::parse(br#"{"keys": [{"kty": "RSA", "kid": "r", "n": "sXch", "e": "AQAB"}]}"#)
                .unwrap();
        let token = |header: serde_json::Value| {
            let payload = b64(json!({"iss": "i", "sub": "s", "aud": "a", "exp": 1, "iat": 1}));
            RawIdToken::new(format!("{}.{payload}.c2ln", b64(header))).unwrap()
        };
        let algorithms = ["RS256".to_owned()];
        let critical = token(json!({"alg": "RS256", "kid": "r", "crit": ["b64"], "b64": false}));
        let error = verify_signature(&critical, &keys, &algorithms)
            .unwrap_err()
            .to_string();
        assert!(error.contains("header extensions"), "{error}");
        // Without `crit` the same token gets as far as its (bad) signature.
        let plain = token(json!({"alg": "RS256", "kid": "r"}));
        let error = verify_signature(&plain, &keys, &algorithms)
            .unwrap_err()
            .to_string();
        assert!(!error.contains("header extensions"), "{error}");
    }

    #[test]
    fn raw_tokens_are_bounded_and_never_shown() {
        assert!(RawIdToken::new("a".repeat(MAX_ID_TOKEN_BYTES + 1)).is_err());
        let token = RawIdToken::new("secret.token.value".to_owned()).unwrap();
        assert_eq!(format!("{token:?}"), "RawIdToken(<18 bytes>)");
    }
}
