//! Identifiers of accounts (workspaces), users, invitations, keys, links, domains, designs and scans.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

macro_rules! uuid_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(Uuid);

        impl $name {
            /// Draws a new random (version 4) identifier.
            pub fn random() -> Self {
                Self(Uuid::new_v4())
            }

            /// Wraps an existing UUID, as read back from storage.
            pub fn from_uuid(uuid: Uuid) -> Self {
                Self(uuid)
            }

            /// The UUID inside.
            pub fn as_uuid(&self) -> Uuid {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.hyphenated().fmt(f)
            }
        }

        impl FromStr for $name {
            type Err = uuid::Error;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Uuid::parse_str(s.trim()).map(Self)
            }
        }
    };
}

uuid_id!(
    /// Identifier of an account.
    AccountId
);
uuid_id!(
    /// Identifier of an API key; it survives regeneration of the key's secret.
    KeyId
);
uuid_id!(
    /// Identifier of a dynamic link (the spec's `id`, UUID format).
    LinkId
);
uuid_id!(
    /// Identifier of a customer's domain.
    DomainId
);
uuid_id!(
    /// Identifier of a saved design (a named look of codes).
    DesignId
);
uuid_id!(
    /// Identifier of a user: a person who logs in and belongs to workspaces (accounts).
    UserId
);
uuid_id!(
    /// Identifier of an invitation to a workspace; it survives resending (a new token).
    InvitationId
);

/// Identifier of a recorded scan, assigned by the store in increasing order.
///
/// It serializes as a string (the spec's scan record has `id: string`) and deserializes
/// from a string or a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScanId(pub i64);

impl Serialize for ScanId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for ScanId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Repr {
            Number(i64),
            Text(String),
        }
        match Repr::deserialize(deserializer)? {
            Repr::Number(n) => Ok(Self(n)),
            Repr::Text(s) => s.parse().map(Self).map_err(serde::de::Error::custom),
        }
    }
}

impl fmt::Display for ScanId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_ids_are_strings_on_the_wire() {
        assert_eq!(serde_json::to_string(&ScanId(42)).unwrap(), "\"42\"");
        assert_eq!(serde_json::from_str::<ScanId>("\"7\"").unwrap(), ScanId(7));
        assert_eq!(serde_json::from_str::<ScanId>("7").unwrap(), ScanId(7));
    }
}
