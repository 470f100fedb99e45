//! Every content helper's payload, encoded and rendered to PNG, decodes back with rqrr to exactly
//! the payload string: what a phone's reader receives is what the builder wrote.

use qr_core::content::{
    Bic, CalendarEvent, EmailAddress, EpcAmount, EpcTransfer, GeoLocation, Iban, Latitude,
    Longitude, Mailto, MeCard, PersonName, PhoneKind, PhoneNumber, PostalAddress, Remittance, Sms,
    Telephone, UtcDateTime, VCard, VCardVersion, WebUrl, WifiNetwork, WifiSecurity,
};
use qr_core::{EcLevel, RenderOptions, Size, render};

/// Renders `payload` as a PNG and asserts that it decodes to exactly the same bytes.
fn assert_round_trip(payload: &str) {
    let options = RenderOptions::default()
        .with_ec_level(EcLevel::M)
        .with_size(Size::new(600).expect("a valid size"));
    let png = render(payload, &options).expect("the payload fits");
    let decoded = qr_test_support::decode(&qr_test_support::png_luma(&png))
        .unwrap_or_else(|e| panic!("{e}: {payload:?}"));
    assert_eq!(String::from_utf8_lossy(&decoded), payload);
}

fn phone(number: &str) -> PhoneNumber {
    PhoneNumber::new(number).expect("a valid number")
}

fn email(address: &str) -> EmailAddress {
    EmailAddress::new(address).expect("a valid address")
}

#[test]
fn wifi_payloads_decode() {
    let wpa = WifiSecurity::wpa(r#"pa;ss,wo:rd"\"#).expect("valid");
    let hidden = WifiNetwork::new("Café; 5 GHz", wpa)
        .expect("valid")
        .with_hidden(true);
    assert_round_trip(&hidden.payload());
    let open = WifiNetwork::new("Guest", WifiSecurity::Open).expect("valid");
    assert_round_trip(&open.payload());
}

#[test]
fn contact_payloads_decode() {
    let name = PersonName::new("Jürgen", "Müller, Jr.").expect("valid");
    let address = PostalAddress {
        street: "Hauptstraße 1".into(),
        locality: "Köln".into(),
        postal_code: "50667".into(),
        country: "Germany".into(),
        ..PostalAddress::default()
    };
    for version in [VCardVersion::V3, VCardVersion::V4] {
        let card = VCard::new(version, name.clone())
            .with_organization(
                "Beispiel Gesellschaft mit beschränkter Haftung; Abteilung Qualitätssicherung",
            )
            .expect("valid")
            .with_phone(PhoneKind::Cell, phone("+49 170 1234567"))
            .with_phone(PhoneKind::Work, phone("+49 221 987654"))
            .with_email(email("j.mueller@example.de"))
            .with_address(address.clone())
            .expect("valid")
            .with_url(WebUrl::new("https://example.de/team/mueller").expect("valid"));
        let payload = card.payload();
        assert!(payload.contains("\r\n "), "the ORG line is folded");
        assert_round_trip(&payload);
    }
    let mecard = MeCard::new(name)
        .with_phone(PhoneKind::Home, phone("0221 123456"))
        .with_email(email("j.mueller@example.de"))
        .with_address(address)
        .expect("valid");
    assert_round_trip(&mecard.payload());
}

#[test]
fn location_and_messaging_payloads_decode() {
    let geo = GeoLocation::new(
        Latitude::new(-33.856_784).expect("valid"),
        Longitude::new(151.215_297).expect("valid"),
    );
    assert_round_trip(&geo.payload());
    let mail = Mailto::new(email("support@example.com"))
        .with_subject("Order #123 & refund?")
        .expect("valid")
        .with_body("Hello,\nplease help.\n— Jane")
        .expect("valid");
    assert_round_trip(&mail.payload());
    let sms = Sms::new(phone("+1 555 0100"))
        .with_message("Running late: 10 min")
        .expect("valid");
    assert_round_trip(&sms.payload());
    assert_round_trip(&Telephone::new(phone("+44 20 7946 0958")).payload());
}

#[test]
fn calendar_payload_decodes() {
    let start = UtcDateTime::new(2025, 6, 1, 17, 0, 0).expect("valid");
    let end = UtcDateTime::new(2025, 6, 1, 21, 30, 0).expect("valid");
    let event = CalendarEvent::new("Summer party, rooftop; bring friends", start)
        .expect("valid")
        .with_end(end)
        .expect("valid")
        .with_location("Rooftop, 10 Main St")
        .expect("valid")
        .with_description(
            "Food\nDrinks\\Music and a description long enough to be folded twice over",
        )
        .expect("valid");
    assert_round_trip(&event.payload());
}

#[test]
fn epc_payloads_decode() {
    let transfer = EpcTransfer::new(
        "Deutsches Rotes Kreuz",
        Iban::new("DE89 3704 0044 0532 0130 00").expect("valid"),
        None,
    )
    .expect("valid")
    .with_amount(EpcAmount::from_cents(5_000).expect("valid"))
    .expect("fits")
    .with_remittance(Remittance::text("Spende Hochwasser 2025").expect("valid"))
    .expect("fits");
    assert_round_trip(&transfer.payload());
    let with_bic = EpcTransfer::new(
        "Acme AG",
        Iban::new("CH9300762011623852957").expect("valid"),
        Some(Bic::new("UBSWCHZH80A").expect("valid")),
    )
    .expect("valid")
    .with_remittance(Remittance::reference("RF18539007547034").expect("valid"))
    .expect("fits");
    assert_round_trip(&with_bic.payload());
}
