//! Content types (`type=wifi` and the others) and Micro QR codes (`symbol=micro`) over real HTTP: every type's image decodes back to its exact payload, every field's refusal is a 400 naming it, and Micro QR images read back with ZXing-C++.

use crate::common;

use common::{TestServer, decode_png, query};
use serde_json::Value;

async fn generate(s: &TestServer, pairs: &[(&str, &str)]) -> common::Resp {
    s.get(&format!("/api/generate?{}", query(pairs)), &s.owner_key)
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_content_type_decodes_to_its_exact_payload() {
    let s = TestServer::start(|_| {}).await;
    let cases: &[(&[(&str, &str)], &str)] = &[
        (
            &[
                ("type", "wifi"),
                ("ssid", "Home; 5G"),
                ("password", "correct horse"),
                ("encryption", "WPA"),
            ],
            r"WIFI:T:WPA;S:Home\; 5G;P:correct horse;;",
        ),
        (
            &[
                ("type", "wifi"),
                ("ssid", "Cafe"),
                ("encryption", "nopass"),
                ("hidden", "true"),
            ],
            "WIFI:T:nopass;S:Cafe;H:true;;",
        ),
        (
            &[
                ("type", "vcard"),
                ("firstName", "Jane"),
                ("lastName", "Doe"),
                ("org", "ACME, Inc."),
                ("phone", "+1 555 0100"),
                ("email", "jane@example.com"),
                ("street", "1 Main St"),
                ("city", "Springfield"),
                ("country", "USA"),
                ("url", "https://example.com"),
            ],
            "BEGIN:VCARD\r\nVERSION:3.0\r\nN:Doe;Jane;;;\r\nFN:Jane Doe\r\nORG:ACME\\, Inc.\r\n\
             TEL;TYPE=CELL:+1 555 0100\r\nEMAIL;TYPE=INTERNET:jane@example.com\r\n\
             ADR:;;1 Main St;Springfield;;;USA\r\nURL:https://example.com\r\nEND:VCARD\r\n",
        ),
        (
            &[
                ("type", "vcard"),
                ("version", "4"),
                ("lastName", "Doe"),
                ("workPhone", "+1 (555) 0199"),
            ],
            "BEGIN:VCARD\r\nVERSION:4.0\r\nN:Doe;;;;\r\nFN:Doe\r\n\
             TEL;VALUE=uri;TYPE=work:tel:+15550199\r\nEND:VCARD\r\n",
        ),
        (
            &[
                ("type", "mecard"),
                ("firstName", "Jane"),
                ("lastName", "Doe"),
                ("phone", "03-1234-5678"),
                ("email", "jane@example.com"),
            ],
            "MECARD:N:Doe,Jane;TEL:0312345678;EMAIL:jane@example.com;;",
        ),
        (
            &[
                ("type", "geo"),
                ("latitude", "48.8584"),
                ("longitude", "2.2945"),
            ],
            "geo:48.8584,2.2945",
        ),
        (
            &[
                ("type", "email"),
                ("to", "jane@example.com"),
                ("subject", "Hi there"),
                ("body", "Line 1\nLine 2"),
            ],
            "mailto:jane@example.com?subject=Hi%20there&body=Line%201%0D%0ALine%202",
        ),
        (
            &[("type", "mailto"), ("to", "jane@example.com")],
            "mailto:jane@example.com",
        ),
        (
            &[
                ("type", "sms"),
                ("phone", "+1 555 0100"),
                ("message", "On my way"),
            ],
            "SMSTO:+15550100:On my way",
        ),
        (
            &[("type", "tel"), ("phone", "+1 555 0100")],
            "tel:+15550100",
        ),
        (
            &[
                ("type", "event"),
                ("summary", "Team meeting"),
                ("start", "2025-03-14T09:30:00Z"),
                ("end", "2025-03-14T10:30:00Z"),
                ("location", "Room 4"),
            ],
            "BEGIN:VEVENT\r\nSUMMARY:Team meeting\r\nDTSTART:20250314T093000Z\r\n\
             DTEND:20250314T103000Z\r\nLOCATION:Room 4\r\nEND:VEVENT\r\n",
        ),
        (
            &[
                ("type", "epc"),
                ("name", "Red Cross"),
                ("iban", "DE89 3704 0044 0532 0130 00"),
                ("bic", "COBADEFFXXX"),
                ("amount", "12.3"),
                ("reference", "RF18539007547034"),
            ],
            "BCD\n002\n1\nSCT\nCOBADEFFXXX\nRed Cross\nDE89370400440532013000\nEUR12.30\n\nRF18539007547034",
        ),
    ];
    for (pairs, payload) in cases {
        let r = generate(&s, pairs).await;
        assert_eq!(r.status, 200, "{pairs:?}: {}", r.text());
        assert_eq!(decode_png(&r.body), *payload, "{pairs:?}");
    }
    // Content types take every render option: an SVG with a style decodes too.
    let r = generate(
        &s,
        &[
            ("type", "tel"),
            ("phone", "+1 555 0100"),
            ("format", "svg"),
            ("style", "rounded"),
        ],
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(qr_test_support::decode_image(&r.body), "tel:+15550100");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_field_refusal_is_a_400_naming_the_field() {
    let s = TestServer::start(|_| {}).await;
    let cases: &[(&[(&str, &str)], &str)] = &[
        (
            &[("type", "wifi"), ("data", "x")],
            "data and type cannot be combined: send data, or type with its fields",
        ),
        (
            &[("type", "fax")],
            "Invalid type: expected one of wifi, vcard, mecard, geo, email, sms, tel, event, epc",
        ),
        (&[("type", "wifi")], "ssid parameter required for type=wifi"),
        (
            &[("type", "wifi"), ("ssid", &"x".repeat(33))],
            "Invalid ssid: SSID is 33 bytes long; at most 32 are allowed",
        ),
        (
            &[("type", "wifi"), ("ssid", "x"), ("encryption", "WPA")],
            "password parameter required for type=wifi",
        ),
        (
            &[("type", "wifi"), ("ssid", "x"), ("password", "short")],
            "Invalid password: WPA passphrase is 5 characters long; at least 8 are needed",
        ),
        (
            &[("type", "wifi"), ("ssid", "x"), ("encryption", "WPA4")],
            "Invalid encryption: expected WPA, WEP or nopass",
        ),
        (
            &[("type", "wifi"), ("ssid", "x"), ("hidden", "yes")],
            "Invalid hidden: expected true or false",
        ),
        (
            &[("type", "vcard"), ("org", "ACME")],
            "firstName or lastName parameter required for type=vcard",
        ),
        (
            &[("type", "vcard"), ("lastName", "Doe"), ("version", "2")],
            "Invalid version: expected 3 or 4",
        ),
        (
            &[("type", "vcard"), ("lastName", "Doe\u{7}")],
            "Invalid lastName: family name contains '\\u{7}', which is not allowed there",
        ),
        (
            &[
                ("type", "mecard"),
                ("lastName", "Doe"),
                ("url", "example.com"),
            ],
            "Invalid url: ",
        ),
        (
            &[("type", "mecard"), ("lastName", "Doe"), ("email", "nope")],
            "Invalid email: ",
        ),
        (
            &[("type", "vcard"), ("lastName", "Doe"), ("workPhone", "12")],
            "Invalid workPhone: ",
        ),
        (
            &[("type", "geo"), ("latitude", "91"), ("longitude", "0")],
            "Invalid latitude: latitude 91 is outside -90 to 90",
        ),
        (
            &[("type", "geo"), ("latitude", "0"), ("longitude", "east")],
            "Invalid longitude: expected a decimal number of degrees, like 48.8584",
        ),
        (&[("type", "email")], "to parameter required for type=email"),
        (
            &[
                ("type", "email"),
                ("to", "jane@example.com"),
                ("subject", "a\nb"),
            ],
            "Invalid subject: ",
        ),
        (&[("type", "sms")], "phone parameter required for type=sms"),
        (&[("type", "tel"), ("phone", "call me")], "Invalid phone: "),
        (
            &[("type", "event"), ("summary", "x")],
            "start parameter required for type=event",
        ),
        (
            &[
                ("type", "event"),
                ("summary", "x"),
                ("start", "2025-13-01T00:00Z"),
            ],
            "Invalid start: month 13 is outside 1 to 12",
        ),
        (
            &[
                ("type", "event"),
                ("summary", "x"),
                ("start", "2025-03-14T10:00Z"),
                ("end", "2025-03-14T09:00Z"),
            ],
            "Invalid end: the event ends (20250314T090000Z) before it starts (20250314T100000Z)",
        ),
        (
            &[("type", "epc"), ("iban", "DE89370400440532013000")],
            "name parameter required for type=epc",
        ),
        (
            &[
                ("type", "epc"),
                ("name", "x"),
                ("iban", "DE89370400440532013001"),
            ],
            "Invalid iban: IBAN DE89370400440532013001 fails its mod-97 check: a character is probably mistyped",
        ),
        (
            &[
                ("type", "epc"),
                ("name", "x"),
                ("iban", "GB82WEST12345698765432"),
            ],
            "Invalid bic: a BIC is required for an IBAN from GB, which is outside the EEA",
        ),
        (
            &[
                ("type", "epc"),
                ("name", "x"),
                ("iban", "DE89370400440532013000"),
                ("amount", "-5"),
            ],
            "Invalid amount: expected euros with at most 2 decimals, like 12.30",
        ),
        (
            &[
                ("type", "epc"),
                ("name", "x"),
                ("iban", "DE89370400440532013000"),
                ("reference", "RF18"),
                ("message", "thanks"),
            ],
            "Invalid message: expected a reference or a message, not both",
        ),
    ];
    for (pairs, message) in cases {
        let r = generate(&s, pairs).await;
        assert_eq!(r.status, 400, "{pairs:?}: {}", r.text());
        let body = r.json();
        let text = body["message"].as_str().unwrap_or_default();
        assert!(
            text == *message || (message.ends_with(": ") && text.starts_with(message)),
            "{pairs:?}: {text:?}"
        );
    }
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_items_take_a_type_and_defaults_may_not() {
    let s = TestServer::start(|_| {}).await;
    let body = serde_json::json!({"items": [
        {"type": "wifi", "ssid": "Guest", "password": "welcome-2025", "filename": "wifi"},
        {"type": "geo", "latitude": 48.8584, "longitude": 2.2945},
        {"type": "wifi", "data": "x"}
    ]});
    let r = s
        .send(
            "POST",
            "/api/batch",
            &[
                ("x-api-key", &s.owner_key),
                ("content-type", "application/json"),
            ],
            body.to_string(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(r.body.to_vec())).unwrap();
    let mut read = |name: &str| {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut zip.by_name(name).unwrap(), &mut bytes).unwrap();
        bytes
    };
    assert_eq!(
        decode_png(&read("wifi.png")),
        "WIFI:T:WPA;S:Guest;P:welcome-2025;;"
    );
    assert_eq!(decode_png(&read("qr-002.png")), "geo:48.8584,2.2945");
    let errors: Value = serde_json::from_slice(&read("errors.json")).unwrap();
    assert_eq!(errors["errors"][0]["index"], 2);
    assert_eq!(
        errors["errors"][0]["error"],
        "data and type cannot be combined: send data, or type with its fields"
    );
    let r = s
        .send(
            "POST",
            "/api/batch",
            &[
                ("x-api-key", &s.owner_key),
                ("content-type", "application/json"),
            ],
            r#"{"items":[{"ssid":"x"}],"defaults":{"type":"wifi"}}"#.to_owned(),
        )
        .await;
    r.assert_error(400, "Invalid defaults.type");
    s.stop().await;
}

/// A grey PNG of a rasterised image, for ZXingReader.
fn luma_png(image: &qr_test_support::Luma) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, image.width as u32, image.height as u32);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(&image.pixels).unwrap();
    writer.finish().unwrap();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn micro_qr_codes_read_back_with_zxing() {
    const SUITE: &str = "Micro QR over HTTP";
    let s = TestServer::start(|_| {}).await;
    // The request, the text it encodes, and the image format.
    type Case<'a> = (&'a [(&'a str, &'a str)], &'a str, &'a str);
    let cases: &[Case<'_>] = &[
        (&[("data", "12345"), ("symbol", "micro")], "12345", "PNG"),
        (
            &[
                ("data", "HELLO 42"),
                ("symbol", "micro"),
                ("format", "svg"),
                ("size", "120"),
            ],
            "HELLO 42",
            "SVG",
        ),
        (
            &[
                ("data", "qr.io/abc"),
                ("symbol", "MICRO"),
                ("errorCorrection", "L"),
                ("color", "1a237e"),
                ("background", "fffde7"),
            ],
            "qr.io/abc",
            "PNG",
        ),
        (
            &[
                ("type", "tel"),
                ("phone", "+1 555 0100"),
                ("symbol", "micro"),
                ("errorCorrection", "L"),
            ],
            "tel:+15550100",
            "PNG",
        ),
    ];
    for (pairs, text, kind) in cases {
        let r = generate(&s, pairs).await;
        assert_eq!(r.status, 200, "{pairs:?}: {}", r.text());
        let png = match *kind {
            "SVG" => {
                assert_eq!(r.header("content-type"), Some("image/svg+xml"));
                luma_png(&qr_test_support::svg_luma(&r.body))
            }
            _ => {
                assert_eq!(r.header("content-type"), Some("image/png"));
                r.body.to_vec()
            }
        };
        let Some(readings) = qr_test_support::zxing::read(SUITE, "MicroQRCode", &png) else {
            s.stop().await;
            return;
        };
        assert_eq!(readings.len(), 1, "{pairs:?}");
        // ZXingReader prints the text in quotes.
        let quoted = format!("\"{text}\"");
        assert_eq!(
            readings[0].field("Text"),
            Some(quoted.as_str()),
            "{pairs:?}"
        );
        assert_eq!(readings[0].field("Format"), Some("MicroQRCode"));
    }
    // The quiet zone is 2 modules unless margin says otherwise: "12345" at level L is M1, 11
    // modules, so 15 modules in 150 px are 10 px each, and the first dark pixel is at 20.
    let micro = [
        ("data", "12345"),
        ("symbol", "micro"),
        ("errorCorrection", "L"),
    ];
    let r = generate(&s, &[&micro[..], &[("size", "150")]].concat()).await;
    let image = qr_test_support::png_luma(&r.body);
    let first_dark = image.pixels.iter().position(|&p| p < 128).unwrap();
    assert_eq!((first_dark % 150, first_dark / 150), (20, 20));
    let r = generate(
        &s,
        &[&micro[..], &[("size", "150"), ("margin", "0")]].concat(),
    )
    .await;
    let image = qr_test_support::png_luma(&r.body);
    let first_dark = image.pixels.iter().position(|&p| p < 128).unwrap();
    // 11 modules in 150 px are 13 px each, 7 px left over: 3 on the left and top.
    assert_eq!((first_dark % 150, first_dark / 150), (3, 3));

    let refusals: &[(&[(&str, &str)], &str)] = &[
        (
            &[("data", "1"), ("symbol", "micro"), ("style", "dots")],
            "Invalid style for symbol=micro: Micro QR codes are drawn plain (square modules, one colour)",
        ),
        (
            &[("data", "1"), ("symbol", "micro"), ("format", "pdf")],
            "Invalid format for symbol=micro: Micro QR codes are written as png or svg",
        ),
        (
            &[("data", "1"), ("symbol", "micro"), ("errorCorrection", "H")],
            "Invalid errorCorrection for symbol=micro: Micro QR codes have levels L, M and Q",
        ),
        (
            &[("data", "1"), ("symbol", "micro"), ("verify", "true")],
            "Invalid verify for symbol=micro: the built-in decoder reads no Micro QR; test the code with ZXing or a phone",
        ),
        (
            &[
                ("data", "1"),
                ("symbol", "micro"),
                ("logo", "https://example.com/logo.png"),
            ],
            "Invalid logo for symbol=micro: a Micro QR code has too little error correction to carry a logo",
        ),
        (
            &[("data", &"9".repeat(36)), ("symbol", "micro")],
            "Data too long for a Micro QR code at error correction level M: at most 30 digits fit; use symbol=qr",
        ),
        (
            &[("data", "1"), ("symbol", "nano")],
            "Invalid symbol: expected qr or micro",
        ),
        (
            &[("data", "1"), ("symbol", "micro"), ("color", "eeeeee")],
            "Contrast too low: color on the background is 1.16:1, at least 3:1 is needed for the code to scan",
        ),
    ];
    for (pairs, message) in refusals {
        generate(&s, pairs).await.assert_error(400, message);
    }
    s.stop().await;
}
