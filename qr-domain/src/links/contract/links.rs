//! Contract checks of links themselves: tenant isolation, tombstoned codes and the short-code
//! lookup.

use crate::accounts::caller::Caller;
use crate::accounts::plan::Plan;
use crate::contract::{PHONE, link_for, service, setup, visit};
use crate::links::link::LinkName;
use crate::links::shortcode::ShortCode;
use crate::service::{Resolution, ScanOutcome};
use crate::store::Store;

/// Another account's link is absent for every link operation.
pub fn links_are_isolated_per_account<S: Store>(store: S) {
    let a = setup(&store, Plan::Free);
    let b = setup(&store, Plan::Free);
    let l = link_for(a.id, "2024-01-02T00:00:00Z");
    store.write(|tx| tx.insert_link(&l)).unwrap();
    assert_eq!(
        store.read(|tx| tx.link(a.id, l.id)).unwrap(),
        Some(l.clone())
    );
    assert_eq!(store.read(|tx| tx.link(b.id, l.id)).unwrap(), None);
    assert_eq!(store.read(|tx| tx.links_of(b.id)).unwrap(), vec![]);
    assert_eq!(store.read(|tx| tx.count_links(a.id)).unwrap(), 1);
    assert_eq!(store.read(|tx| tx.count_links(b.id)).unwrap(), 0);
    let mut stolen = l.clone();
    stolen.account_id = b.id;
    stolen.name = LinkName::parse("mine now").unwrap();
    assert!(!store.write(|tx| tx.update_link(&stolen)).unwrap());
    assert!(!store.write(|tx| tx.delete_link(b.id, l.id)).unwrap());
    assert_eq!(store.read(|tx| tx.link(a.id, l.id)).unwrap(), Some(l));
}

/// A deleted link's code stays taken and cannot be inserted again.
pub fn deleted_codes_are_tombstoned<S: Store>(store: S) {
    let a = setup(&store, Plan::Free);
    let l = link_for(a.id, "2024-01-02T00:00:00Z");
    store.write(|tx| tx.insert_link(&l)).unwrap();
    assert!(store.read(|tx| tx.code_taken(None, &l.short_code)).unwrap());
    assert_eq!(
        store
            .read(|tx| tx.link_by_code(None, &l.short_code))
            .unwrap()
            .map(|x| x.id),
        Some(l.id)
    );
    assert!(store.write(|tx| tx.delete_link(a.id, l.id)).unwrap());
    assert_eq!(
        store
            .read(|tx| tx.link_by_code(None, &l.short_code))
            .unwrap(),
        None
    );
    assert!(store.read(|tx| tx.code_taken(None, &l.short_code)).unwrap());
    let mut again = link_for(a.id, "2024-01-03T00:00:00Z");
    again.short_code = l.short_code;
    assert!(store.write(|tx| tx.insert_link(&again)).is_err());
}

/// Short codes resolve case-insensitively with Crockford aliases; a deleted code is gone, never
/// live again; a malformed or never issued code is unknown.
pub fn service_short_code_lookup<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-05-01T10:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let l = svc
        .create_link(&Caller::operator(a.id), "L", "https://example.com")
        .unwrap();
    let code = l.short_code.to_string();
    let aliased: String = code
        .chars()
        .map(|c| match c {
            '0' => 'o',
            '1' => 'l',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    assert_eq!(
        svc.resolve(None, &aliased).unwrap(),
        Resolution::Live(l.clone())
    );
    assert_eq!(
        svc.resolve(None, "not a code").unwrap(),
        Resolution::Unknown
    );
    let never_issued = ShortCode::generate().unwrap();
    assert_eq!(
        svc.resolve(None, never_issued.as_str()).unwrap(),
        Resolution::Unknown
    );
    svc.delete_link(&Caller::operator(a.id), l.id).unwrap();
    assert_eq!(svc.resolve(None, &code).unwrap(), Resolution::Gone);
    assert_eq!(svc.resolve(None, &aliased).unwrap(), Resolution::Gone);
    assert_eq!(
        svc.record_scan(&l, &visit("192.0.2.1", PHONE)).unwrap(),
        ScanOutcome::LinkGone
    );
}
