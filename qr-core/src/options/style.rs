//! Appearance options: module and finder shapes, gradients and the SVG drawing mode.

use super::{Color, OptionError};

/// Defines a unit-only enum with its kebab-case names, `FromStr` (case-insensitive), `Display`
/// and the list of every variant, so names cannot drift between parsing, printing and documentation.
macro_rules! named_enum {
    ($(#[$meta:meta])* $name:ident, $error:ident, { $($(#[$vmeta:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every variant, in documentation order (the first is the default).
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The name used by the API and the command line.
            pub const fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl std::str::FromStr for $name {
            type Err = OptionError;

            /// Parses the kebab-case name, case-insensitive.
            fn from_str(text: &str) -> Result<$name, OptionError> {
                $name::ALL
                    .iter()
                    .copied()
                    .find(|v| v.name().eq_ignore_ascii_case(text))
                    .ok_or_else(|| OptionError::$error(text.to_owned()))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}
pub(crate) use named_enum;

named_enum!(
    /// The shape of the data modules (the finder patterns have their own [`FinderStyle`]).
    ///
    /// Every shape but `Square` needs the `style` feature. Corners are rounded only where a
    /// module has no dark neighbour on either side of the corner, so runs of modules stay joined.
    ModuleStyle, ModuleStyle, {
        /// Square modules: the plain image, byte for byte.
        #[default]
        Square => "square",
        /// A circle in every module, its diameter the module's side.
        Dots => "dots",
        /// Corners without neighbours rounded with half a module: a lone module is a circle, the
        /// end of a run a half circle.
        Rounded => "rounded",
        /// As `Rounded`, but a module with a single free corner rounds it with a whole module.
        ExtraRounded => "extra-rounded",
        /// Only the top-left and bottom-right free corners rounded, with half a module.
        Classy => "classy",
        /// As `Classy`, with three quarters of a module where only one of the two corners is free.
        ClassyRounded => "classy-rounded",
        /// Modules four fifths wide, merged with their neighbours into smooth rounded runs; a
        /// module without neighbours is a whole module's disc.
        Connected => "connected",
    }
);

impl ModuleStyle {
    /// The fewest pixels per module at which codes in this style are read reliably.
    ///
    /// Measured with rqrr over 300 random codes per style and finder style, margins 0 to 4,
    /// PNG and SVG: square modules and dots never failed at 3 pixels; at 3 the rounded styles
    /// failed up to 9 codes in 300 (a sampling point one pixel off the centre falls outside a
    /// rounded corner), none at 4; connected failed 2 in 900 at 4 and none at 5 or more.
    /// Dots are set to 4 as well: at 3 a dot covers only the centre cross of its 3 x 3 pixels.
    /// qr-core draws any size; the service refuses smaller ones.
    pub const fn min_module_pixels(self) -> u32 {
        match self {
            ModuleStyle::Square => 3,
            ModuleStyle::Connected => 5,
            _ => 4,
        }
    }
}

named_enum!(
    /// The shape of the three finder patterns' frame and centre.
    ///
    /// The frame's outer edge stays square in every style: readers that locate a finder by its
    /// outer corners (quirc, rqrr) cannot read a code whose finders are rounded outside.
    FinderStyle, FinderStyle, {
        /// Square frame and centre, as ISO/IEC 18004 draws them.
        #[default]
        Square => "square",
        /// The frame's inner corners rounded with one and a half modules, the centre's with one.
        Rounded => "rounded",
        /// A square frame with a round hole, and a disc in it.
        Circle => "circle",
    }
);

named_enum!(
    /// How an SVG document draws the modules.
    SvgMode, SvgMode, {
        /// As small as possible: square modules as one dashed stroke (shapes are filled paths).
        #[default]
        Compact => "compact",
        /// Filled outlines only, no strokes or dash patterns, for cutters, plotters and design
        /// tools that follow paths literally.
        Outline => "outline",
    }
);

named_enum!(
    /// The direction of a [`Gradient`].
    GradientKind, GradientKind, {
        /// Along a line at [`Gradient::angle`] across the symbol.
        #[default]
        Linear => "linear",
        /// From the symbol's centre to its corners.
        Radial => "radial",
    }
);

/// A two-colour gradient over the dark modules, from [`RenderOptions::color`] to [`Gradient::to`].
///
/// [`RenderOptions::color`]: crate::RenderOptions::color
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Gradient {
    /// Linear or radial.
    pub kind: GradientKind,
    /// The colour at the end (the centre's colour is the foreground `color` for radial).
    pub to: Color,
    /// For linear gradients, the direction in degrees: 0 runs left to right, 90 top to bottom.
    pub angle: GradientAngle,
}

impl Gradient {
    /// A gradient of `kind` ending in `to`, at angle 0.
    pub const fn new(kind: GradientKind, to: Color) -> Gradient {
        Gradient {
            kind,
            to,
            angle: GradientAngle(0),
        }
    }

    /// This gradient at `angle` (used by linear gradients).
    #[must_use]
    pub const fn with_angle(mut self, angle: GradientAngle) -> Gradient {
        self.angle = angle;
        self
    }
}

/// A gradient's direction in whole degrees, 0 to 359 (0: left to right, 90: top to bottom).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GradientAngle(u16);

impl GradientAngle {
    /// Returns `degrees` as an angle, or [`OptionError::GradientAngle`] outside 0..=359.
    pub const fn new(degrees: u16) -> Result<GradientAngle, OptionError> {
        if degrees < 360 {
            Ok(GradientAngle(degrees))
        } else {
            Err(OptionError::GradientAngle(degrees))
        }
    }

    /// The angle in degrees.
    pub const fn degrees(self) -> u16 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for style in ModuleStyle::ALL {
            assert_eq!(style.name().parse::<ModuleStyle>(), Ok(*style));
        }
        assert_eq!("Extra-Rounded".parse(), Ok(ModuleStyle::ExtraRounded));
        assert_eq!(
            "blobs".parse::<ModuleStyle>(),
            Err(OptionError::ModuleStyle("blobs".into()))
        );
        assert_eq!("CIRCLE".parse(), Ok(FinderStyle::Circle));
        assert_eq!(ModuleStyle::default(), ModuleStyle::Square);
        assert_eq!(SvgMode::default().to_string(), "compact");
        assert_eq!(
            GradientAngle::new(360),
            Err(OptionError::GradientAngle(360))
        );
    }
}
