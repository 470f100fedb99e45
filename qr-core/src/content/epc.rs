//! SEPA credit transfer payloads ("GiroCode"): the EPC QR code of EPC069-12 version 002, with the IBAN's mod-97 check and the standard's field limits.

use std::fmt;

use super::ContentError;
use super::text::{at_most_chars, checked_text};

/// An IBAN (ISO 13616): a country code, two check digits and up to 30 letters or digits, 15 to 34
/// characters in all, whose mod-97 check holds. Spaces are removed and letters upper-cased.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Iban(String);

impl Iban {
    /// The IBAN, normalised and checked.
    pub fn new(iban: &str) -> Result<Iban, ContentError> {
        const FIELD: &str = "IBAN";
        let normalised: String = iban
            .chars()
            .filter(|&c| c != ' ')
            .map(|c| c.to_ascii_uppercase())
            .collect();
        if let Some(character) = normalised.chars().find(|c| !c.is_ascii_alphanumeric()) {
            return Err(ContentError::InvalidCharacter {
                field: FIELD,
                character,
            });
        }
        let shape_ok = (15..=34).contains(&normalised.len())
            && normalised[..2].chars().all(|c| c.is_ascii_uppercase())
            && normalised[2..4].chars().all(|c| c.is_ascii_digit());
        if !shape_ok {
            return Err(ContentError::InvalidFormat {
                field: FIELD,
                expected: "a country code, two check digits and the account, 15 to 34 characters",
            });
        }
        // ISO 13616: move the first four characters to the end, letters become 10 to 35, and
        // the number modulo 97 must be 1. Computed digit by digit so nothing overflows.
        let rotated = normalised[4..].chars().chain(normalised[..4].chars());
        let remainder = rotated.fold(0u32, |acc, c| {
            let value = c.to_digit(36).unwrap_or(0);
            if value >= 10 {
                (acc * 100 + value) % 97
            } else {
                (acc * 10 + value) % 97
            }
        });
        if remainder != 1 {
            return Err(ContentError::IbanChecksum { iban: normalised });
        }
        Ok(Iban(normalised))
    }

    /// The IBAN without spaces.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The two-letter country code.
    pub fn country(&self) -> &str {
        &self.0[..2]
    }
}

/// A BIC (ISO 9362): 4 letters of bank, 2 of country, 2 letters or digits of location, and an
/// optional 3-character branch: 8 or 11 characters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bic(String);

impl Bic {
    /// The BIC, upper-cased and checked.
    pub fn new(bic: &str) -> Result<Bic, ContentError> {
        let bic = bic.to_ascii_uppercase();
        let valid = (bic.len() == 8 || bic.len() == 11)
            && bic.chars().all(|c| c.is_ascii_alphanumeric())
            && bic[..6].chars().all(|c| c.is_ascii_uppercase());
        if !valid {
            return Err(ContentError::InvalidFormat {
                field: "BIC",
                expected: "8 or 11 characters: 4 letters of bank, 2 of country, 2 of location, optionally 3 of branch",
            });
        }
        Ok(Bic(bic))
    }
}

/// An amount in euro, 0.01 to 999,999,999.99 (EPC069-12's range), held in cents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct EpcAmount(u64);

impl EpcAmount {
    /// The largest amount, in cents.
    pub const MAX_CENTS: u64 = 99_999_999_999;

    /// The amount of `cents` euro cents, 1 to [`EpcAmount::MAX_CENTS`].
    pub fn from_cents(cents: u64) -> Result<EpcAmount, ContentError> {
        if (1..=Self::MAX_CENTS).contains(&cents) {
            Ok(EpcAmount(cents))
        } else {
            Err(ContentError::OutOfRange {
                field: "amount",
                value: format!("EUR{}.{:02}", cents / 100, cents % 100),
                min: "EUR0.01",
                max: "EUR999999999.99",
            })
        }
    }
}

impl fmt::Display for EpcAmount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EUR{}.{:02}", self.0 / 100, self.0 % 100)
    }
}

/// What the transfer says to the beneficiary: a structured creditor reference (at most 35
/// characters, e.g. an ISO 11649 `RF` reference) or a free text (at most 140), not both.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Remittance {
    /// A structured creditor reference.
    Reference(String),
    /// An unstructured text.
    Text(String),
}

