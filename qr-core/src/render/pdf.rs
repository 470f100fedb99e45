//! PDF output: a one-page PDF 1.4 document of the print size, the code as filled paths in a compressed content stream, gradients as shadings.
//!
//! The page is `print_size` square; one `cm` maps image pixels (y down) to points, and each
//! layer's own `cm` its module units, so coordinates stay short. Translucent colours use an
//! ExtGState's `ca`; a logo is an image XObject resampled to the resolution, with its alpha as
//! a soft mask.

use std::io::Write as _;

use super::art::outline::Dots;
use super::art::path::Transform;
use super::art::{Art, Paint, number};
use super::print::{
    PDF_DISC_FORM, PDF_END_FORM, capsule_ends, push_capsule_middles_pdf, push_forms_pdf,
    push_outline, push_path, push_rgb, push_runs_pdf, push_shading_dictionary,
};
use crate::deflate::zlib_compress_fast;
use crate::options::{Dpi, ModuleStyle, PrintSize};

/// Writes `art` as a PDF document `print_size` wide; a logo is resampled at `dpi`.
pub(crate) fn encode(art: &Art<'_>, print_size: PrintSize, dpi: Dpi) -> Vec<u8> {
    let page = print_size.points();
    let points_per_pixel = page / f64::from(art.size);
    let mut content: Vec<u8> = Vec::with_capacity(4096);
    let mut resources = Resources::default();
    content.push(b'q');
    let k = points_per_pixel as f32;
    for value in [k, 0.0, 0.0, -k, 0.0, page as f32] {
        number::push_word(&mut content, value);
    }
    content.extend_from_slice(b" cm\n");
    if art.background.a != 0 {
        resources.alpha(&mut content, art.background.a);
        push_rgb(&mut content, art.background);
        let s = art.size as f32;
        content.extend_from_slice(b" rg 0 0");
        number::push_word(&mut content, s);
        number::push_word(&mut content, s);
        content.extend_from_slice(b" re f\n");
    }
    for layer in art.layers(true) {
        content.push(b'q');
        push_transform(&mut content, &layer.transform);
        match layer.paint {
            Paint::Solid(color) => {
                resources.alpha(&mut content, color.a);
                push_rgb(&mut content, color);
                content.extend_from_slice(b" rg\n");
            }
            paint => {
                // A shading pattern as the fill colour of the layer's path.
                resources.alpha(&mut content, paint.colors()[0].a);
                let ctm = Transform::new(
                    k * layer.transform.sx,
                    -k * layer.transform.sy,
                    k * layer.transform.tx,
                    page as f32 - k * layer.transform.ty,
                );
                let name = resources.pattern(&paint, &layer.transform, &ctm);
                let _ = writeln!(content, "/Pattern cs/{name} scn");
            }
        }
        // Forms paint in the colour of the moment, but a pattern colour is placed in the form's
        // own space by viewers (poppler painted every disc in a gradient's first colour), so
        // only a solid paint uses them. A capsule's forms overlap its rectangle, which a
        // translucent colour would darken, so only an opaque one draws capsules with them.
        // Otherwise discs and capsules are figures of the path.
        let solid = matches!(layer.paint, Paint::Solid(_));
        let disc_forms = solid;
        let capsule_forms = solid && layer.paint.colors()[0].a == 255;
        let mut figures = None;
        if !disc_forms || !capsule_forms {
            let outline = figures.insert(layer.outline.clone());
            if !disc_forms {
                for &(x, y) in &layer.dots.modules {
                    Dots::disc(outline, x, y);
                }
            }
            if !capsule_forms {
                for capsule in &layer.capsules {
                    capsule.append_to(outline);
                }
            }
        }
        let before = content.len();
        push_path(&mut content, &layer.path, layer.whole_units);
        push_outline(&mut content, figures.as_ref().unwrap_or(&layer.outline));
        if capsule_forms {
            push_capsule_middles_pdf(&mut content, &layer.capsules);
        }
        push_runs_pdf(&mut content, &layer.runs);
        if content.len() > before {
            content.extend_from_slice(if layer.even_odd { b"f*" } else { b"f" });
        }
        let discs = if disc_forms {
            layer.dots.modules.as_slice()
        } else {
            &[]
        };
        let ends = if capsule_forms {
            layer.capsules.as_slice()
        } else {
            &[]
        };
        if !discs.is_empty() || !ends.is_empty() {
            resources.disc |= !discs.is_empty();
            resources.end |= !ends.is_empty();
            let discs = discs
                .iter()
                .map(|&(x, y)| (i64::from(x) * 1000, i64::from(y) * 1000, "D"));
            let ends = capsule_ends(ends).map(|(x, y)| (x, y, "E"));
            push_forms_pdf(&mut content, discs.chain(ends));
        }
        content.extend_from_slice(b" Q\n");
    }
    #[cfg(feature = "logo")]
    let logo = art.logo.as_ref().and_then(|(logo, placement)| {
        let size = (
            f64::from(placement.width) * points_per_pixel,
            f64::from(placement.height) * points_per_pixel,
        );
        let resampled = super::print::resample_logo(logo, size, dpi);
        if resampled.width == 0 {
            return None;
        }
        content.push(b'q');
        for value in [
            placement.width,
            0.0,
            0.0,
            -placement.height,
            placement.x,
            placement.y + placement.height,
        ] {
            number::push_word(&mut content, value);
        }
        content.extend_from_slice(b" cm /I0 Do Q\n");
        Some(resampled)
    });
    #[cfg(feature = "logo")]
    let logo = logo
        .as_ref()
        .map(|l| (l.width, l.height, l.rgb.as_slice(), l.alpha.as_slice()));
    #[cfg(not(feature = "logo"))]
    let logo = {
        let _ = dpi;
        None
    };
    content.push(b'Q');
    // The dots style's content is all placements of one form (`1 0 0 1 1 0 cm/D Do`), whose
    // repeats matches shrink to 40 % (3,469 bytes of literals, 1,409) for 10 % more time; the
    // square style's rectangles keep a code of their own (1,486 bytes, segno's 1,575; the
    // shared code wrote 1,802); curves take the shared code (see `deflate::text`).
    let coding = if resources.disc && !resources.end {
        Coding::Matches(1)
    } else if art.symbol.style == ModuleStyle::Square {
        Coding::OwnCode
    } else {
        Coding::SharedCode
    };
    assemble(page, (&content, coding), &resources, logo)
}

