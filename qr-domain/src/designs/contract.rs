//! Contract checks of designs: records by id with their look and logo, tenant isolation, one default per account, and the service's rules (names, plans, the account's bound, links naming a design, removal while links use one).

use chrono::Duration;

use crate::accounts::caller::Caller;
use crate::accounts::plan::Plan;
use crate::contract::{link_for, service, setup, t};
use crate::designs::design::{Design, DesignLogo, DesignName, LogoType, MAX_DESIGNS};
use crate::designs::link_code::LinkCodeError;
use crate::designs::look::Look;
use crate::designs::service::{DesignError, DesignUpdate};
use crate::ids::{AccountId, DesignId};
use crate::links::link::{LinkError, LinkUpdate};
use crate::store::Store;

/// A 1x1 PNG, the smallest logo a check can store.
const PIXEL_PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0,
    0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
];

fn design_for(account: AccountId, name: &str, is_default: bool) -> Design {
    Design {
        id: DesignId::random(),
        account_id: account,
        name: DesignName::parse(name).expect("valid name"),
        look: Look::parse([("color", "1a237e"), ("style", "dots")]).expect("valid look"),
        logo: Some(DesignLogo::from_stored(LogoType::Png, PIXEL_PNG.to_vec())),
        is_default,
        created_at: t("2024-01-01T00:00:00Z"),
        updated_at: t("2024-01-01T00:00:00Z"),
    }
}

fn named(name: &str) -> DesignUpdate {
    let mut fields = DesignUpdate::default();
    fields.set_name(name).expect("valid name");
    fields
}

/// Designs come back as stored, by name, only to their account; one default per account.
pub fn designs_roundtrip_and_isolation<S: Store>(store: S) {
    let a = setup(&store, Plan::Pro);
    let b = setup(&store, Plan::Pro);
    let brand = design_for(a.id, "Brand", true);
    let mut plain = design_for(a.id, "Autumn", false);
    plain.logo = None;
    plain.look = Look::default();
    let other = design_for(b.id, "Other", true);
    store
        .write(|tx| {
            tx.insert_design(&brand)?;
            tx.insert_design(&plain)?;
            tx.insert_design(&other)
        })
        .unwrap();
    store
        .read(|tx| {
            assert_eq!(tx.design(a.id, brand.id)?, Some(brand.clone()));
            assert_eq!(tx.design(a.id, plain.id)?, Some(plain.clone()));
            assert_eq!(tx.design(b.id, brand.id)?, None, "another account's design");
            assert_eq!(tx.designs_of(a.id)?, vec![plain.clone(), brand.clone()]);
            assert_eq!(tx.count_designs(a.id)?, 2);
            assert_eq!(tx.default_design(a.id)?, Some(brand.clone()));
            assert_eq!(tx.default_design(b.id)?, Some(other.clone()));
            Ok::<_, crate::error::StoreError>(())
        })
        .unwrap();

    let mut changed = brand.clone();
    changed.name = DesignName::parse("Brand 2").unwrap();
    changed.look = Look::parse([("frame", "box"), ("frameText", "SCAN ME")]).unwrap();
    changed.logo = None;
    changed.updated_at = t("2024-02-01T00:00:00Z");
    let mut foreign = changed.clone();
    foreign.account_id = b.id;
    store
        .write(|tx| {
            assert!(!tx.update_design(&foreign)?, "another account's design");
            assert!(tx.update_design(&changed)?);
            tx.clear_default_design(a.id)
        })
        .unwrap();
    changed.is_default = false;
    store
        .read(|tx| {
            assert_eq!(tx.design(a.id, brand.id)?, Some(changed.clone()));
            assert_eq!(tx.default_design(a.id)?, None);
            assert_eq!(tx.default_design(b.id)?, Some(other.clone()), "untouched");
            Ok::<_, crate::error::StoreError>(())
        })
        .unwrap();
    store
        .write(|tx| {
            assert!(!tx.delete_design(b.id, brand.id)?);
            assert!(tx.delete_design(a.id, brand.id)?);
            assert!(!tx.delete_design(a.id, brand.id)?);
            Ok::<_, crate::error::StoreError>(())
        })
        .unwrap();
    assert_eq!(store.read(|tx| tx.designs_of(a.id)).unwrap(), vec![plain]);
    store.write(|tx| tx.delete_account(b.id)).unwrap();
    assert_eq!(store.read(|tx| tx.count_designs(b.id)).unwrap(), 0);
}

