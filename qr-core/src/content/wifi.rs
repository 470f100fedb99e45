//! Wi-Fi network payloads (`WIFI:T:WPA;S:...;P:...;H:true;;`), the format Android and iOS cameras join networks from.

use std::fmt;

use super::ContentError;
use super::text::{MECARD_SPECIALS, escape_into};

/// How a network is secured, with the key it needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WifiSecurity {
    /// WPA, WPA2 or WPA3 personal with a passphrase (`T:WPA`).
    Wpa(String),
    /// WEP with a key (`T:WEP`).
    Wep(String),
    /// An open network (`T:nopass`).
    Open,
}

impl WifiSecurity {
    /// WPA with `passphrase`: 8 to 63 printable ASCII characters, or 64 hexadecimal digits (the
    /// pre-shared key itself), as IEEE 802.11 section 12.7.1.3 allows.
    pub fn wpa(passphrase: &str) -> Result<WifiSecurity, ContentError> {
        const FIELD: &str = "WPA passphrase";
        printable_ascii(FIELD, passphrase)?;
        let length = passphrase.len();
        let hex_key = length == 64 && passphrase.chars().all(|c| c.is_ascii_hexdigit());
        if length < 8 {
            return Err(ContentError::TooShort {
                field: FIELD,
                min: 8,
                length,
                unit: "characters",
            });
        }
        if length > 63 && !hex_key {
            return Err(ContentError::TooLong {
                field: FIELD,
                max: 63,
                length,
                unit: "characters",
            });
        }
        Ok(WifiSecurity::Wpa(passphrase.to_owned()))
    }

    /// WEP with `key`: 5 or 13 ASCII characters, or 10 or 26 hexadecimal digits (40- and
    /// 104-bit keys).
    pub fn wep(key: &str) -> Result<WifiSecurity, ContentError> {
        const FIELD: &str = "WEP key";
        printable_ascii(FIELD, key)?;
        let hex = key.chars().all(|c| c.is_ascii_hexdigit());
        match key.len() {
            5 | 13 => Ok(WifiSecurity::Wep(key.to_owned())),
            10 | 26 if hex => Ok(WifiSecurity::Wep(key.to_owned())),
            _ => Err(ContentError::InvalidFormat {
                field: FIELD,
                expected: "5 or 13 characters, or 10 or 26 hexadecimal digits",
            }),
        }
    }

    /// The `T:` value.
    fn kind(&self) -> &'static str {
        match self {
            WifiSecurity::Wpa(_) => "WPA",
            WifiSecurity::Wep(_) => "WEP",
            WifiSecurity::Open => "nopass",
        }
    }
}

fn printable_ascii(field: &'static str, value: &str) -> Result<(), ContentError> {
    if value.is_empty() {
        return Err(ContentError::Empty { field });
    }
    match value.chars().find(|c| !(' '..='~').contains(c)) {
        Some(character) => Err(ContentError::InvalidCharacter { field, character }),
        None => Ok(()),
    }
}

/// A Wi-Fi network to join: SSID, security and whether the network hides its SSID.
///
/// The payload follows the ZXing "WIFI:" format that phone cameras read: `T` (security), `S`
/// (SSID), `P` (key, absent for open networks) and `H:true` for a hidden network, with `\`, `;`,
/// `,`, `:` and `"` escaped by a backslash in the SSID and key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WifiNetwork {
    ssid: String,
    security: WifiSecurity,
    hidden: bool,
}

impl WifiNetwork {
    /// A visible network `ssid` (1 to 32 bytes, IEEE 802.11's limit, no control characters).
    pub fn new(ssid: &str, security: WifiSecurity) -> Result<WifiNetwork, ContentError> {
        const FIELD: &str = "SSID";
        if ssid.is_empty() {
            return Err(ContentError::Empty { field: FIELD });
        }
        if ssid.len() > 32 {
            return Err(ContentError::TooLong {
                field: FIELD,
                max: 32,
                length: ssid.len(),
                unit: "bytes",
            });
        }
        if let Some(character) = ssid.chars().find(|c| c.is_control()) {
            return Err(ContentError::InvalidCharacter {
                field: FIELD,
                character,
            });
        }
        Ok(WifiNetwork {
            ssid: ssid.to_owned(),
            security,
            hidden: false,
        })
    }