/// Appends `transform` as a `cm` operator (nothing for the identity).
fn push_transform(content: &mut Vec<u8>, t: &Transform) {
    if *t == Transform::IDENTITY {
        return;
    }
    for value in [t.sx, 0.0, 0.0, t.sy, t.tx, t.ty] {
        number::push_exact_word(content, value);
    }
    content.extend_from_slice(b" cm\n");
}

/// The page's named resources: alpha states, shading patterns and the discs' form.
#[derive(Default)]
struct Resources {
    alphas: Vec<u8>,
    patterns: Vec<Vec<u8>>,
    /// Whether a layer paints the form `/D` (a module's disc) or `/E` (a capsule's end).
    disc: bool,
    end: bool,
}

impl Resources {
    /// Sets the fill alpha `alpha` (an ExtGState) when the colour is translucent.
    fn alpha(&mut self, content: &mut Vec<u8>, alpha: u8) {
        if alpha == 255 {
            return;
        }
        let index = match self.alphas.iter().position(|&a| a == alpha) {
            Some(i) => i,
            None => {
                self.alphas.push(alpha);
                self.alphas.len() - 1
            }
        };
        let _ = write!(content, "/A{index} gs ");
    }

    /// The names and contents of the forms the page paints, in object order.
    fn forms(&self) -> impl Iterator<Item = (&'static str, &'static str)> {
        [
            (self.disc, ("D", PDF_DISC_FORM)),
            (self.end, ("E", PDF_END_FORM)),
        ]
        .into_iter()
        .filter_map(|(used, form)| used.then_some(form))
    }

    /// Names the shading pattern of `paint`, whose coordinates are in the user space of
    /// `transform`, placed on the page by `ctm` (that user space to the page's default one).
    fn pattern(&mut self, paint: &Paint, transform: &Transform, ctm: &Transform) -> String {
        let mut dict = b"<</PatternType 2/Matrix[".to_vec();
        for value in [ctm.sx, 0.0, 0.0, ctm.sy, ctm.tx, ctm.ty] {
            number::push_exact_word(&mut dict, value);
        }
        dict.extend_from_slice(b"]/Shading");
        push_shading_dictionary(&mut dict, paint, transform, |c| c);
        dict.extend_from_slice(b">>");
        self.patterns.push(dict);
        format!("P{}", self.patterns.len() - 1)
    }

    /// The resource dictionary; the logo is object `first_image` (its mask the next) and the
    /// forms the objects after it.
    fn dictionary(&self, has_image: bool, first_image: usize, first_form: usize) -> Vec<u8> {
        let mut out = b"<<".to_vec();
        if !self.alphas.is_empty() {
            out.extend_from_slice(b"/ExtGState<<");
            for (i, &alpha) in self.alphas.iter().enumerate() {
                let _ = write!(out, "/A{i}<</ca");
                number::push_word(&mut out, f32::from(alpha) / 255.0);
                out.extend_from_slice(b">>");
            }
            out.extend_from_slice(b">>");
        }
        if !self.patterns.is_empty() {
            out.extend_from_slice(b"/Pattern<<");
            for (i, pattern) in self.patterns.iter().enumerate() {
                let _ = write!(out, "/P{i} ");
                out.extend_from_slice(pattern);
            }
            out.extend_from_slice(b">>");
        }
        if has_image || self.disc || self.end {
            out.extend_from_slice(b"/XObject<<");
            if has_image {
                let _ = write!(out, "/I0 {first_image} 0 R");
            }
            for (i, (name, _)) in self.forms().enumerate() {
                let _ = write!(out, "/{name} {} 0 R", first_form + i);
            }
            out.extend_from_slice(b">>");
        }
        out.extend_from_slice(b">>");
        out
    }
}

