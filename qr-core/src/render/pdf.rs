//! PDF output: a one-page PDF 1.4 document of the print size, the code as filled paths in a compressed content stream, gradients as shadings.
//!
//! The page is `print_size` square; one `cm` maps image pixels (y down) to points, and each
//! layer's own `cm` its module units, so coordinates stay short. Translucent colours use an
//! ExtGState's `ca`; a logo is an image XObject resampled to the resolution, with its alpha as
//! a soft mask.

use std::io::Write as _;

use super::art::outline::Dots;
use super::art::path::Transform;
use super::art::{Art, Layer, Paint, number};
use super::print::{
    PDF_DISC_FORM, PDF_END_FORM, capsule_ends, push_capsule_middles_pdf, push_forms_pdf,
    push_outline, push_path, push_rgb, push_runs_pdf, push_shading_dictionary,
};
use crate::deflate::zlib_compress_fast;
use crate::options::{Dpi, ModuleStyle, PrintSize};

/// Writes `art` as a PDF document `print_size` wide; a logo is resampled at `dpi`.
pub(crate) fn encode(art: &Art<'_>, print_size: PrintSize, dpi: Dpi) -> Vec<u8> {
    let page = print_size.points();
    let mut writer = PageWriter::default();
    let placement = ArtPlacement {
        points_per_pixel: page / f64::from(art.size),
        left: 0.0,
        top: page,
    };
    writer.push_art(art, placement, dpi);
    // The dots style's content is all placements of one form (`1 0 0 1 1 0 cm/D Do`), whose
    // repeats matches shrink to 40 % (3,469 bytes of literals, 1,409) for 10 % more time; the
    // square style's rectangles keep a code of their own (1,486 bytes, segno's 1,575; the
    // shared code wrote 1,802); curves take the shared code (see `deflate::text`).
    let coding = if writer.paints_only_discs() {
        Coding::Matches(1)
    } else if art.symbol.style == ModuleStyle::Square {
        Coding::OwnCode
    } else {
        Coding::SharedCode
    };
    assemble((page, page), &[writer.finish(coding)])
}

/// Where an art goes on a page: its pixels' size in points, and the page coordinates (points,
/// PDF's y up) of its top left corner.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ArtPlacement {
    pub(crate) points_per_pixel: f64,
    pub(crate) left: f64,
    pub(crate) top: f64,
}

/// One page being written: its content stream, the resources the content names, and the
/// logos it draws (`/I0`, `/I1`, ... in order).
#[derive(Default)]
pub(crate) struct PageWriter {
    pub(crate) content: Vec<u8>,
    resources: Resources,
    #[cfg(feature = "logo")]
    logos: Vec<super::print::PrintLogo>,
}

/// A finished page: its content with the coding chosen for it, its resources and its logos.
pub(crate) struct Page {
    content: Vec<u8>,
    coding: Coding,
    resources: Resources,
    #[cfg(feature = "logo")]
    logos: Vec<super::print::PrintLogo>,
}

impl PageWriter {
    /// Appends `art` in a `q`/`Q` pair at `placement`; a logo is resampled at `dpi`.
    pub(crate) fn push_art(&mut self, art: &Art<'_>, placement: ArtPlacement, dpi: Dpi) {
        let content = &mut self.content;
        let resources = &mut self.resources;
        let points_per_pixel = placement.points_per_pixel;
        content.push(b'q');
        let k = points_per_pixel as f32;
        let (left, top) = (placement.left as f32, placement.top as f32);
        for value in [k, 0.0, 0.0, -k, left, top] {
            number::push_word(content, value);
        }
        content.extend_from_slice(b" cm\n");
        if art.background.a != 0 {
            resources.alpha(content, art.background.a);
            push_rgb(content, art.background);
            let s = art.size as f32;
            content.extend_from_slice(b" rg 0 0");
            number::push_word(content, s);
            number::push_word(content, s);
            content.extend_from_slice(b" re f\n");
        }
        for layer in art.layers(true) {
            push_layer(content, resources, &layer, (k, left, top));
        }
        #[cfg(feature = "logo")]
        if let Some((logo, placement)) = art.logo.as_ref() {
            let size = (
                f64::from(placement.width) * points_per_pixel,
                f64::from(placement.height) * points_per_pixel,
            );
            let resampled = super::print::resample_logo(logo, size, dpi);
            if resampled.width != 0 {
                content.push(b'q');
                for value in [
                    placement.width,
                    0.0,
                    0.0,
                    -placement.height,
                    placement.x,
                    placement.y + placement.height,
                ] {
                    number::push_word(content, value);
                }
                let _ = writeln!(content, " cm /I{} Do Q", self.logos.len());
                self.logos.push(resampled);
            }
        }
        #[cfg(not(feature = "logo"))]
        let _ = dpi;
        content.push(b'Q');
    }

    /// Whether the page paints the form of a module's disc and not a capsule's end (its
    /// content is then mostly repeats of one placement).
    pub(crate) fn paints_only_discs(&self) -> bool {
        self.resources.disc && !self.resources.end
    }

    /// The finished page, its content to be compressed by `coding`.
    pub(crate) fn finish(self, coding: Coding) -> Page {
        Page {
            content: self.content,
            coding,
            resources: self.resources,
            #[cfg(feature = "logo")]
            logos: self.logos,
        }
    }
}

