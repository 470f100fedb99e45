//! Time-based one-time passwords (RFC 6238) as authenticator apps use them by default: HMAC-SHA-1, 6 digits, 30-second steps, a 20-byte secret shown as base32 and as an `otpauth://` URI for a QR code.
//!
//! Pure rules, no storage: the caller keeps the secret and the last step a code was accepted
//! for. [`TotpSecret::verify`] takes that step and answers the step it accepted, so replay
//! protection cannot be left out: a code is accepted at most once, and never one older than
//! the last accepted.

use std::fmt;

use chrono::{DateTime, Utc};
use hmac::{Hmac, KeyInit, Mac};
use sha1::Sha1;
use thiserror::Error;

use crate::random::{self, RandomError, constant_time_eq};

/// The secret's length: 160 bits, RFC 4226's recommendation (section 4, R6) and the HMAC-SHA-1
/// block's natural key size.
pub const SECRET_BYTES: usize = 20;

/// Seconds per step (RFC 6238's default, which every authenticator app assumes).
pub const STEP_SECONDS: i64 = 30;

/// Steps accepted either side of the current one: one (30 s) covers a phone's clock drift and
/// the seconds the user takes to type, as RFC 6238 section 5.2 recommends, while a guessed code
/// stays valid for at most 90 s.
pub const DRIFT_STEPS: u64 = 1;

/// The digits of a code: 6 (the default), 7 or 8, as RFC 4226 section 5.3 allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Digits {
    /// Six digits, what authenticator apps show.
    Six,
    /// Seven digits.
    Seven,
    /// Eight digits (RFC 6238's test vectors).
    Eight,
}

/// A TOTP secret: 20 random bytes. Its `Debug` never shows them.
#[derive(Clone, PartialEq, Eq)]
pub struct TotpSecret([u8; SECRET_BYTES]);

/// Why a base32 secret could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TotpSecretError {
    /// A character outside RFC 4648's base32 alphabet.
    #[error("a TOTP secret is base32: letters A to Z and digits 2 to 7")]
    NotBase32,
    /// Not 20 bytes.
    #[error("a TOTP secret is {SECRET_BYTES} bytes (32 base32 characters)")]
    WrongLength,
}

impl Digits {
    /// How many digits.
    pub fn count(self) -> usize {
        match self {
            Digits::Six => 6,
            Digits::Seven => 7,
            Digits::Eight => 8,
        }
    }

    /// 10 to the number of digits: what the truncated value is reduced modulo.
    fn modulus(self) -> u32 {
        match self {
            Digits::Six => 1_000_000,
            Digits::Seven => 10_000_000,
            Digits::Eight => 100_000_000,
        }
    }
}

/// HOTP (RFC 4226 section 5): the HMAC-SHA-1 of the big-endian `counter` under `key`,
/// dynamically truncated to 31 bits and reduced to `digits` decimal digits, zero-padded.
pub fn hotp(key: &[u8], counter: u64, digits: Digits) -> String {
    let mut mac =
        <Hmac<Sha1> as KeyInit>::new_from_slice(key).expect("HMAC takes keys of every length");
    mac.update(&counter.to_be_bytes());
    let hash = mac.finalize().into_bytes();
    // The low 4 bits of the last byte pick where the 31-bit value starts (0 to 15 of 20 bytes).
    let offset = usize::from(hash[hash.len() - 1] & 0x0f);
    let value = u32::from_be_bytes([
        hash[offset] & 0x7f,
        hash[offset + 1],
        hash[offset + 2],
        hash[offset + 3],
    ]);
    format!(
        "{:0width$}",
        value % digits.modulus(),
        width = digits.count()
    )
}

/// The step of an instant: whole 30-second periods since the Unix epoch; `None` before it.
pub fn step_at(now: DateTime<Utc>) -> Option<u64> {
    u64::try_from(now.timestamp().div_euclid(STEP_SECONDS)).ok()
}

impl TotpSecret {
    /// A new secret from the operating system's CSPRNG.
    pub fn generate() -> Result<Self, RandomError> {
        Ok(Self(random::bytes()?))
    }

    /// A stored secret.
    pub fn from_bytes(bytes: [u8; SECRET_BYTES]) -> Self {
        Self(bytes)
    }