/// A logo as width, height, RGB rows and alpha rows.
type Image<'a> = (u32, u32, &'a [u8], &'a [u8]);

/// Writes the document: catalog, pages, page, content, and the logo with its soft mask, then
/// the cross-reference table.
fn assemble(
    page: f64,
    (content, coding): (&[u8], Coding),
    resources: &Resources,
    logo: Option<Image<'_>>,
) -> Vec<u8> {
    let mut pdf: Vec<u8> = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    let mut object = |pdf: &mut Vec<u8>, body: &[u8]| {
        offsets.push(pdf.len());
        let _ = writeln!(pdf, "{} 0 obj", offsets.len());
        pdf.extend_from_slice(body);
        pdf.extend_from_slice(b"\nendobj\n");
    };
    let mut side = Vec::new();
    number::push_word(&mut side, page as f32);
    let side = String::from_utf8_lossy(&side);
    object(&mut pdf, b"<</Type/Catalog/Pages 2 0 R>>");
    object(&mut pdf, b"<</Type/Pages/Kids[3 0 R]/Count 1>>");
    // Objects 5 and 6 are the logo and its mask, when there is a logo; the forms follow.
    let first_form = if logo.is_some() { 7 } else { 5 };
    let mut page_dict =
        format!("<</Type/Page/Parent 2 0 R/MediaBox[0 0 {side} {side}]/Resources").into_bytes();
    page_dict.extend_from_slice(&resources.dictionary(logo.is_some(), 5, first_form));
    page_dict.extend_from_slice(b"/Contents 4 0 R>>");
    object(&mut pdf, &page_dict);
    object(&mut pdf, &stream("<<", content, coding));
    if let Some((w, h, rgb_rows, alpha_rows)) = logo {
        let head = format!("<</Type/XObject/Subtype/Image/Width {w}/Height {h}/BitsPerComponent 8");
        let rgb = format!("{head}/ColorSpace/DeviceRGB/SMask 6 0 R");
        let rows = |stride: u32| Coding::Matches(stride as usize);
        object(&mut pdf, &stream(&rgb, rgb_rows, rows(w * 3)));
        object(
            &mut pdf,
            &stream(
                &format!("{head}/ColorSpace/DeviceGray"),
                alpha_rows,
                rows(w),
            ),
        );
    }
    for (name, body) in resources.forms() {
        let side = if name == "D" { "1" } else { ".8" };
        let form = format!(
            "<</Type/XObject/Subtype/Form/BBox[0 0 {side} {side}]/Length {}>>\nstream\n{body}\nendstream",
            body.len()
        );
        object(&mut pdf, form.as_bytes());
    }
    let xref = pdf.len();
    let count = offsets.len() + 1;
    let _ = write!(&mut pdf, "xref\n0 {count}\n0000000000 65535 f \n");
    for offset in &offsets {
        let _ = writeln!(&mut pdf, "{offset:010} 00000 n ");
    }
    let _ = write!(
        &mut pdf,
        "trailer\n<</Size {count}/Root 1 0 R>>\nstartxref\n{xref}\n%%EOF\n"
    );
    pdf
}

/// How a stream's data is compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Coding {
    /// The greedy parse's matches, the data in rows of this many bytes (images, and content
    /// that repeats itself).
    Matches(usize),
    /// Literals with the stream's own Huffman code.
    OwnCode,
    /// Literals with the code shared by content streams of curves.
    SharedCode,
}

/// A stream object's body: `dict` (left open) completed with the filter and the length, then
/// the data compressed by `coding`.
fn stream(dict: &str, data: &[u8], coding: Coding) -> Vec<u8> {
    let compressed = match coding {
        Coding::Matches(stride) => zlib_compress_fast(data, stride),
        Coding::OwnCode => crate::deflate::zlib_compress_literals(data),
        Coding::SharedCode => crate::deflate::zlib_compress_text(data),
    };
    let mut body = Vec::with_capacity(compressed.len() + 96);
    let _ = write!(
        &mut body,
        "{dict}/Filter/FlateDecode/Length {}>>\nstream\n",
        compressed.len()
    );
    body.extend_from_slice(&compressed);
    body.extend_from_slice(b"\nendstream");
    body
}
