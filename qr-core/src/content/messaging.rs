//! Messaging payloads: `mailto:` with subject and body (RFC 6068), `SMSTO:` text messages and `tel:` numbers (RFC 3966).

use std::fmt;

use super::ContentError;
use super::fields::{EmailAddress, PhoneNumber};
use super::text::{checked_text, percent_encode};

/// An e-mail to write: `mailto:jane@example.com?subject=Hi&body=...`, subject and body
/// percent-encoded, line breaks in the body as `%0D%0A` (RFC 6068 section 5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mailto {
    to: EmailAddress,
    subject: Option<String>,
    body: Option<String>,
}

impl Mailto {
    /// An e-mail to `to`, with no subject or body yet.
    pub fn new(to: EmailAddress) -> Mailto {
        Mailto {
            to,
            subject: None,
            body: None,
        }
    }

    /// This e-mail with `subject` (one line, no control characters).
    pub fn with_subject(mut self, subject: &str) -> Result<Mailto, ContentError> {
        self.subject = Some(checked_text("subject", subject, false)?);
        Ok(self)
    }

    /// This e-mail with `body` (line breaks allowed, no other control characters).
    pub fn with_body(mut self, body: &str) -> Result<Mailto, ContentError> {
        let body = checked_text("body", body, true)?;
        // Every line break, whatever its form, becomes CRLF (RFC 6068 section 5).
        let normalised = body
            .replace("\r\n", "\n")
            .replace('\r', "\n")
            .replace('\n', "\r\n");
        self.body = Some(normalised);
        Ok(self)
    }

    /// The payload string.
    pub fn payload(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Mailto {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The address's characters are all allowed in a mailto path (EmailAddress refuses
        // `%`, `?`, `#` and the others that would need encoding).
        write!(f, "mailto:{}", self.to)?;
        let mut separator = '?';
        for (name, value) in [("subject", &self.subject), ("body", &self.body)] {
            if let Some(value) = value {
                write!(f, "{separator}{name}={}", percent_encode(value))?;
                separator = '&';
            }
        }
        Ok(())
    }
}

/// A text message to send: `SMSTO:+15550100:Hello`, the form Android and iOS cameras open in the
/// messages app.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sms {
    to: PhoneNumber,
    message: Option<String>,
}

impl Sms {
    /// A message to `to`, with no text yet.
    pub fn new(to: PhoneNumber) -> Sms {
        Sms { to, message: None }
    }

    /// This message with `text` (line breaks allowed; everything after the number's colon is
    /// the text, so no escaping is needed).
    pub fn with_message(mut self, text: &str) -> Result<Sms, ContentError> {
        self.message = Some(checked_text("message", text, true)?);
        Ok(self)
    }

    /// The payload string.
    pub fn payload(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Sms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SMSTO:{}", self.to.dialable())?;
        if let Some(message) = &self.message {
            write!(f, ":{message}")?;
        }
        Ok(())
    }
}

/// A number to call: `tel:+15550100` (RFC 3966, visual separators removed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Telephone(PhoneNumber);

impl Telephone {
    /// A call to `number`.
    pub fn new(number: PhoneNumber) -> Telephone {
        Telephone(number)
    }

    /// The payload string.
    pub fn payload(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Telephone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tel:{}", self.0.dialable())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jane() -> EmailAddress {
        EmailAddress::new("jane@example.com").expect("valid")
    }

    #[test]
    fn mailto_encodes_subject_and_body() {
        assert_eq!(Mailto::new(jane()).payload(), "mailto:jane@example.com");
        let mail = Mailto::new(jane())
            .with_subject("Hi & welcome?")
            .expect("valid")
            .with_body("Line 1\nLine 2: 100%\r\nÜber")
            .expect("valid");
        assert_eq!(
            mail.payload(),
            "mailto:jane@example.com?subject=Hi%20%26%20welcome%3F\
             &body=Line%201%0D%0ALine%202%3A%20100%25%0D%0A%C3%9Cber"
        );
        let body_only = Mailto::new(jane()).with_body("x").expect("valid");
        assert_eq!(body_only.payload(), "mailto:jane@example.com?body=x");
        assert!(matches!(
            Mailto::new(jane()).with_subject("a\nb"),
            Err(ContentError::InvalidCharacter {
                field: "subject",
                ..
            })
        ));
    }

    #[test]
    fn sms_and_tel_use_the_dialable_number() {
        let number = PhoneNumber::new("+1 (555) 010-0").expect("valid");
        assert_eq!(Sms::new(number.clone()).payload(), "SMSTO:+15550100");
        let sms = Sms::new(number.clone())
            .with_message("See you: 8pm")
            .expect("valid");
        assert_eq!(sms.payload(), "SMSTO:+15550100:See you: 8pm");
        assert_eq!(Telephone::new(number).payload(), "tel:+15550100");
        assert!(matches!(
            Sms::new(PhoneNumber::new("123").expect("valid")).with_message(""),
            Err(ContentError::Empty { field: "message" })
        ));
    }
}