    /// Reads a secret in base32 (as [`TotpSecret::to_base32`] writes it; case, spaces and
    /// padding are ignored, as people copy it).
    pub fn parse_base32(text: &str) -> Result<Self, TotpSecretError> {
        let mut bytes = Vec::with_capacity(SECRET_BYTES);
        let (mut buffer, mut bits) = (0u32, 0u32);
        for c in text.chars().filter(|c| !c.is_whitespace() && *c != '=') {
            let value = match c.to_ascii_uppercase() {
                c @ 'A'..='Z' => u32::from(c) - u32::from('A'),
                c @ '2'..='7' => u32::from(c) - u32::from('2') + 26,
                _ => return Err(TotpSecretError::NotBase32),
            };
            buffer = (buffer << 5) | value;
            bits += 5;
            if bits >= 8 {
                bits -= 8;
                // The low 8 bits after the shift: the next whole byte.
                bytes.push(((buffer >> bits) & 0xff) as u8);
            }
        }
        bytes
            .try_into()
            .map(Self)
            .map_err(|_| TotpSecretError::WrongLength)
    }

    /// The secret's bytes, for the caller's store.
    pub fn expose_bytes(&self) -> &[u8; SECRET_BYTES] {
        &self.0
    }

    /// The secret in RFC 4648 base32 without padding (32 characters for 20 bytes), as people
    /// type it into an authenticator app that cannot scan.
    pub fn to_base32(&self) -> String {
        const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
        let mut out = String::with_capacity(SECRET_BYTES * 8 / 5);
        let (mut buffer, mut bits) = (0u32, 0u32);
        for byte in self.0 {
            buffer = (buffer << 8) | u32::from(byte);
            bits += 8;
            while bits >= 5 {
                bits -= 5;
                out.push(char::from(ALPHABET[((buffer >> bits) & 31) as usize]));
            }
        }
        if bits > 0 {
            out.push(char::from(ALPHABET[((buffer << (5 - bits)) & 31) as usize]));
        }
        out
    }

    /// The key URI authenticator apps scan (Google Authenticator's "Key Uri Format"):
    /// `otpauth://totp/{issuer}:{account}?secret=…&issuer=…&algorithm=SHA1&digits=6&period=30`,
    /// the issuer and the account percent-encoded (spaces as `%20`, as the format asks).
    pub fn otpauth_uri(&self, issuer: &str, account: &str) -> String {
        let issuer = percent_encoded(issuer);
        format!(
            "otpauth://totp/{issuer}:{}?secret={}&issuer={issuer}&algorithm=SHA1&digits=6&period={STEP_SECONDS}",
            percent_encoded(account),
            self.to_base32(),
        )
    }

    /// The 6-digit code of a step.
    pub fn code_at_step(&self, step: u64) -> String {
        hotp(&self.0, step, Digits::Six)
    }

    /// Checks a typed code at `now` against the current step and one either side, skipping
    /// every step up to `last_used_step` (the step of the last code accepted for this secret,
    /// kept by the caller). Answers the step matched, which the caller must store as the new
    /// last used step; `None` for a wrong, malformed, replayed or expired code. Spaces in the
    /// code are ignored (apps show `123 456`).
    pub fn verify(
        &self,
        code: &str,
        now: DateTime<Utc>,
        last_used_step: Option<u64>,
    ) -> Option<u64> {
        let typed: String = code.chars().filter(|c| !c.is_whitespace()).collect();
        if typed.len() != Digits::Six.count() || !typed.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let current = step_at(now)?;
        let earliest = current.saturating_sub(DRIFT_STEPS);
        let earliest = match last_used_step {
            Some(used) => earliest.max(used.checked_add(1)?),
            None => earliest,
        };
        // Every candidate is computed and compared, so the time taken does not say which matched.
        let mut matched = None;
        for step in earliest..=current.saturating_add(DRIFT_STEPS) {
            if constant_time_eq(self.code_at_step(step).as_bytes(), typed.as_bytes())
                && matched.is_none()
            {
                matched = Some(step);
            }
        }
        matched
    }
}

/// RFC 3986 percent-encoding of everything but the unreserved characters, for a URI's path
/// label and query values alike.
fn percent_encoded(text: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 15)]));
        }
    }
    out
}

