//! Shared inputs for the criterion benchmarks and version tests in this folder.

use qr_core::{
    EcLevel, FinderStyle, Frame, FrameStyle, FrameText, Gradient, GradientKind, ModuleStyle,
    RenderOptions,
};

/// A short link of the kind the service issues: 33 characters, byte mode as a whole.
pub const URL: &str = "https://qr.example.com/r/7K3M9QXZ";

/// A fixed 300-character ASCII message mixing words, digits, punctuation, an e-mail address and a link.
pub const TEXT_300: &str = "Order #48213-B confirmed. Pickup: Mon 14 Oct 2024, 09:30-11:00 at \
Dock 7, 1850 Harbor Way, Oakland CA 94607. Contact Jamie Ortiz on +1 (510) 555-0142 or \
ops@example.com. Bring photo ID and this code; gate staff scan it at entry. Parking lot C, \
bays 12-40. Details: https://qr.example.com/o/48213B?s=1";

const _: () = assert!(TEXT_300.len() == 300);

/// The most bytes a QR code holds in byte mode: version 40 at level L.
pub const MAX_BYTES: usize = 2953;

/// One benchmark input: a name for reports, the data, and the error-correction level to ask for.
#[derive(Clone, Debug)]
pub struct Case {
    /// A short identifier used in benchmark names and tables.
    pub name: &'static str,
    /// The text to encode.
    pub data: String,
    /// The requested level: M, except L for the maximum input (which only fits at L).
    pub level: EcLevel,
}

/// The benchmark inputs in order: the short link, the 300-character text, and the largest input.
pub fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "url_33",
            data: URL.to_owned(),
            level: EcLevel::M,
        },
        Case {
            name: "text_300",
            data: TEXT_300.to_owned(),
            level: EcLevel::M,
        },
        Case {
            name: "max_2953",
            data: "a".repeat(MAX_BYTES),
            level: EcLevel::L,
        },
    ]
}

/// The styled rendering cases of `styles.rs` and `bin/render_once.rs`: a name and the options
/// (300 px, level M; the format is set by the caller).
pub fn style_cases() -> Vec<(&'static str, RenderOptions)> {
    let colour = |hex| qr_core::Color::parse_hex(hex).expect("valid colour");
    let gradient = RenderOptions::default()
        .with_style(ModuleStyle::Rounded)
        .with_color(colour("1a237e"))
        .with_gradient(Gradient::new(GradientKind::Linear, colour("6a1b9a")));
    let framed = RenderOptions::default()
        .with_style(ModuleStyle::Rounded)
        .with_finder_style(FinderStyle::Rounded)
        .with_frame(
            Frame::new(FrameStyle::BannerBottom)
                .with_text(FrameText::new("SCAN ME").expect("valid")),
        );
    vec![
        ("plain", RenderOptions::default()),
        (
            "rounded",
            RenderOptions::default().with_style(ModuleStyle::Rounded),
        ),
        (
            "dots",
            RenderOptions::default().with_style(ModuleStyle::Dots),
        ),
        (
            "connected",
            RenderOptions::default().with_style(ModuleStyle::Connected),
        ),
        ("rounded_gradient", gradient),
        ("rounded_frame", framed),
    ]
}
