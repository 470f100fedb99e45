//! The entries of the generate-parameter table, one `const` per parameter in the API's order, and [`PARAMETERS`] with the names the query parser reads as settings; the types they are made of are in the parent module.

use qr_core::{Format, FrameText};

use super::{
    Applies, Choices, Cli, Control, FRAME_TEXT_PATTERN, LOGO_URL_PATTERN, MAX_LOGO_URL_CHARS,
    Parameter, Reader,
};
use crate::bounds::{
    MAX_DATA_CHARS, MAX_DPI, MAX_LOGO_SIZE, MAX_MARGIN, MAX_PRINT_SIZE, MAX_SIZE, MIN_DPI,
    MIN_LOGO_SIZE, MIN_PRINT_SIZE, MIN_SIZE,
};

/// Every format.
const ALL_FORMATS: Applies = Applies {
    formats: Format::ALL,
    micro: true,
};
/// Every format, regular QR codes only.
const QR_ONLY: Applies = Applies {
    formats: Format::ALL,
    micro: false,
};

/// Helper for the table: a parameter every format and symbol takes, read as a setting.
const fn setting(
    name: &'static str,
    label: &'static str,
    description: &'static str,
    control: Control,
    default: Option<&'static str>,
    example: Option<&'static str>,
    cli: Cli,
) -> Parameter {
    Parameter {
        name,
        label,
        description,
        schema_note: None,
        required: false,
        control,
        default,
        example,
        applies: ALL_FORMATS,
        cli,
        reader: Reader::Setting,
    }
}

/// `data`.
pub const DATA: Parameter = setting(
    "data",
    "Content to encode",
    "Content to encode (at most 2,953 characters); required unless type is given, and not with type",
    Control::Data {
        max_chars: MAX_DATA_CHARS,
    },
    None,
    Some("https://example.com"),
    Cli::Positional {
        name: "DATA",
        help: "The text to encode (at most 2953 characters); `-` reads standard input.",
    },
);

/// `type`.
pub const CONTENT_TYPE: Parameter = Parameter {
    name: "type",
    label: "Content type",
    description: "Content type (builds the content from the type's fields instead of data; not with data)",
    schema_note: Some(
        "Case-insensitive; also mailto (email), phone (tel), calendar (event) and girocode (epc)",
    ),
    required: false,
    control: Control::ContentType,
    default: None,
    example: None,
    applies: ALL_FORMATS,
    cli: Cli::Subcommands,
    reader: Reader::ContentType,
};

/// `size`.
pub const SIZE: Parameter = setting(
    "size",
    "Image width and height in pixels",
    "Image width and height in pixels",
    Control::Number {
        min: MIN_SIZE as i64,
        max: MAX_SIZE as i64,
    },
    Some("300"),
    Some("300"),
    Cli::Flag {
        flag: "size",
        help: "Image width and height in pixels, 50 to 2000 [default: 300].",
    },
);

/// `format`.
pub const FORMAT: Parameter = Parameter {
    schema_note: Some("Case-insensitive; pdf and eps are print documents of printSize"),
    ..setting(
        "format",
        "Image format",
        "Image format",
        Control::Choice(Choices::Formats),
        Some("png"),
        Some("png"),
        Cli::Flag {
            flag: "format",
            help: "Image format, png, svg, pdf or eps [default: from the -o extension, else png].",
        },
    )
};

/// `color`.
pub const COLOR: Parameter = setting(
    "color",
    "Foreground colour",
    "Foreground colour, hex RGB, RRGGBB or RRGGBBAA without #",
    Control::Colour { unset: None },
    Some("000000"),
    Some("1a237e"),
    Cli::Flag {
        flag: "color",
        help: "Colour of the dark modules, hex RRGGBB, RGB or RRGGBBAA without `#` [default: 000000].",
    },
);

/// `background`.
pub const BACKGROUND: Parameter = setting(
    "background",
    "Background colour",
    "Background colour, hex without #",
    Control::Colour { unset: None },
    Some("ffffff"),
    Some("ffffff"),
    Cli::Flag {
        flag: "background",
        help: "Colour of the light modules and the quiet zone, hex without `#` [default: ffffff].",
    },
);