/// Links name a design of their account; the count of links naming one is per account.
pub fn links_name_designs<S: Store>(store: S) {
    let a = setup(&store, Plan::Pro);
    let design = design_for(a.id, "Brand", false);
    let mut link = link_for(a.id, "2024-01-01T00:00:00Z");
    link.design = Some(design.id);
    let plain = link_for(a.id, "2024-01-01T00:00:00Z");
    store
        .write(|tx| {
            tx.insert_design(&design)?;
            tx.insert_link(&link)?;
            tx.insert_link(&plain)
        })
        .unwrap();
    store
        .read(|tx| {
            assert_eq!(
                tx.link(a.id, link.id)?.and_then(|l| l.design),
                Some(design.id)
            );
            assert_eq!(tx.link(a.id, plain.id)?.and_then(|l| l.design), None);
            assert_eq!(tx.count_design_links(a.id, design.id)?, 1);
            Ok::<_, crate::error::StoreError>(())
        })
        .unwrap();
    let mut moved = link.clone();
    moved.design = None;
    store.write(|tx| tx.update_link(&moved)).unwrap();
    assert_eq!(
        store
            .read(|tx| tx.count_design_links(a.id, design.id))
            .unwrap(),
        0
    );
}

/// The service's rules: names, looks, plans for logos, the account's bound, one default,
/// links naming a design of their own account, and removal refused while links use it.
pub fn service_designs_and_their_links<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-05-01T10:00:00Z");
    let free = svc.create_account("free@example.com", Plan::Free).unwrap();
    let pro = svc.create_account("pro@example.com", Plan::Pro).unwrap();
    let other = svc.create_account("other@example.com", Plan::Pro).unwrap();

    assert!(matches!(
        svc.create_design(&Caller::operator(free.id), &DesignUpdate::default()),
        Err(DesignError::NameRequired)
    ));
    let mut with_logo = named("Logo");
    with_logo
        .set_logo(Some("image/png"), PIXEL_PNG.to_vec())
        .unwrap();
    assert_eq!(
        svc.create_design(&Caller::operator(free.id), &with_logo)
            .unwrap_err()
            .to_string(),
        "Logos require Pro plan"
    );
    let mut looked = named("Navy");
    looked.set_look([("color", "1a237e")]).unwrap();
    looked.set_default(true);
    let navy = svc
        .create_design(&Caller::operator(free.id), &looked)
        .unwrap();
    assert!(navy.is_default);
    assert_eq!(navy.look.get("color"), Some("1a237e"));

    let logo = svc
        .create_design(&Caller::operator(pro.id), &with_logo)
        .unwrap();
    assert_eq!(logo.logo.as_ref().map(|l| l.bytes()), Some(PIXEL_PNG));
    assert!(!logo.is_default);
    let mut first = named("First");
    first.set_default(true);
    let first = svc
        .create_design(&Caller::operator(pro.id), &first)
        .unwrap();
    clock.advance(Duration::minutes(1));
    let second = svc
        .set_default_design(&Caller::operator(pro.id), Some(logo.id))
        .unwrap()
        .unwrap();
    assert!(second.is_default);
    assert_eq!(second.updated_at, t("2024-05-01T10:01:00Z"));
    assert_eq!(
        svc.default_design(pro.id).unwrap().map(|d| d.id),
        Some(logo.id)
    );
    assert!(!svc.design(pro.id, first.id).unwrap().is_default);
    assert!(matches!(
        svc.design(other.id, logo.id),
        Err(DesignError::NotFound)
    ));
    assert!(matches!(
        svc.update_design(&Caller::operator(other.id), logo.id, &named("Mine")),
        Err(DesignError::NotFound)
    ));
    let mut rename = named("Renamed");
    rename.clear_logo();
    let renamed = svc
        .update_design(&Caller::operator(pro.id), logo.id, &rename)
        .unwrap();
    assert_eq!(
        (renamed.name.as_str(), renamed.logo.is_none()),
        ("Renamed", true)
    );
    assert!(renamed.is_default, "a change keeps the default");
    svc.set_default_design(&Caller::operator(pro.id), None)
        .unwrap();
    assert_eq!(svc.default_design(pro.id).unwrap(), None);
    let listed: Vec<String> = svc
        .designs(pro.id)
        .unwrap()
        .iter()
        .map(|d| d.name.to_string())
        .collect();
    assert_eq!(listed, ["First", "Renamed"]);

    // A link names a design of its own account; another's is "Design not found".
    let mut fields = LinkUpdate::parse(Some("Flyer"), Some("https://example.com/")).unwrap();
    fields.set_design(navy.id);
    assert!(matches!(
        svc.create_link_with(&Caller::operator(pro.id), fields.clone()),
        Err(LinkError::DesignNotFound)
    ));
    fields.set_design(first.id);
    let link = svc
        .create_link_with(&Caller::operator(pro.id), fields)
        .unwrap();
    assert_eq!(link.design, Some(first.id));
    assert_eq!(
        svc.design_for_link(&link).unwrap().map(|d| d.id),
        Some(first.id)
    );
    let mut update = LinkUpdate::default();
    update.set_design(navy.id);
    assert!(matches!(
        svc.update_link(&Caller::operator(pro.id), link.id, &update),
        Err(LinkError::DesignNotFound)
    ));
    let err = svc
        .delete_design(&Caller::operator(pro.id), first.id)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Design First is used by 1 link; change or delete them first"
    );
    let mut update = LinkUpdate::default();
    update.clear_design();
    let link = svc
        .update_link(&Caller::operator(pro.id), link.id, &update)
        .unwrap();
    assert_eq!(link.design, None);
    assert_eq!(
        svc.design_for_link(&link).unwrap(),
        None,
        "no default: plain"
    );
    svc.set_default_design(&Caller::operator(pro.id), Some(logo.id))
        .unwrap();
    assert_eq!(
        svc.design_for_link(&link).unwrap().map(|d| d.id),
        Some(logo.id)
    );
    svc.delete_design(&Caller::operator(pro.id), first.id)
        .unwrap();
    assert!(matches!(
        svc.delete_design(&Caller::operator(pro.id), first.id),
        Err(DesignError::NotFound)
    ));

    // The bound is per account.
    for n in svc.designs(other.id).unwrap().len() as u64..MAX_DESIGNS {
        svc.create_design(&Caller::operator(other.id), &named(&format!("D{n}")))
            .unwrap();
    }
    assert_eq!(
        svc.create_design(&Caller::operator(other.id), &named("One more"))
            .unwrap_err()
            .to_string(),
        "Design limit reached: an account holds at most 100 designs; delete one first"
    );
    svc.create_design(&Caller::operator(pro.id), &named("Still room"))
        .unwrap();
}