impl Remittance {
    /// A structured reference: 1 to 35 letters, digits or spaces.
    pub fn reference(reference: &str) -> Result<Remittance, ContentError> {
        const FIELD: &str = "remittance reference";
        checked_text(FIELD, reference, false)?;
        at_most_chars(FIELD, reference, 35)?;
        if let Some(character) = reference
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || *c == ' '))
        {
            return Err(ContentError::InvalidCharacter {
                field: FIELD,
                character,
            });
        }
        Ok(Remittance::Reference(reference.to_owned()))
    }

    /// A free text of 1 to 140 characters on one line.
    pub fn text(text: &str) -> Result<Remittance, ContentError> {
        const FIELD: &str = "remittance text";
        checked_text(FIELD, text, false)?;
        at_most_chars(FIELD, text, 140)?;
        Ok(Remittance::Text(text.to_owned()))
    }
}

/// A SEPA credit transfer as an EPC QR code (EPC069-12 version 002, UTF-8): banking apps fill a
/// transfer from it.
///
/// Lines, separated by LF: `BCD`, `002`, `1` (UTF-8), `SCT`, BIC (may be empty within the EEA),
/// name (at most 70 characters), IBAN, amount (`EUR12.30`, may be empty), purpose (empty),
/// reference, text; at most 331 bytes in all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpcTransfer {
    bic: Option<Bic>,
    name: String,
    iban: Iban,
    amount: Option<EpcAmount>,
    remittance: Option<Remittance>,
}

impl EpcTransfer {
    /// The largest payload, in bytes (EPC069-12 section 3.2).
    pub const MAX_BYTES: usize = 331;

    /// A transfer to `name` (1 to 70 characters) at `iban`. `bic` may be `None` only when the
    /// IBAN is from an EEA country.
    pub fn new(name: &str, iban: Iban, bic: Option<Bic>) -> Result<EpcTransfer, ContentError> {
        checked_text("beneficiary name", name, false)?;
        at_most_chars("beneficiary name", name, 70)?;
        if bic.is_none() && !EEA_COUNTRIES.contains(&iban.country()) {
            return Err(ContentError::BicRequired {
                country: iban.country().to_owned(),
            });
        }
        EpcTransfer {
            bic,
            name: name.to_owned(),
            iban,
            amount: None,
            remittance: None,
        }
        .within_limit()
    }

    /// This transfer of `amount`, if the whole payload stays within 331 bytes.
    pub fn with_amount(mut self, amount: EpcAmount) -> Result<EpcTransfer, ContentError> {
        self.amount = Some(amount);
        self.within_limit()
    }

    /// This transfer with a reference or text, if the whole payload stays within 331 bytes.
    pub fn with_remittance(mut self, remittance: Remittance) -> Result<EpcTransfer, ContentError> {
        self.remittance = Some(remittance);
        self.within_limit()
    }

    /// This transfer, or an error if its payload is longer than [`EpcTransfer::MAX_BYTES`]
    /// (a name of 70 four-byte characters alone takes 280).
    fn within_limit(self) -> Result<EpcTransfer, ContentError> {
        let length = self.to_string().len();
        if length > Self::MAX_BYTES {
            return Err(ContentError::PayloadTooLong {
                format: "EPC",
                max: Self::MAX_BYTES,
                length,
            });
        }
        Ok(self)
    }

    /// The payload string.
    pub fn payload(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for EpcTransfer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bic = self.bic.as_ref().map_or("", |b| b.0.as_str());
        let amount = self.amount.map(|a| a.to_string()).unwrap_or_default();
        write!(
            f,
            "BCD\n002\n1\nSCT\n{bic}\n{}\n{}\n{amount}\n",
            self.name, self.iban.0
        )?;
        // Purpose stays empty; reference and text take lines 10 and 11, and trailing empty
        // lines are left out, as the standard allows.
        match &self.remittance {
            Some(Remittance::Reference(reference)) => write!(f, "\n{reference}"),
            Some(Remittance::Text(text)) => write!(f, "\n\n{text}"),
            None => Ok(()),
        }
    }
}