/// `errorCorrection`.
pub const ERROR_CORRECTION: Parameter = Parameter {
    schema_note: Some("Case-insensitive"),
    ..setting(
        "errorCorrection",
        "Error correction level",
        "Error correction level",
        Control::Choice(Choices::Levels),
        Some("M"),
        Some("Q"),
        Cli::Flag {
            flag: "ec",
            help: "Error correction level: L (7%), M (15%), Q (25%) or H (30%) [default: M; H with a logo].",
        },
    )
};

/// `margin`.
pub const MARGIN: Parameter = setting(
    "margin",
    "Quiet zone in modules",
    "Quiet zone in modules",
    Control::Number {
        min: 0,
        max: MAX_MARGIN as i64,
    },
    Some("4"),
    Some("4"),
    Cli::Flag {
        flag: "margin",
        help: "Quiet zone around the code, in modules, 0 to 10 [default: 4; 2 for Micro QR].",
    },
);

/// `logo`.
pub const LOGO: Parameter = Parameter {
    name: "logo",
    label: "Logo image",
    description: "URL of a PNG or JPEG logo on a public host (Pro plan)",
    schema_note: None,
    required: false,
    control: Control::Upload {
        max_url_chars: MAX_LOGO_URL_CHARS,
        url_pattern: LOGO_URL_PATTERN,
    },
    default: None,
    example: None,
    applies: QR_ONLY,
    cli: Cli::Flag {
        flag: "logo",
        help: "A PNG or JPEG image to put in the centre (the code then uses level H).",
    },
    reader: Reader::Logo,
};

/// `logoSize`.
pub const LOGO_SIZE: Parameter = Parameter {
    applies: QR_ONLY,
    ..setting(
        "logoSize",
        "Logo width in percent of the code",
        "Logo width in percent of the code",
        Control::Number {
            min: MIN_LOGO_SIZE as i64,
            max: MAX_LOGO_SIZE as i64,
        },
        Some("20"),
        Some("20"),
        Cli::Flag {
            flag: "logo-size",
            help: "The logo's width as a percentage of the code's width, 5 to 30 [default: 20].",
        },
    )
};

/// `style`.
pub const STYLE: Parameter = Parameter {
    schema_note: Some("Case-insensitive; square is the plain image"),
    applies: QR_ONLY,
    ..setting(
        "style",
        "Shape of the data modules; connected merges neighbours into smooth runs",
        "Shape of the data modules; connected merges neighbours into smooth runs. Screen only: dots, rounded, extra-rounded, classy-rounded and connected, which some readers lose when a camera sees 2 pixels per module (small prints, far cameras); square and classy hold",
        Control::Choice(Choices::ModuleStyles),
        Some("square"),
        Some("rounded"),
        Cli::Flag {
            flag: "style",
            help: "Module shape: square, dots, rounded, extra-rounded, classy, classy-rounded or connected [default: square].",
        },
    )
};

/// `finderStyle`.
pub const FINDER_STYLE: Parameter = Parameter {
    applies: QR_ONLY,
    ..setting(
        "finderStyle",
        "Shape of the three finder patterns",
        "Shape of the three finder patterns",
        Control::Choice(Choices::FinderStyles),
        Some("square"),
        Some("rounded"),
        Cli::Flag {
            flag: "finder-style",
            help: "Finder pattern shape: square, rounded or circle [default: square].",
        },
    )
};

/// `finderColor`.
pub const FINDER_COLOR: Parameter = Parameter {
    applies: QR_ONLY,
    ..setting(
        "finderColor",
        "Colour of the finder patterns",
        "Colour of the finder patterns, hex without # (default: the modules' paint)",
        Control::Colour {
            unset: Some("Same as the modules' paint"),
        },
        None,
        Some("1a237e"),
        Cli::Flag {
            flag: "finder-color",
            help: "Colour of the finder patterns, hex without `#` [default: the modules' colour].",
        },
    )
};

