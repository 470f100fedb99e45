//! Geographic location payloads: `geo:` URIs of RFC 5870 with range-checked latitude and longitude.

use std::fmt;

use super::ContentError;

/// A latitude in degrees, -90 to 90 (WGS 84).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Latitude(f64);

impl Latitude {
    /// The latitude `degrees`, or an error when it is outside -90 to 90 or not a number.
    pub fn new(degrees: f64) -> Result<Latitude, ContentError> {
        in_range("latitude", degrees, 90.0, "-90", "90").map(Latitude)
    }

    /// The degrees.
    pub fn degrees(self) -> f64 {
        self.0
    }
}

/// A longitude in degrees, -180 to 180 (WGS 84).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Longitude(f64);

impl Longitude {
    /// The longitude `degrees`, or an error when it is outside -180 to 180 or not a number.
    pub fn new(degrees: f64) -> Result<Longitude, ContentError> {
        in_range("longitude", degrees, 180.0, "-180", "180").map(Longitude)
    }

    /// The degrees.
    pub fn degrees(self) -> f64 {
        self.0
    }
}

fn in_range(
    field: &'static str,
    degrees: f64,
    limit: f64,
    min: &'static str,
    max: &'static str,
) -> Result<f64, ContentError> {
    // NaN fails the comparison too. `+ 0.0` turns -0 into 0, so it never prints as "-0".
    if (-limit..=limit).contains(&degrees) {
        Ok(degrees + 0.0)
    } else {
        Err(ContentError::OutOfRange {
            field,
            value: degrees.to_string(),
            min,
            max,
        })
    }
}

/// A point on the map: `geo:48.8584,2.2945` (RFC 5870), which phones open in their map app.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeoLocation {
    latitude: Latitude,
    longitude: Longitude,
}

impl GeoLocation {
    /// The point at `latitude`, `longitude`.
    pub fn new(latitude: Latitude, longitude: Longitude) -> GeoLocation {
        GeoLocation {
            latitude,
            longitude,
        }
    }

    /// The payload string.
    pub fn payload(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for GeoLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // f64's Display is the shortest decimal that reads back to the same number, and never
        // uses an exponent, which RFC 5870's grammar does not allow.
        write!(f, "geo:{},{}", self.latitude.0, self.longitude.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_is_an_rfc_5870_uri() {
        let point = |lat, long| {
            GeoLocation::new(
                Latitude::new(lat).expect("in range"),
                Longitude::new(long).expect("in range"),
            )
            .payload()
        };
        assert_eq!(point(48.8584, 2.2945), "geo:48.8584,2.2945");
        assert_eq!(point(-33.0, -0.0), "geo:-33,0");
        assert_eq!(point(90.0, -180.0), "geo:90,-180");
        assert_eq!(point(1e-7, 0.0), "geo:0.0000001,0");
    }

    #[test]
    fn out_of_range_coordinates_are_refused() {
        assert_eq!(
            Latitude::new(90.5).expect_err("too far north").to_string(),
            "latitude 90.5 is outside -90 to 90"
        );
        assert!(Longitude::new(-180.1).is_err());
        assert!(Longitude::new(f64::NAN).is_err());
        assert!(Latitude::new(f64::INFINITY).is_err());
    }
}