impl fmt::Debug for TotpSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TotpSecret(…)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(seconds, 0).unwrap()
    }

    /// RFC 6238 Appendix B, the SHA-1 rows: the 20-byte ASCII key "12345678901234567890",
    /// 8-digit codes.
    #[test]
    fn rfc_6238_sha1_test_vectors() {
        let key = b"12345678901234567890";
        for (time, code) in [
            (59, "94287082"),
            (1_111_111_109, "07081804"),
            (1_111_111_111, "14050471"),
            (1_234_567_890, "89005924"),
            (2_000_000_000, "69279037"),
            (20_000_000_000, "65353130"),
        ] {
            let step = step_at(at(time)).unwrap();
            assert_eq!(hotp(key, step, Digits::Eight), code, "T = {time}");
        }
    }

    /// RFC 4226 Appendix D: the same key, counters 0 to 9, 6 digits.
    #[test]
    fn rfc_4226_hotp_test_vectors() {
        let expected = [
            "755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583",
            "399871", "520489",
        ];
        for (counter, code) in (0u64..).zip(expected) {
            assert_eq!(hotp(b"12345678901234567890", counter, Digits::Six), code);
        }
    }

    #[test]
    fn six_digit_defaults_accept_one_step_either_side_once() {
        let secret = TotpSecret::from_bytes(*b"12345678901234567890");
        // RFC 6238's T = 59 is step 1; its 6-digit code is the last six of 94287082.
        assert_eq!(secret.code_at_step(1), "287082");
        let now = at(1_111_111_109);
        let step = step_at(now).unwrap();
        assert_eq!(step, 37_037_036);
        assert_eq!(secret.code_at_step(step), "081804");
        assert_eq!(secret.verify("081804", now, None), Some(step));
        assert_eq!(secret.verify(" 081 804 ", now, None), Some(step));
        // One step of drift either way, not two.
        let before = secret.code_at_step(step - 1);
        let after = secret.code_at_step(step + 1);
        assert_eq!(secret.verify(&before, now, None), Some(step - 1));
        assert_eq!(secret.verify(&after, now, None), Some(step + 1));
        assert_eq!(
            secret.verify(&secret.code_at_step(step - 2), now, None),
            None
        );
        assert_eq!(
            secret.verify(&secret.code_at_step(step + 2), now, None),
            None
        );
        // A used step, and every step before it, is refused: no replay, no going back.
        assert_eq!(secret.verify("081804", now, Some(step)), None);
        assert_eq!(secret.verify(&before, now, Some(step)), None);
        assert_eq!(secret.verify(&after, now, Some(step)), Some(step + 1));
        assert_eq!(secret.verify(&after, now, Some(step + 1)), None);
        // Malformed codes.
        for bad in ["", "08180", "0818045", "08180a", "０８１８０４"] {
            assert_eq!(secret.verify(bad, now, None), None, "{bad:?}");
        }
        assert_eq!(secret.verify("081804", at(-30), None), None);
    }

    #[test]
    fn secrets_are_random_base32_and_never_shown_by_debug() {
        let a = TotpSecret::generate().unwrap();
        let b = TotpSecret::generate().unwrap();
        assert_ne!(a, b);
        let text = a.to_base32();
        assert_eq!(text.len(), 32);
        assert!(
            text.bytes()
                .all(|c| c.is_ascii_uppercase() || (b'2'..=b'7').contains(&c))
        );
        assert_eq!(TotpSecret::parse_base32(&text), Ok(a.clone()));
        assert_eq!(
            TotpSecret::parse_base32(&text.to_lowercase().replace("", " ")),
            Ok(a.clone())
        );
        assert_eq!(format!("{a:?}"), "TotpSecret(…)");
        assert!(!format!("{a:?}").contains(&text));
        // RFC 4648 section 10's vector, and the RFC 6238 key.
        let rfc = TotpSecret::from_bytes(*b"12345678901234567890");
        assert_eq!(rfc.to_base32(), "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
        assert_eq!(
            TotpSecret::parse_base32("GEZDGNBVGY3TQOJQ"),
            Err(TotpSecretError::WrongLength)
        );
        assert_eq!(
            TotpSecret::parse_base32("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJ1"),
            Err(TotpSecretError::NotBase32)
        );
    }

    #[test]
    fn the_key_uri_is_percent_encoded() {
        let secret = TotpSecret::from_bytes(*b"12345678901234567890");
        assert_eq!(
            secret.otpauth_uri("QR Platform", "ann+codes@example.com"),
            "otpauth://totp/QR%20Platform:ann%2Bcodes%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=QR%20Platform&algorithm=SHA1&digits=6&period=30"
        );
        assert_eq!(
            secret.otpauth_uri("Acme & Co: QR", "zoë@example.com"),
            "otpauth://totp/Acme%20%26%20Co%3A%20QR:zo%C3%AB%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Acme%20%26%20Co%3A%20QR&algorithm=SHA1&digits=6&period=30"
        );
    }
}
