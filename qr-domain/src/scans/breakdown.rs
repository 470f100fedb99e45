//! The breakdowns the daily rollups keep (country, device, browser, OS, referrer, city, variant,
//! rule): their stored numbers, each scan's value in them, and the rows a store returns.
//!
//! Every store writes one `daily_dims` row per link, day, dimension and value, so the analytics
//! of any window is answered from rollups whatever the link's scan count: the 1,000,000-scan
//! link's page reads 365 days of rollups instead of its scans.

use std::borrow::Cow;
use std::collections::HashMap;

use url::Url;

use crate::scans::scan::NewScan;

/// A breakdown of scans kept per day. The discriminant is the `dim` number stores write:
/// never renumber one (rows written by older builds would change meaning).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Dimension {
    /// ISO country code, `XX` when unknown.
    Country = 0,
    /// Device category (`mobile`, `desktop`, `tablet`, `unknown`).
    Device = 1,
    /// Browser name.
    Browser = 2,
    /// Operating system name.
    Os = 3,
    /// The referrer's host; the empty string for scans without a referrer.
    Referrer = 4,
    /// `CC/City`: the country code, a slash and the city name (`Unknown` when not known), so
    /// Paris, FR and Paris, US stay apart.
    City = 5,
    /// The A/B variant's index; scans without a variant have no value.
    Variant = 6,
    /// The deciding redirect rule's index; scans no rule decided have no value.
    Rule = 7,
}

/// How many dimensions there are.
pub const DIMENSIONS: usize = 8;

impl Dimension {
    /// Every dimension, in stored-number order.
    pub const ALL: [Dimension; DIMENSIONS] = [
        Dimension::Country,
        Dimension::Device,
        Dimension::Browser,
        Dimension::Os,
        Dimension::Referrer,
        Dimension::City,
        Dimension::Variant,
        Dimension::Rule,
    ];

    /// The dimensions added after the first rollups (which kept country, device and browser):
    /// a store that gains them counts the scans it already holds into them.
    pub const LATER: [Dimension; 5] = [
        Dimension::Os,
        Dimension::Referrer,
        Dimension::City,
        Dimension::Variant,
        Dimension::Rule,
    ];

    /// The number stored in the `dim` column.
    pub const fn code(self) -> i16 {
        self as i16
    }

    /// The dimension stored as `code`; `None` for a number this build does not know.
    pub fn from_code(code: i64) -> Option<Self> {
        usize::try_from(code)
            .ok()
            .and_then(|i| Self::ALL.get(i))
            .copied()
    }

    /// The value `scan` counts under in this dimension, `None` when it counts under none.
    pub fn value_of(self, scan: &NewScan) -> Option<Cow<'_, str>> {
        Facets {
            country: &scan.country,
            city: &scan.city,
            device: scan.device.as_str(),
            browser: &scan.browser,
            os: &scan.os,
            referrer: scan.referrer.as_deref(),
            variant: scan.variant,
            rule: scan.rule,
        }
        .value(self)
    }
}

/// The stored fields of a scan the breakdowns read: what a store has when it rebuilds rollups
/// from scans already stored (a migration), where there is no [`NewScan`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Facets<'a> {
    /// ISO country code.
    pub country: &'a str,
    /// City name.
    pub city: &'a str,
    /// Device name.
    pub device: &'a str,
    /// Browser name.
    pub browser: &'a str,
    /// Operating system name.
    pub os: &'a str,
    /// The cleaned referrer.
    pub referrer: Option<&'a str>,
    /// The variant index.
    pub variant: Option<u8>,
    /// The rule index.
    pub rule: Option<u8>,
}

impl<'a> Facets<'a> {
    /// The value counted under `dim`, `None` when the scan counts under none.
    pub fn value(&self, dim: Dimension) -> Option<Cow<'a, str>> {
        Some(match dim {
            Dimension::Country => Cow::Borrowed(self.country),
            Dimension::Device => Cow::Borrowed(self.device),
            Dimension::Browser => Cow::Borrowed(self.browser),
            Dimension::Os => Cow::Borrowed(self.os),
            Dimension::Referrer => self.referrer.map_or(Cow::Borrowed(""), referrer_host),
            Dimension::City => Cow::Owned(format!("{}/{}", self.country, self.city)),
            Dimension::Variant => Cow::Owned(self.variant?.to_string()),
            Dimension::Rule => Cow::Owned(self.rule?.to_string()),
        })
    }
}