/// Appends one layer of an art whose pixels `cm` (`k` points each, its top left corner at
/// `left`, `top`) has placed on the page, in a `q`/`Q` pair.
fn push_layer(
    content: &mut Vec<u8>,
    resources: &mut Resources,
    layer: &Layer,
    (k, left, top): (f32, f32, f32),
) {
    content.push(b'q');
    push_transform(content, &layer.transform);
    match layer.paint {
        Paint::Solid(color) => {
            resources.alpha(content, color.a);
            push_rgb(content, color);
            content.extend_from_slice(b" rg\n");
        }
        paint => {
            // A shading pattern as the fill colour of the layer's path.
            resources.alpha(content, paint.colors()[0].a);
            let ctm = Transform::new(
                k * layer.transform.sx,
                -k * layer.transform.sy,
                k * layer.transform.tx + left,
                top - k * layer.transform.ty,
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
    push_path(content, &layer.path, layer.whole_units);
    push_outline(content, figures.as_ref().unwrap_or(&layer.outline));
    if capsule_forms {
        push_capsule_middles_pdf(content, &layer.capsules);
    }
    push_runs_pdf(content, &layer.runs);
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
        push_forms_pdf(content, discs.chain(ends));
    }
    content.extend_from_slice(b" Q\n");
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

    /// The resource dictionary; the logos are the objects `images` (each with its mask the
    /// next), the disc's and capsule end's forms `forms` when the document has them.
    fn dictionary(&self, images: &[usize], forms: &DocumentForms) -> Vec<u8> {
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
        if !images.is_empty() || self.disc || self.end {
            out.extend_from_slice(b"/XObject<<");
            for (i, object) in images.iter().enumerate() {
                let _ = write!(out, "/I{i} {object} 0 R");
            }
            for (name, _) in self.forms() {
                let _ = write!(out, "/{name} {} 0 R", forms.object(name));
            }
            out.extend_from_slice(b">>");
        }
        out.extend_from_slice(b">>");
        out
    }
}

/// The forms a document's pages paint, each written once after the pages: the object numbers
/// of `/D` and `/E`.
struct DocumentForms {
    first: usize,
    disc: bool,
}

impl DocumentForms {
    /// The object of the form `name` (the disc's comes first when the document has it).
    fn object(&self, name: &str) -> usize {
        if name == "E" && self.disc {
            self.first + 1
        } else {
            self.first
        }
    }
}

/// Writes the document: catalog, pages, then each page with its content and its logos (each
/// with its soft mask), the forms the pages share, and the cross-reference table. Every page is
/// `media` (width, height in points).
pub(crate) fn assemble((width, height): (f64, f64), pages: &[Page]) -> Vec<u8> {
    let mut pdf: Vec<u8> = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    let mut object = |pdf: &mut Vec<u8>, body: &[u8]| {
        offsets.push(pdf.len());
        let _ = writeln!(pdf, "{} 0 obj", offsets.len());
        pdf.extend_from_slice(body);
        pdf.extend_from_slice(b"\nendobj\n");
    };
    let word = |value: f64| {
        let mut out = Vec::new();
        number::push_word(&mut out, value as f32);
        String::from_utf8_lossy(&out).into_owned()
    };
    let (width, height) = (word(width), word(height));
    // Objects 1 and 2 are the catalog and the page tree; each page takes its own object, its
    // content's and two for each logo (the image and its mask); the forms follow the pages.
    let mut first_objects = Vec::with_capacity(pages.len());
    let mut next = 3;
    for page in pages {
        first_objects.push(next);
        next += 2 + 2 * page.logo_count();
    }
    let forms = DocumentForms {
        first: next,
        disc: pages.iter().any(|p| p.resources.disc),
    };
    let end = pages.iter().any(|p| p.resources.end);
    object(&mut pdf, b"<</Type/Catalog/Pages 2 0 R>>");
    let kids: Vec<String> = first_objects.iter().map(|o| format!("{o} 0 R")).collect();
    object(
        &mut pdf,
        format!(
            "<</Type/Pages/Kids[{}]/Count {}>>",
            kids.join(" "),
            pages.len()
        )
        .as_bytes(),
    );
    for (page, &first) in pages.iter().zip(&first_objects) {
        let images: Vec<usize> = (0..page.logo_count()).map(|i| first + 2 + 2 * i).collect();
        let mut page_dict =
            format!("<</Type/Page/Parent 2 0 R/MediaBox[0 0 {width} {height}]/Resources")
                .into_bytes();
        page_dict.extend_from_slice(&page.resources.dictionary(&images, &forms));
        let _ = write!(page_dict, "/Contents {} 0 R>>", first + 1);
        object(&mut pdf, &page_dict);
        object(&mut pdf, &stream("<<", &page.content, page.coding));
        #[cfg(feature = "logo")]
        for (logo, &image) in page.logos.iter().zip(&images) {
            let (w, h) = (logo.width, logo.height);
            let head =
                format!("<</Type/XObject/Subtype/Image/Width {w}/Height {h}/BitsPerComponent 8");
            let rgb = format!("{head}/ColorSpace/DeviceRGB/SMask {} 0 R", image + 1);
            let rows = |stride: u32| Coding::Matches(stride as usize);
            object(&mut pdf, &stream(&rgb, &logo.rgb, rows(w * 3)));
            object(
                &mut pdf,
                &stream(
                    &format!("{head}/ColorSpace/DeviceGray"),
                    &logo.alpha,
                    rows(w),
                ),
            );
        }
    }
    let used = [
        (forms.disc, ("D", PDF_DISC_FORM)),
        (end, ("E", PDF_END_FORM)),
    ];
    for (name, body) in used
        .into_iter()
        .filter_map(|(used, form)| used.then_some(form))
    {
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

impl Page {
    /// How many logos the page draws.
    fn logo_count(&self) -> usize {
        #[cfg(feature = "logo")]
        return self.logos.len();
        #[cfg(not(feature = "logo"))]
        0
    }
}

/// How a stream's data is compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Coding {
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