/// `gradient`.
pub const GRADIENT: Parameter = Parameter {
    schema_note: Some("From color to color2 (which it requires)"),
    applies: QR_ONLY,
    ..setting(
        "gradient",
        "Gradient over the dark modules from color to color2",
        "Gradient over the dark modules from color to color2",
        Control::Choice(Choices::GradientKinds),
        None,
        Some("linear"),
        Cli::Flag {
            flag: "gradient",
            help: "A gradient over the dark modules from --color to --color2: linear or radial.",
        },
    )
};

/// `color2`.
pub const COLOR2: Parameter = Parameter {
    applies: QR_ONLY,
    ..setting(
        "color2",
        "End colour of the gradient",
        "End colour of the gradient, hex without # (required with gradient)",
        Control::Colour {
            unset: Some("Not set"),
        },
        None,
        Some("6a1b9a"),
        Cli::Flag {
            flag: "color2",
            help: "The gradient's end colour, hex without `#`.",
        },
    )
};

/// `gradientAngle`.
pub const GRADIENT_ANGLE: Parameter = Parameter {
    applies: QR_ONLY,
    ..setting(
        "gradientAngle",
        "Direction of a linear gradient in degrees: 0 left to right",
        "Direction of a linear gradient in degrees: 0 left to right, 90 top to bottom",
        Control::Number { min: 0, max: 359 },
        Some("0"),
        Some("45"),
        Cli::Flag {
            flag: "gradient-angle",
            help: "A linear gradient's direction in degrees, 0 (left to right) to 359 [default: 0].",
        },
    )
};

/// `frame`.
pub const FRAME: Parameter = Parameter {
    applies: QR_ONLY,
    ..setting(
        "frame",
        "A frame around the code; the image keeps its size",
        "A frame around the code; the image keeps its size",
        Control::Choice(Choices::FrameStyles),
        Some("none"),
        Some("banner-bottom"),
        Cli::Flag {
            flag: "frame",
            help: "A frame around the code: none, box, banner-bottom or banner-top [default: none].",
        },
    )
};

/// `frameText`.
pub const FRAME_TEXT: Parameter = Parameter {
    applies: QR_ONLY,
    ..setting(
        "frameText",
        "Text in the frame",
        "Text in the frame (printable ASCII and Latin-1, drawn as outlines)",
        Control::Text {
            max_chars: FrameText::MAX_CHARS,
            pattern: FRAME_TEXT_PATTERN,
        },
        None,
        Some("SCAN ME"),
        Cli::Flag {
            flag: "frame-text",
            help: "The frame's text, at most 32 characters (printable ASCII and Latin-1).",
        },
    )
};

/// `frameColor`.
pub const FRAME_COLOR: Parameter = Parameter {
    applies: QR_ONLY,
    ..setting(
        "frameColor",
        "Colour of the frame",
        "Colour of the frame, hex without # (default: color)",
        Control::Colour {
            unset: Some("Same as color"),
        },
        None,
        Some("1a237e"),
        Cli::Flag {
            flag: "frame-color",
            help: "The frame's colour, hex without `#` [default: --color].",
        },
    )
};

/// `svgMode`.
pub const SVG_MODE: Parameter = Parameter {
    applies: Applies {
        formats: &[Format::Svg],
        micro: false,
    },
    ..setting(
        "svgMode",
        "SVG only: outline draws filled outlines only",
        "SVG only: outline draws filled outlines only (no strokes or dashes), for cutters and plotters",
        Control::Choice(Choices::SvgModes),
        Some("compact"),
        Some("outline"),
        Cli::Flag {
            flag: "svg-mode",
            help: "SVG drawing: compact, or outline for cutters and plotters (filled outlines only) [default: compact].",
        },
    )
};