/// The countries of the European Economic Area (the 27 EU members, Iceland, Liechtenstein and
/// Norway), where version 002 lets the BIC be left out.
const EEA_COUNTRIES: [&str; 30] = [
    "AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU", "IE", "IS",
    "IT", "LI", "LT", "LU", "LV", "MT", "NL", "NO", "PL", "PT", "RO", "SE", "SI", "SK",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn iban() -> Iban {
        // The example IBAN of the German banking industry (valid check digits).
        Iban::new("DE89 3704 0044 0532 0130 00").expect("valid")
    }

    #[test]
    fn payload_matches_epc069_12() {
        let transfer = EpcTransfer::new("Red Cross", iban(), None)
            .expect("valid")
            .with_amount(EpcAmount::from_cents(1_230).expect("in range"))
            .expect("fits")
            .with_remittance(Remittance::text("Donation 2025").expect("valid"))
            .expect("fits");
        assert_eq!(
            transfer.payload(),
            "BCD\n002\n1\nSCT\n\nRed Cross\nDE89370400440532013000\nEUR12.30\n\n\nDonation 2025"
        );
        let with_reference = EpcTransfer::new(
            "Acme",
            Iban::new("CH9300762011623852957").expect("valid"),
            Some(Bic::new("ubswchzh80a").expect("valid")),
        )
        .expect("valid")
        .with_remittance(Remittance::reference("RF18539007547034").expect("valid"))
        .expect("fits");
        assert_eq!(
            with_reference.payload(),
            "BCD\n002\n1\nSCT\nUBSWCHZH80A\nAcme\nCH9300762011623852957\n\n\nRF18539007547034"
        );
    }

    #[test]
    fn iban_mod_97_and_bic_rules_hold() {
        assert_eq!(
            Iban::new("DE89370400440532013001")
                .expect_err("one digit off")
                .to_string(),
            "IBAN DE89370400440532013001 fails its mod-97 check: a character is probably mistyped"
        );
        assert!(matches!(
            Iban::new("DE89"),
            Err(ContentError::InvalidFormat { .. })
        ));
        assert!(matches!(
            Iban::new("DE89-3704"),
            Err(ContentError::InvalidCharacter { character: '-', .. })
        ));
        assert!(Iban::new("gb82 west 1234 5698 7654 32").is_ok());
        let swiss = Iban::new("CH9300762011623852957").expect("valid");
        assert_eq!(
            EpcTransfer::new("Acme", swiss, None)
                .expect_err("outside the EEA")
                .to_string(),
            "a BIC is required for an IBAN from CH, which is outside the EEA"
        );
        assert!(Bic::new("DEUTDEFF").is_ok());
        assert!(Bic::new("DEUTDEFF500").is_ok());
        assert!(Bic::new("DEUT1EFF").is_err());
        assert!(Bic::new("DEUTDEF").is_err());
    }

    #[test]
    fn amounts_names_and_lengths_are_bounded() {
        assert!(EpcAmount::from_cents(0).is_err());
        assert_eq!(
            EpcAmount::from_cents(EpcAmount::MAX_CENTS)
                .expect("max")
                .to_string(),
            "EUR999999999.99"
        );
        assert_eq!(
            EpcAmount::from_cents(EpcAmount::MAX_CENTS + 1)
                .expect_err("too much")
                .to_string(),
            "amount EUR1000000000.00 is outside EUR0.01 to EUR999999999.99"
        );
        assert!(matches!(
            EpcTransfer::new(&"n".repeat(71), iban(), None),
            Err(ContentError::TooLong { max: 70, .. })
        ));
        assert!(matches!(
            Remittance::reference(&"1".repeat(36)),
            Err(ContentError::TooLong { max: 35, .. })
        ));
        // 70 four-byte characters in the name and 140 in the text make more than 331 bytes.
        let long = EpcTransfer::new(&"😀".repeat(70), iban(), None).expect("70 characters");
        assert!(matches!(
            long.with_remittance(Remittance::text(&"😀".repeat(140)).expect("140 characters")),
            Err(ContentError::PayloadTooLong { max: 331, .. })
        ));
        // With a 32-character IBAN, a BIC and the largest amount, 66 such characters pass it.
        let iban_32 = Iban::new("LC55HEMM000100010012001200023015").expect("valid");
        let bic = Bic::new("HEMMLCLC").expect("valid");
        let long = EpcTransfer::new(&"😀".repeat(66), iban_32, Some(bic)).expect("322 bytes");
        assert!(matches!(
            long.with_amount(EpcAmount::from_cents(EpcAmount::MAX_CENTS).expect("max")),
            Err(ContentError::PayloadTooLong { max: 331, .. })
        ));
    }
}
