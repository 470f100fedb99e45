//! The outline of the dark modules: boundary edges linked into closed figures, with every convex corner rounded by the style's radius.

use super::outline::{Outline, STEPS, Turn, UNIT};
use super::shapes::Corner;
use crate::grid::WORDS;

/// Appends the outline of the dark modules of an `n` x `n` grid: outer figures clockwise and
/// holes anticlockwise (y down), for the nonzero rule. Modules that touch only at a corner stay
/// separate figures. `radius(x, y, corner)` gives the radius, in thousandths of a module, of a
/// convex corner of the dark module (`x`, `y`).
#[cfg(test)]
pub(crate) fn trace(
    outline: &mut Outline,
    n: usize,
    dark: impl Fn(usize, usize) -> bool,
    radius: impl Fn(usize, usize, Corner) -> i32,
) {
    let rows: Vec<[u64; WORDS]> = (0..n)
        .map(|y| {
            let mut row = [0u64; WORDS];
            for x in (0..n).filter(|&x| dark(x, y)) {
                row[x / 64] |= 1 << (x % 64);
            }
            row
        })
        .collect();
    trace_rows(outline, &rows, radius);
}

/// [`trace`] of the dark modules given as rows of bits (module `x` of a row is bit `x % 64` of
/// word `x / 64`), one row per line of the `rows.len()` x `rows.len()` grid.
///
/// The boundary edges come from whole words at a time (a side is an edge where the neighbour's
/// bit is clear): asking for each module's four neighbours one at a time cost a rounded SVG
/// about 60 thousand instructions.
pub(crate) fn trace_rows(
    outline: &mut Outline,
    rows: &[[u64; WORDS]],
    radius: impl Fn(usize, usize, Corner) -> i32,
) {
    let n = rows.len();
    let side = n + 1;
    // For every grid vertex, the directions of the boundary edges that leave it.
    let mut exits = vec![0u8; side * side];
    let empty = [0u64; WORDS];
    for (y, row) in rows.iter().enumerate() {
        let up = if y > 0 { &rows[y - 1] } else { &empty };
        let down = rows.get(y + 1).unwrap_or(&empty);
        for w in 0..WORDS {
            let bits = row[w];
            if bits == 0 {
                continue;
            }
            // The neighbours to the left (bit x - 1) and right (bit x + 1) of every module.
            let left = bits << 1 | if w > 0 { row[w - 1] >> 63 } else { 0 };
            let right = bits >> 1 | row.get(w + 1).map_or(0, |next| next << 63);
            // Each side without a dark neighbour is an edge with the module on its right:
            // (edge bits, vertex offset, direction).
            let sides = [
                (bits & !up[w], (0, 0), 0u8),
                (bits & !right, (1, 0), 1),
                (bits & !down[w], (1, 1), 2),
                (bits & !left, (0, 1), 3),
            ];
            for (mut edges, (vx, vy), direction) in sides {
                while edges != 0 {
                    let x = w * 64 + edges.trailing_zeros() as usize;
                    edges &= edges - 1;
                    exits[(y + vy) * side + x + vx] |= 1 << direction;
                }
            }
        }
    }
    let edges = exits.clone();
    for start in 0..exits.len() {
        while exits[start] != 0 {
            let first = exits[start].trailing_zeros() as usize;
            let (start_x, start_y) = ((start % side) as i32, (start / side) as i32);
            let (mut x, mut y, mut direction) = (start_x, start_y, first);
            // Every edge is walked once; the bound only guards against a broken grid.
            for _ in 0..=4 * n * n {
                exits[y as usize * side + x as usize] &= !(1 << direction);
                let (dx, dy) = STEPS[direction];
                (x, y) = (x + dx, y + dy);
                let next = edges[y as usize * side + x as usize];
                // Turning right first keeps modules that touch at a corner apart.
                let right = (direction + 1) % 4;
                let left = (direction + 3) % 4;
                let out = if next & (1 << right) != 0 {
                    right
                } else if next & (1 << direction) != 0 {
                    direction
                } else if next & (1 << left) != 0 {
                    left
                } else {
                    direction
                };
                if out != direction {
                    let r = if out == right {
                        // The module inside a right turn: the quarter between the two sides.
                        let (ox, oy) = STEPS[out];
                        let (qx, qy) = (ox - dx, oy - dy);
                        let (cx, cy) = (x - i32::from(qx < 0), y - i32::from(qy < 0));
                        let corner = match (qx < 0, qy < 0) {
                            (false, false) => Corner::TopLeft,
                            (true, false) => Corner::TopRight,
                            (true, true) => Corner::BottomRight,
                            (false, true) => Corner::BottomLeft,
                        };
                        radius(cx as usize, cy as usize, corner)
                    } else {
                        0
                    };
                    outline.turns.push(Turn {
                        x: x * UNIT,
                        y: y * UNIT,
                        incoming: direction as u8,
                        outgoing: out as u8,
                        radius: r,
                    });
                }
                direction = out;
                if (x, y) == (start_x, start_y) && direction == first {
                    break;
                }
            }
            outline.close();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::path::{Path, Segment, Transform};
    use super::*;

    fn traced(n: usize, dark: impl Fn(usize, usize) -> bool, radius: i32) -> Path {
        let mut outline = Outline::default();
        trace(&mut outline, n, dark, |_, _, _| radius);
        let mut path = Path::default();
        outline.append_to(&mut path);
        path
    }

    fn area(path: &Path) -> f32 {
        let mut twice = 0.0;
        path.flatten(&Transform::IDENTITY, 0.0001, |a, b| {
            twice += a.x * b.y - b.x * a.y
        });
        twice / 2.0
    }

    #[test]
    fn outlines_cover_exactly_the_dark_modules() {
        // A ring of 8 modules around a hole, and a module touching it only at a corner.
        let grid = ["###.", "#.#.", "###.", "...#"];
        let dark = |x: usize, y: usize| grid[y].as_bytes()[x] == b'#';
        let path = traced(4, dark, 0);
        let figures = path
            .segments
            .iter()
            .filter(|s| matches!(s, Segment::Move(_)))
            .count();
        assert_eq!(figures, 3, "outer ring, hole, lone module");
        assert!((area(&path) - 9.0).abs() < 1e-4, "{}", area(&path));
    }

    #[test]
    fn rounded_corners_take_their_area_off() {
        let path = traced(1, |_, _| true, 500);
        let circle = std::f32::consts::PI / 4.0;
        assert!((area(&path) - circle).abs() < 1e-3, "{}", area(&path));
    }
}