/// A link's code (`Service::link_code`): its short URL in the design it names, else the
/// account's default, else plain; a request's settings over the design's look; the logo drawn
/// while the plan includes logos and left out after a downgrade; another account's link not
/// found.
pub fn link_codes_follow_designs_and_plans<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-05-01T10:00:00Z");
    let pro = svc.create_account("codes@example.com", Plan::Pro).unwrap();
    let other = svc.create_account("other@example.com", Plan::Pro).unwrap();
    let navy = rgb(0x1a, 0x23, 0x7e);
    let base = "https://q.example";
    let plain_link = svc
        .create_link(&Caller::operator(pro.id), "Plain", "https://example.com/")
        .unwrap();
    let code = svc.link_code(&pro, plain_link.id, base, []).unwrap();
    assert_eq!(code.data(), plain_link.short_url(base));
    assert_eq!(code.options().color, rgb(0, 0, 0), "no design: plain");

    let mut brand = named("Brand");
    brand
        .set_look([("color", "1a237e"), ("style", "dots")])
        .unwrap();
    brand
        .set_logo(Some("image/png"), PIXEL_PNG.to_vec())
        .unwrap();
    brand.set_default(true);
    let brand = svc
        .create_design(&Caller::operator(pro.id), &brand)
        .unwrap();
    let code = svc.link_code(&pro, plain_link.id, base, []).unwrap();
    assert_eq!(code.options().color, navy, "the default design");
    assert!(code.options().logo.is_some(), "with its logo");
    // The request's settings come first; the address is always the content.
    let code = svc
        .link_code(
            &pro,
            plain_link.id,
            base,
            [
                ("color", "004d40"),
                ("format", "svg"),
                ("data", "elsewhere"),
            ],
        )
        .unwrap();
    assert_eq!(code.options().color, rgb(0x00, 0x4d, 0x40));
    assert_eq!(code.options().format, qr_core::Format::Svg);
    assert_eq!(code.data(), plain_link.short_url(base));
    assert!(matches!(
        svc.link_code(&pro, plain_link.id, base, [("color", "#000")]),
        Err(LinkCodeError::Generate(_))
    ));

    // A link naming a design is drawn in it, not in the default.
    let mut teal = named("Teal");
    teal.set_look([("color", "004d40")]).unwrap();
    let teal = svc.create_design(&Caller::operator(pro.id), &teal).unwrap();
    let mut fields = LinkUpdate::parse(Some("Teal"), Some("https://example.com/t")).unwrap();
    fields.set_design(teal.id);
    let teal_link = svc
        .create_link_with(&Caller::operator(pro.id), fields)
        .unwrap();
    let code = svc.link_code(&pro, teal_link.id, base, []).unwrap();
    assert_eq!(code.options().color, rgb(0x00, 0x4d, 0x40));
    assert!(code.options().logo.is_none());
    // Changes made here show at once (the service keeps links and designs for a second).
    let mut red = DesignUpdate::default();
    red.set_look([("color", "b71c1c")]).unwrap();
    svc.update_design(&Caller::operator(pro.id), teal.id, &red)
        .unwrap();
    let code = svc.link_code(&pro, teal_link.id, base, []).unwrap();
    assert_eq!(
        code.options().color,
        rgb(0xb7, 0x1c, 0x1c),
        "a design's change"
    );
    let mut back = LinkUpdate::default();
    back.clear_design();
    svc.update_link(&Caller::operator(pro.id), teal_link.id, &back)
        .unwrap();
    let code = svc.link_code(&pro, teal_link.id, base, []).unwrap();
    assert_eq!(
        code.options().color,
        navy,
        "a link's change: the default again"
    );
    svc.set_default_design(&Caller::operator(pro.id), None)
        .unwrap();
    let code = svc.link_code(&pro, teal_link.id, base, []).unwrap();
    assert_eq!(code.options().color, rgb(0, 0, 0), "no default: plain");
    svc.set_default_design(&Caller::operator(pro.id), Some(brand.id))
        .unwrap();

    // After a downgrade the look stays and the logo is left out.
    svc.set_plan(pro.id, Plan::Free).unwrap();
    let free = svc.account(pro.id).unwrap();
    let code = svc.link_code(&free, plain_link.id, base, []).unwrap();
    assert_eq!(code.options().color, navy);
    assert!(code.options().logo.is_none(), "no logo below Pro");
    assert!(brand.logo.is_some(), "the design keeps it");

    // Another account's link is not found.
    assert!(matches!(
        svc.link_code(&other, plain_link.id, base, []),
        Err(LinkCodeError::Link(LinkError::NotFound))
    ));
}

fn rgb(r: u8, g: u8, b: u8) -> qr_core::Color {
    qr_core::Color { r, g, b, a: 255 }
}
