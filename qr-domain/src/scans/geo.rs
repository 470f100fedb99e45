//! Scan geolocation: the `GeoLocator` trait and its MaxMind City database adapter.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use maxminddb::{Reader, geoip2};
use serde::Serialize;
use thiserror::Error;

use crate::accounts::access::canonical;

/// The country code stored when the country is unknown (ISO 3166's user-assigned "unknown").
pub const UNKNOWN_COUNTRY: &str = "XX";
/// The city stored when the city is unknown.
pub const UNKNOWN_CITY: &str = "Unknown";

/// An approximate, city-level location.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Location {
    /// ISO 3166-1 alpha-2 country code, or `XX`.
    pub country: String,
    /// English city name, or `Unknown`.
    pub city: String,
}

/// Location hints set by a trusted proxy (for example a CDN's country header).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GeoHint {
    /// A two-letter country code.
    pub country: Option<String>,
    /// A city name.
    pub city: Option<String>,
}

/// Finds the approximate location of an address. Implementations never fail: unknown is a location.
pub trait GeoLocator: Send + Sync {
    /// The location of `ip`, or [`Location::unknown`].
    fn locate(&self, ip: IpAddr) -> Location;
}

/// A locator without a database: every location is unknown.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoGeoLocator;

/// A MaxMind-format City database (GeoLite2-City, GeoIP2-City or DB-IP City Lite), held in memory.
pub struct MaxMindLocator {
    reader: Reader<Vec<u8>>,
}

/// Why a geolocation database could not be opened.
#[derive(Debug, Error)]
pub enum GeoError {
    /// The file could not be read or is not a MaxMind DB file.
    #[error("cannot open the geolocation database {path}: {message}")]
    Open {
        /// The database path.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The file is a MaxMind DB file of another kind than City (a Country or ASN database).
    #[error(
        "the geolocation database {path} is a {database_type} database; a City database is needed (GeoLite2-City, GeoIP2-City or DB-IP City Lite)"
    )]
    WrongType {
        /// The database path.
        path: PathBuf,
        /// The type its metadata gives.
        database_type: String,
    },
    /// The file is a MaxMind DB file but its content is corrupt.
    #[error(
        "the geolocation database {path} is corrupt: {message}; replace it with a fresh download"
    )]
    Corrupt {
        /// The database path.
        path: PathBuf,
        /// What the verification found.
        message: String,
    },
}

impl Location {
    /// The unknown location: country `XX`, city `Unknown`.
    pub fn unknown() -> Self {
        Self {
            country: UNKNOWN_COUNTRY.to_owned(),
            city: UNKNOWN_CITY.to_owned(),
        }
    }

    /// Combines a database result with trusted proxy hints.
    ///
    /// A well-formed hinted country wins over the database; the hinted city is used if
    /// given, else the database's city when the database agrees on the country.
    pub fn with_hint(self, hint: &GeoHint) -> Self {
        let hinted = hint
            .country
            .as_deref()
            .map(str::trim)
            .filter(|c| c.len() == 2 && c.bytes().all(|b| b.is_ascii_alphabetic()))
            .map(str::to_ascii_uppercase)
            .filter(|c| c != UNKNOWN_COUNTRY);
        let hinted_city = hint.city.as_deref().map(str::trim).filter(|c| {
            !c.is_empty() && c.chars().count() <= 100 && !c.chars().any(char::is_control)
        });
        match hinted {
            Some(country) => {
                let city = match hinted_city {
                    Some(c) => c.to_owned(),
                    None if country == self.country => self.city,
                    None => UNKNOWN_CITY.to_owned(),
                };
                Self { country, city }
            }
            None => self,
        }
    }
}

impl GeoLocator for NoGeoLocator {
    fn locate(&self, _ip: IpAddr) -> Location {
        Location::unknown()
    }
}

impl MaxMindLocator {
    /// Opens and fully verifies a City database, so that corruption is reported now, not at a
    /// lookup. A database whose type does not name a City database (`GeoLite2-Country`,
    /// `GeoLite2-ASN`) is refused: it has no cities, and an update or a reload that brought one
    /// would silently lose them.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, GeoError> {
        let path = path.as_ref();
        let reader = Reader::open_readfile(path).map_err(|e| GeoError::Open {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        let database_type = &reader.metadata().database_type;
        if !database_type.to_ascii_lowercase().contains("city") {
            return Err(GeoError::WrongType {
                path: path.to_owned(),
                database_type: database_type.clone(),
            });
        }
        reader.verify().map_err(|e| GeoError::Corrupt {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        Ok(Self { reader })
    }

    /// When the database was built, from its metadata (`build_epoch`); `None` when out of range.
    pub fn built_at(&self) -> Option<DateTime<Utc>> {
        i64::try_from(self.reader.metadata().build_epoch)
            .ok()
            .and_then(|secs| DateTime::from_timestamp(secs, 0))
    }

    /// The database type from its metadata, for example `GeoIP2-City`.
    pub fn database_type(&self) -> &str {
        &self.reader.metadata().database_type
    }
}

impl GeoLocator for MaxMindLocator {
    fn locate(&self, ip: IpAddr) -> Location {
        let Ok(found) = self.reader.lookup(canonical(ip)) else {
            return Location::unknown();
        };
        let Ok(Some(city)) = found.decode::<geoip2::City<'_>>() else {
            return Location::unknown();
        };
        let country = city
            .country
            .iso_code
            .filter(|c| !c.is_empty())
            .unwrap_or(UNKNOWN_COUNTRY)
            .to_owned();
        let name = city
            .city
            .names
            .english
            .filter(|c| !c.is_empty())
            .unwrap_or(UNKNOWN_CITY)
            .to_owned();
        Location {
            country,
            city: name,
        }
    }
}

impl std::fmt::Debug for MaxMindLocator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MaxMindLocator")
            .field("database_type", &self.database_type())
            .field("built_at", &self.built_at())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints() {
        let db = Location {
            country: "GB".into(),
            city: "London".into(),
        };
        let hint = |country: Option<&str>, city: Option<&str>| GeoHint {
            country: country.map(Into::into),
            city: city.map(Into::into),
        };
        let check = |h: GeoHint, country: &str, city: &str| {
            assert_eq!(
                db.clone().with_hint(&h),
                Location {
                    country: country.into(),
                    city: city.into()
                },
                "{h:?}"
            );
        };
        check(hint(None, None), "GB", "London");
        check(hint(Some("gb"), None), "GB", "London");
        check(hint(Some("FR"), None), "FR", "Unknown");
        check(hint(Some("FR"), Some("Paris")), "FR", "Paris");
        check(hint(Some("XX"), None), "GB", "London");
        check(hint(Some("France"), None), "GB", "London");
    }
}
