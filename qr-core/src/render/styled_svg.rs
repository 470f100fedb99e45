//! SVG output of a styled image (and of any image in outline mode): filled paths only, one per paint, gradients as SVG gradients.

use std::fmt::Write as _;

use super::art::path::{Path, Segment, Transform};
use super::art::{Art, Layer, Paint, number};
use super::svg::push_color;

/// Writes `art` as an SVG document of exactly `art.size` pixels.
pub(crate) fn encode(art: &Art<'_>) -> String {
    let size = art.size;
    let layers = art.layers(false);
    let mut svg = String::with_capacity(8192);
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg"{xlink} width="{size}" height="{size}" viewBox="0 0 {size} {size}">"#,
        xlink = if art.has_logo() {
            r#" xmlns:xlink="http://www.w3.org/1999/xlink""#
        } else {
            ""
        }
    );
    let gradients: Vec<usize> = (0..layers.len())
        .filter(|&i| !matches!(layers[i].paint, Paint::Solid(_)))
        .collect();
    if !gradients.is_empty() {
        svg.push_str("<defs>");
        for &i in &gradients {
            push_gradient(&mut svg, i, &layers[i]);
        }
        svg.push_str("</defs>");
    }
    if art.background.a != 0 {
        svg.push_str(r#"<path fill=""#);
        push_color(&mut svg, art.background, "fill");
        let _ = write!(svg, r#" d="M0 0h{size}v{size}H0z"/>"#);
    }
    for (i, layer) in layers.iter().enumerate() {
        match layer.paint {
            Paint::Solid(color) if color.a == 0 => continue,
            Paint::Solid(color) => {
                svg.push_str(r#"<path fill=""#);
                push_color(&mut svg, color, "fill");
            }
            _ => {
                let _ = write!(svg, r#"<path fill="url(#g{i})""#);
            }
        }
        if layer.even_odd {
            svg.push_str(r#" fill-rule="evenodd""#);
        }
        if layer.transform != Transform::IDENTITY {
            let t = layer.transform;
            svg.push_str(r#" transform="matrix("#);
            for value in [t.sx, 0.0, 0.0, t.sy, t.tx, t.ty] {
                number::push(&mut svg, value);
            }
            svg.push_str(r#")""#);
        }
        svg.push_str(r#" d=""#);
        push_path(&mut svg, &layer.path);
        svg.push_str(r#""/>"#);
    }
    #[cfg(feature = "logo")]
    if let Some((logo, placement)) = &art.logo {
        let _ = write!(
            svg,
            r#"<image x="{}" y="{}" width="{}" height="{}" xlink:href="data:{};base64,{}"/>"#,
            placement.x,
            placement.y,
            placement.width,
            placement.height,
            logo.media_type(),
            logo.base64()
        );
    }
    svg.push_str("</svg>");
    svg
}

/// A gradient element with id `g{index}`, in the user space of `layer` (its transform applied).
fn push_gradient(svg: &mut String, index: usize, layer: &Layer) {
    let local = |p| layer.transform.invert(p);
    let stops = |svg: &mut String, from, to| {
        for (offset, color) in [("0", from), ("1", to)] {
            let _ = write!(svg, r#"<stop offset="{offset}" stop-color=""#);
            push_color(svg, color, "stop");
            svg.push_str("/>");
        }
    };
    match layer.paint {
        Paint::Linear {
            start,
            end,
            from,
            to,
        } => {
            let (a, b) = (local(start), local(end));
            let _ = write!(
                svg,
                r#"<linearGradient id="g{index}" gradientUnits="userSpaceOnUse""#
            );
            for (name, value) in [("x1", a.x), ("y1", a.y), ("x2", b.x), ("y2", b.y)] {
                let _ = write!(svg, r#" {name}=""#);
                number::push(svg, value);
                svg.push('"');
            }
            svg.push('>');
            stops(svg, from, to);
            svg.push_str("</linearGradient>");
        }
        Paint::Radial {
            center,
            radius,
            from,
            to,
        } => {
            let c = local(center);
            let r = radius / layer.transform.scale();
            let _ = write!(
                svg,
                r#"<radialGradient id="g{index}" gradientUnits="userSpaceOnUse""#
            );
            for (name, value) in [("cx", c.x), ("cy", c.y), ("r", r)] {
                let _ = write!(svg, r#" {name}=""#);
                number::push(svg, value);
                svg.push('"');
            }
            svg.push('>');
            stops(svg, from, to);
            svg.push_str("</radialGradient>");
        }
        Paint::Solid(_) => {}
    }
}

/// Appends the path data of `path` with absolute commands, horizontal and vertical lines short.
pub(crate) fn push_path(svg: &mut String, path: &Path) {
    let mut current = (f32::NAN, f32::NAN);
    for segment in &path.segments {
        match *segment {
            Segment::Move(p) => {
                svg.push('M');
                number::push(svg, p.x);
                number::push(svg, p.y);
                current = (p.x, p.y);
            }
            Segment::Line(p) => {
                if p.y == current.1 {
                    svg.push('H');
                    number::push(svg, p.x);
                } else if p.x == current.0 {
                    svg.push('V');
                    number::push(svg, p.y);
                } else {
                    svg.push('L');
                    number::push(svg, p.x);
                    number::push(svg, p.y);
                }
                current = (p.x, p.y);
            }
            Segment::Arc {
                to,
                center,
                clockwise,
            } => {
                let r = ((to.x - center.x).powi(2) + (to.y - center.y).powi(2)).sqrt();
                svg.push('A');
                number::push(svg, r);
                number::push(svg, r);
                svg.push_str(if clockwise { " 0 0 1" } else { " 0 0 0" });
                number::push(svg, to.x);
                number::push(svg, to.y);
                current = (to.x, to.y);
            }
            #[cfg(feature = "frame")]
            Segment::Quad { control, to } => {
                svg.push('Q');
                for value in [control.x, control.y, to.x, to.y] {
                    number::push(svg, value);
                }
                current = (to.x, to.y);
            }
            Segment::Close => svg.push('Z'),
        }
    }
}