/// `printSize`.
pub const PRINT_SIZE: Parameter = Parameter {
    applies: Applies {
        formats: &[Format::Pdf, Format::Eps],
        micro: false,
    },
    ..setting(
        "printSize",
        "PDF and EPS only: printed width and height in millimetres",
        "PDF and EPS only: printed width and height in millimetres",
        Control::Number {
            min: MIN_PRINT_SIZE as i64,
            max: MAX_PRINT_SIZE as i64,
        },
        Some("50"),
        Some("50"),
        Cli::Flag {
            flag: "print-size",
            help: "PDF and EPS width and height in millimetres, 10 to 1000 [default: 50].",
        },
    )
};

/// `dpi`.
pub const DPI: Parameter = Parameter {
    applies: Applies {
        formats: &[Format::Png, Format::Pdf, Format::Eps],
        micro: true,
    },
    ..setting(
        "dpi",
        "PNG: resolution written as the pHYs chunk; PDF and EPS: resolution of the logo",
        "PNG: resolution written as the pHYs chunk; PDF and EPS: resolution of the logo (default 300)",
        Control::Number {
            min: MIN_DPI as i64,
            max: MAX_DPI as i64,
        },
        None,
        Some("300"),
        Cli::Flag {
            flag: "dpi",
            help: "Resolution, 72 to 2400: the PNG's pHYs chunk, a logo's resolution in PDF and EPS.",
        },
    )
};

/// `verify`.
pub const VERIFY: Parameter = Parameter {
    applies: QR_ONLY,
    ..setting(
        "verify",
        "Decode the finished image before answering; 422 with the reason if it does not scan",
        "Decode the finished image before answering; 422 with the reason if it does not scan",
        Control::Toggle,
        Some("false"),
        Some("true"),
        Cli::Flag {
            flag: "verify",
            help: "Decode the finished image before writing it, and fail if it does not scan back.",
        },
    )
};

/// `symbol`.
pub const SYMBOL: Parameter = Parameter {
    schema_note: Some(
        "Case-insensitive; micro is a Micro QR code (M1 to M4, at most 35 digits, 21 letters or 15 bytes) with a 2-module quiet zone, drawn plain as PNG or SVG",
    ),
    ..setting(
        "symbol",
        "Symbol kind",
        "Symbol kind (qr, or micro for a Micro QR code: plain PNG or SVG, level L, M or Q, no logo or verify)",
        Control::Choice(Choices::Symbols),
        Some("qr"),
        Some("qr"),
        Cli::Flag {
            flag: "symbol",
            help: "Symbol kind: qr, or micro for a Micro QR code (M1 to M4: at most 35 digits, 21 letters or 15 bytes; plain PNG or SVG with a 2-module quiet zone) [default: qr].",
        },
    )
};

/// Every generate parameter, in the API's order (`type` follows `data`, and the content types'
/// fields follow `type` in documents and forms).
pub const PARAMETERS: &[Parameter] = &[
    DATA,
    CONTENT_TYPE,
    SIZE,
    FORMAT,
    COLOR,
    BACKGROUND,
    ERROR_CORRECTION,
    MARGIN,
    LOGO,
    LOGO_SIZE,
    STYLE,
    FINDER_STYLE,
    FINDER_COLOR,
    GRADIENT,
    COLOR2,
    GRADIENT_ANGLE,
    FRAME,
    FRAME_TEXT,
    FRAME_COLOR,
    SVG_MODE,
    PRINT_SIZE,
    DPI,
    VERIFY,
    SYMBOL,
];

/// How many parameters [`crate::GenerateParams::parse`] reads as settings.
const SETTING_COUNT: usize = {
    let mut count = 0;
    let mut i = 0;
    while i < PARAMETERS.len() {
        if matches!(PARAMETERS[i].reader, Reader::Setting) {
            count += 1;
        }
        i += 1;
    }
    count
};

/// The API names of the settings, in the table's order (the order they are validated).
pub const SETTING_NAMES: [&str; SETTING_COUNT] = {
    let mut names = [""; SETTING_COUNT];
    let mut next = 0;
    let mut i = 0;
    while i < PARAMETERS.len() {
        if matches!(PARAMETERS[i].reader, Reader::Setting) {
            names[next] = PARAMETERS[i].name;
            next += 1;
        }
        i += 1;
    }
    names
};
