//! Where an import puts each record: onto the one domain asked for (checked before anything is read against the store), or onto the record's own source domain when it is one of the account's, else onto the service's own address; a record whose own domain cannot take new links is refused with the domain's reason.
//!
//! The decision (docs/api.md): an export names where each code was printed. When that domain
//! is the account's here, the printed code keeps working only on it, so the record goes there;
//! every other source domain (`bit.ly`, a domain the account has not added) cannot be served
//! by this service, so its code lands on the service's own address, and the report says so for
//! every record, the dry run too. The domain's own rules (which domains take new links) stay
//! in `qr-domain`: [`Domain::refuses_links`].

use std::collections::HashMap;
use std::fmt;

use qr_domain::domains::domain::Domain;
use qr_domain::domains::name::DomainName;
use qr_domain::domains::service::DomainError;
use qr_domain::links::campaign::{DomainUnusable, FieldError, FieldRule, LinkField};
use qr_domain::links::link::LinkError;
use qr_domain::{Account, Clock, Service, Store};

use crate::import::ImportError;

/// Which domain an import's records go onto, as its caller asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DomainChoice {
    /// Each record onto its source domain when the account has it, else onto the service's
    /// own address (the CLI without `--domain`, the form's default).
    KeepEach,
    /// Every record onto this domain of the account (`--domain NAME`).
    Every(DomainName),
}

/// Why a chosen domain refuses the whole import, in the domain layer's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChosenDomainError {
    /// The account has no domain of this name (another account's alike, so its owner is
    /// never revealed).
    NotFound(DomainName),
    /// The account's domain takes no new links now.
    Unusable(DomainName, DomainUnusable),
}

impl fmt::Display for ChosenDomainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChosenDomainError::NotFound(name) => write!(f, "{name}: {}", DomainError::NotFound),
            ChosenDomainError::Unusable(name, why) => {
                write!(f, "{name}: {}", FieldRule::DomainUnusable(*why))
            }
        }
    }
}

/// A record's own domain that is the account's but takes no new links.
pub(crate) struct RefusedDomain {
    /// The domain.
    pub(crate) domain: DomainName,
    /// Why, in the words the link's creation would use.
    pub(crate) reason: String,
}

/// Where a record lands: its domain (`None`: the service's own address), or the refusal of
/// its own domain.
pub(crate) type Landing = Result<Option<DomainName>, RefusedDomain>;

/// The account's domains read once per import, with the choice applied record by record.
pub(crate) struct Placement {
    chosen: Option<DomainName>,
    /// Each of the account's domains with why it takes no new links (`None`: it takes them).
    own: HashMap<DomainName, Option<DomainUnusable>>,
}

impl Placement {
    /// Reads the account's domains; a chosen domain that is not the account's, or takes no new
    /// links, refuses the whole import before any record is looked at.
    pub(crate) fn read<S: Store, C: Clock>(
        service: &Service<S, C>,
        account: &Account,
        choice: &DomainChoice,
    ) -> Result<Self, ImportError> {
        let now = service.now();
        let own: HashMap<DomainName, Option<DomainUnusable>> = service
            .domains(account.id)?
            .into_iter()
            .map(|domain: Domain| {
                let why = domain.refuses_links(now);
                (domain.name, why)
            })
            .collect();
        let chosen = match choice {
            DomainChoice::KeepEach => None,
            DomainChoice::Every(name) => match own.get(name) {
                None => return Err(ChosenDomainError::NotFound(name.clone()).into()),
                Some(Some(why)) => {
                    return Err(ChosenDomainError::Unusable(name.clone(), *why).into());
                }
                Some(None) => Some(name.clone()),
            },
        };
        Ok(Self { chosen, own })
    }

    /// Where a record printed on `source` (the export's text, if it names one) lands.
    pub(crate) fn land(&self, source: Option<&str>) -> Landing {
        if let Some(chosen) = &self.chosen {
            return Ok(Some(chosen.clone()));
        }
        // Compared as domain names: IDNA-normalised and case-insensitive, so an export's
        // `Go.Brand.Example` or its Unicode spelling is the account's `go.brand.example`.
        let Some(name) = source.and_then(|s| DomainName::parse_any(s).ok()) else {
            return Ok(None);
        };
        match self.own.get(&name) {
            None => Ok(None),
            Some(None) => Ok(Some(name)),
            Some(Some(why)) => Err(RefusedDomain {
                reason: LinkError::Field(FieldError::new(
                    LinkField::Domain,
                    FieldRule::DomainUnusable(*why),
                ))
                .to_string(),
                domain: name,
            }),
        }
    }
}

/// A landing place as reports and messages name it: the domain, or the service's own address.
pub fn place_name(domain: Option<&DomainName>) -> String {
    match domain {
        Some(name) => name.to_string(),
        None => SERVICE_ADDRESS.to_owned(),
    }
}

/// How the service's own address is named where a domain would be.
pub const SERVICE_ADDRESS: &str = "the service's own address";