/// The host a referrer is counted under: `news.example.com` for
/// `https://news.example.com/a/b`. Paths would make a long tail of one-scan rows no chart
/// shows (the full referrer stays in the recent scans and the export); a referrer without a
/// host (`about:blank`) counts under itself.
pub fn referrer_host(referrer: &str) -> Cow<'_, str> {
    match Url::parse(referrer) {
        Ok(url) => match url.host_str() {
            Some(host) if !host.is_empty() => Cow::Owned(host.to_owned()),
            _ => Cow::Borrowed(referrer),
        },
        Err(_) => Cow::Borrowed(referrer),
    }
}

/// Scans per value, for every dimension, as a store returns them (any order; equal values may
/// repeat, the summary adds them up).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Breakdowns([Vec<(String, u64)>; DIMENSIONS]);

impl Breakdowns {
    /// The rows of `dim`.
    pub fn get(&self, dim: Dimension) -> &[(String, u64)] {
        &self.0[dim as usize]
    }

    /// Adds `n` scans under `value` of `dim`.
    pub fn push(&mut self, dim: Dimension, value: String, n: u64) {
        self.0[dim as usize].push((value, n));
    }

    /// The rows of `dim` with equal values added up, most scans first, then by value.
    pub fn totals(&self, dim: Dimension) -> Vec<(String, u64)> {
        let mut out = summed(self.get(dim));
        out.retain(|(_, n)| *n > 0);
        out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        out
    }

    /// The same counts with equal values added up: one row per value. A store returns a row
    /// per day and value (a year of the seeder's link: about 11,000 rows, 31 distinct values),
    /// so what is kept in memory is compacted first.
    pub fn compacted(&self) -> Self {
        Self(Dimension::ALL.map(|dim| summed(self.get(dim))))
    }

    /// Takes the rows of every dimension, in [`Dimension::ALL`] order.
    pub fn into_rows(self) -> impl Iterator<Item = (Dimension, Vec<(String, u64)>)> {
        Dimension::ALL.into_iter().zip(self.0)
    }
}

/// `rows` with equal values added up, in no particular order.
fn summed(rows: &[(String, u64)]) -> Vec<(String, u64)> {
    let mut sums: HashMap<&str, u64> = HashMap::new();
    for (value, n) in rows {
        *sums.entry(value).or_default() += n;
    }
    sums.into_iter().map(|(v, n)| (v.to_owned(), n)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_never_move() {
        for (i, d) in Dimension::ALL.into_iter().enumerate() {
            assert_eq!(d.code() as usize, i);
            assert_eq!(Dimension::from_code(i as i64), Some(d));
        }
        // Stored rows depend on these numbers.
        assert_eq!(Dimension::Browser.code(), 2);
        assert_eq!(Dimension::Rule.code(), 7);
        assert_eq!(Dimension::from_code(8), None);
        assert_eq!(Dimension::from_code(-1), None);
    }

    #[test]
    fn compacting_adds_up_equal_values() {
        let mut b = Breakdowns::default();
        for (v, n) in [("iOS", 2), ("Android", 1), ("iOS", 3), ("Linux", 0)] {
            b.push(Dimension::Os, v.to_owned(), n);
        }
        b.push(Dimension::Country, "FR".to_owned(), 4);
        let mut os = b.compacted().get(Dimension::Os).to_vec();
        os.sort();
        let owned = |v: &[(&str, u64)]| -> Vec<(String, u64)> {
            v.iter().map(|(s, n)| ((*s).to_owned(), *n)).collect()
        };
        assert_eq!(os, owned(&[("Android", 1), ("Linux", 0), ("iOS", 5)]));
        assert_eq!(
            b.totals(Dimension::Os),
            owned(&[("iOS", 5), ("Android", 1)])
        );
        assert_eq!(b.compacted().get(Dimension::Country), owned(&[("FR", 4)]));
        assert!(b.totals(Dimension::Rule).is_empty());
    }

    #[test]
    fn values() {
        let f = Facets {
            country: "FR",
            city: "Paris",
            device: "mobile",
            browser: "Safari",
            os: "iOS",
            referrer: Some("https://news.example.com:8443/a/b"),
            variant: Some(1),
            rule: None,
        };
        let v = |d| f.value(d).map(Cow::into_owned);
        assert_eq!(v(Dimension::City).as_deref(), Some("FR/Paris"));
        assert_eq!(v(Dimension::Referrer).as_deref(), Some("news.example.com"));
        assert_eq!(v(Dimension::Variant).as_deref(), Some("1"));
        assert_eq!(v(Dimension::Rule), None);
        assert_eq!(v(Dimension::Os).as_deref(), Some("iOS"));
        let direct = Facets {
            referrer: None,
            ..f
        };
        assert_eq!(direct.value(Dimension::Referrer).as_deref(), Some(""));
        assert_eq!(referrer_host("about:blank"), "about:blank");
        assert_eq!(
            referrer_host("android-app://com.google.android.gm/"),
            "com.google.android.gm"
        );
    }
}