    /// This network marked as hidden (it does not broadcast its SSID).
    #[must_use]
    pub fn with_hidden(mut self, hidden: bool) -> WifiNetwork {
        self.hidden = hidden;
        self
    }

    /// The payload string.
    pub fn payload(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for WifiNetwork {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = format!("WIFI:T:{};S:", self.security.kind());
        escape_into(&mut out, &self.ssid, &MECARD_SPECIALS);
        out.push(';');
        if let WifiSecurity::Wpa(key) | WifiSecurity::Wep(key) = &self.security {
            out.push_str("P:");
            escape_into(&mut out, key, &MECARD_SPECIALS);
            out.push(';');
        }
        if self.hidden {
            out.push_str("H:true;");
        }
        out.push(';');
        f.write_str(&out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_match_the_format() {
        let wpa = WifiSecurity::wpa("correct horse").expect("valid");
        let network = WifiNetwork::new("Home", wpa).expect("valid");
        assert_eq!(network.payload(), "WIFI:T:WPA;S:Home;P:correct horse;;");
        let hidden = network.with_hidden(true);
        assert_eq!(
            hidden.payload(),
            "WIFI:T:WPA;S:Home;P:correct horse;H:true;;"
        );
        let open = WifiNetwork::new("Café", WifiSecurity::Open).expect("valid");
        assert_eq!(open.payload(), "WIFI:T:nopass;S:Café;;");
        let wep = WifiSecurity::wep("0123456789").expect("a 40-bit hex key");
        let network = WifiNetwork::new("old", wep).expect("valid");
        assert_eq!(network.payload(), "WIFI:T:WEP;S:old;P:0123456789;;");
    }

    #[test]
    fn specials_are_escaped_in_ssid_and_key() {
        let key = WifiSecurity::wpa(r#"a;b,c:d"e\f"#).expect("valid");
        let network = WifiNetwork::new(r#"x;y,z:"\"#, key).expect("valid");
        assert_eq!(
            network.payload(),
            r#"WIFI:T:WPA;S:x\;y\,z\:\"\\;P:a\;b\,c\:d\"e\\f;;"#
        );
    }

    #[test]
    fn keys_and_ssids_are_checked() {
        assert!(matches!(
            WifiSecurity::wpa("short"),
            Err(ContentError::TooShort {
                min: 8,
                length: 5,
                ..
            })
        ));
        assert!(WifiSecurity::wpa(&"a".repeat(63)).is_ok());
        assert!(WifiSecurity::wpa(&"f".repeat(64)).is_ok());
        assert!(matches!(
            WifiSecurity::wpa(&"g".repeat(64)),
            Err(ContentError::TooLong { max: 63, .. })
        ));
        assert!(matches!(
            WifiSecurity::wpa("pässwort1"),
            Err(ContentError::InvalidCharacter {
                character: 'ä', ..
            })
        ));
        assert!(matches!(
            WifiSecurity::wep("0123456789abcdeX0123456789"),
            Err(ContentError::InvalidFormat { .. })
        ));
        assert!(WifiSecurity::wep("abcde").is_ok());
        assert_eq!(
            WifiNetwork::new(&"s".repeat(33), WifiSecurity::Open)
                .expect_err("too long")
                .to_string(),
            "SSID is 33 bytes long; at most 32 are allowed"
        );
        assert!(matches!(
            WifiNetwork::new("", WifiSecurity::Open),
            Err(ContentError::Empty { field: "SSID" })
        ));
    }
}
