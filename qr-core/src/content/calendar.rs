//! Calendar event payloads: an iCalendar VEVENT (RFC 5545) with UTC start and end, summary, location and description.

use std::fmt;

use super::ContentError;
use super::text::{checked_text, escape_text, folded_lines};

/// A date and time in UTC, to the second, years 1 to 9999; written `20250314T093000Z` (RFC 5545
/// section 3.3.5, form 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UtcDateTime {
    // Field order makes the derived ordering chronological.
    year: u16,
    month: u8,
    day: u8,
    hour: u8,
    minute: u8,
    second: u8,
}

impl UtcDateTime {
    /// The instant, checked: month 1 to 12, a day that exists in that month (leap years
    /// included), hour 0 to 23, minute and second 0 to 59.
    pub fn new(
        year: u16,
        month: u8,
        day: u8,
        hour: u8,
        minute: u8,
        second: u8,
    ) -> Result<UtcDateTime, ContentError> {
        let check = |field, value: u64, min: u64, max: u64, min_text, max_text| {
            if (min..=max).contains(&value) {
                Ok(())
            } else {
                Err(ContentError::OutOfRange {
                    field,
                    value: value.to_string(),
                    min: min_text,
                    max: max_text,
                })
            }
        };
        check("year", year.into(), 1, 9999, "1", "9999")?;
        check("month", month.into(), 1, 12, "1", "12")?;
        let days = days_in_month(year, month);
        let max_text = match days {
            28 => "28",
            29 => "29",
            30 => "30",
            _ => "31",
        };
        check("day", day.into(), 1, days.into(), "1", max_text)?;
        check("hour", hour.into(), 0, 23, "0", "23")?;
        check("minute", minute.into(), 0, 59, "0", "59")?;
        check("second", second.into(), 0, 59, "0", "59")?;
        Ok(UtcDateTime {
            year,
            month,
            day,
            hour,
            minute,
            second,
        })
    }
}

fn days_in_month(year: u16, month: u8) -> u8 {
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

impl fmt::Display for UtcDateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

/// A calendar event: `BEGIN:VEVENT`, SUMMARY, DTSTART, DTEND, LOCATION, DESCRIPTION, `END:VEVENT`.
///
/// The VEVENT stands alone, without a VCALENDAR around it, as QR readers (zxing's, the iOS and
/// Android cameras) expect it; text values are escaped and lines folded at 75 octets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CalendarEvent {
    summary: String,
    start: UtcDateTime,
    end: Option<UtcDateTime>,
    location: Option<String>,
    description: Option<String>,
}

impl CalendarEvent {
    /// An event called `summary` (one line) starting at `start`.
    pub fn new(summary: &str, start: UtcDateTime) -> Result<CalendarEvent, ContentError> {
        Ok(CalendarEvent {
            summary: checked_text("summary", summary, false)?,
            start,
            end: None,
            location: None,
            description: None,
        })
    }

    /// This event ending at `end`, which must not be before the start.
    pub fn with_end(mut self, end: UtcDateTime) -> Result<CalendarEvent, ContentError> {
        if end < self.start {
            return Err(ContentError::EndBeforeStart {
                start: self.start.to_string(),
                end: end.to_string(),
            });
        }
        self.end = Some(end);
        Ok(self)
    }

    /// This event at `location` (one line).
    pub fn with_location(mut self, location: &str) -> Result<CalendarEvent, ContentError> {
        self.location = Some(checked_text("location", location, false)?);
        Ok(self)
    }

    /// This event with `description` (line breaks allowed).
    pub fn with_description(mut self, description: &str) -> Result<CalendarEvent, ContentError> {
        self.description = Some(checked_text("description", description, true)?);
        Ok(self)
    }

    /// The payload string.
    pub fn payload(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for CalendarEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut lines = vec![
            "BEGIN:VEVENT".to_owned(),
            format!("SUMMARY:{}", escape_text(&self.summary)),
            format!("DTSTART:{}", self.start),
        ];
        if let Some(end) = self.end {
            lines.push(format!("DTEND:{end}"));
        }
        if let Some(location) = &self.location {
            lines.push(format!("LOCATION:{}", escape_text(location)));
        }
        if let Some(description) = &self.description {
            lines.push(format!("DESCRIPTION:{}", escape_text(description)));
        }
        lines.push("END:VEVENT".to_owned());
        f.write_str(&folded_lines(&lines))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(day: u8, hour: u8) -> UtcDateTime {
        UtcDateTime::new(2025, 3, day, hour, 30, 0).expect("valid")
    }

    #[test]
    fn event_matches_rfc_5545() {
        let event = CalendarEvent::new("Launch; party", at(14, 18))
            .expect("valid")
            .with_end(at(14, 22))
            .expect("valid")
            .with_location("Hall 2, Berlin")
            .expect("valid")
            .with_description("Bring:\nfood\\drinks")
            .expect("valid");
        assert_eq!(
            event.payload(),
            "BEGIN:VEVENT\r\nSUMMARY:Launch\\; party\r\nDTSTART:20250314T183000Z\r\n\
             DTEND:20250314T223000Z\r\nLOCATION:Hall 2\\, Berlin\r\n\
             DESCRIPTION:Bring:\\nfood\\\\drinks\r\nEND:VEVENT\r\n"
        );
    }

    #[test]
    fn dates_and_order_are_checked() {
        assert!(UtcDateTime::new(2024, 2, 29, 0, 0, 0).is_ok());
        assert_eq!(
            UtcDateTime::new(2025, 2, 29, 0, 0, 0)
                .expect_err("not a leap year")
                .to_string(),
            "day 29 is outside 1 to 28"
        );
        assert!(UtcDateTime::new(1900, 2, 29, 0, 0, 0).is_err());
        assert!(UtcDateTime::new(2000, 2, 29, 0, 0, 0).is_ok());
        assert!(UtcDateTime::new(2025, 4, 31, 0, 0, 0).is_err());
        assert!(UtcDateTime::new(2025, 13, 1, 0, 0, 0).is_err());
        assert!(UtcDateTime::new(2025, 1, 1, 24, 0, 0).is_err());
        let event = CalendarEvent::new("x", at(14, 18)).expect("valid");
        assert_eq!(
            event
                .with_end(at(14, 17))
                .expect_err("ends first")
                .to_string(),
            "the event ends (20250314T173000Z) before it starts (20250314T183000Z)"
        );
    }
}
