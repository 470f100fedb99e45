//! `POST /api/print`: label sheets as one PDF, with the print request's schemas (`PrintRequest`, `PrintGrid`, `PrintItem`).

use serde_json::json;

use qr_generate::print::{
    CaptionKind, DEFAULT_MARGIN_MM, LabelStock, MAX_CAPTION_CHARS, MAX_COLUMNS, MAX_LISTED,
    MAX_MARGIN_MM, MAX_ROWS, MIN_CELL_MM, Paper,
};

use crate::routes::Method;

use super::json_schema::{
    Schema, array, binary, boolean, integer, number, object, one_of_strings, reference, string,
};
use super::keyed::{self, KeyedOperation};
use super::model::{HeaderObject, Operation, Response};

/// `POST /api/print`.
pub(super) fn print() -> Vec<(Method, Operation)> {
    let sheet = Response::new("The label sheets: one PDF, as many pages as the codes fill")
        .header(
            "Content-Disposition",
            HeaderObject::new(string().describe(
                "attachment; filename=qrcodes-<layout>.pdf (L7160, L7163, 5160 or custom)",
            )),
        )
        .body("application/pdf", binary());
    keyed::operations(vec![(
        Method::Post,
        KeyedOperation::new(
            "print",
            "Print many QR codes on label sheets as one PDF (Pro and Enterprise)",
        )
        .body("PrintRequest")
        .success(200, sheet)
        .errors(&[404, 408, 413]),
    )])
}

/// The component schemas of print.
pub(super) fn schemas() -> Vec<(&'static str, Schema)> {
    let layouts: Vec<&'static str> = LabelStock::ALL
        .iter()
        .map(|s| s.name())
        .chain(["custom"])
        .collect();
    let millimetres = |what: &'static str, default: f64| {
        number(0.0, MAX_MARGIN_MM)
            .default_value(default)
            .describe(format!("{what}, in millimetres"))
    };
    vec![
        (
            "PrintGrid",
            object()
                .required(&["columns", "rows"])
                .property("columns", integer().range(1, MAX_COLUMNS))
                .property("rows", integer().range(1, MAX_ROWS))
                .property("marginX", millimetres("The left and right margins", DEFAULT_MARGIN_MM))
                .property("marginY", millimetres("The top and bottom margins", DEFAULT_MARGIN_MM))
                .property("gutterX", millimetres("The gap between columns", 0.0))
                .property("gutterY", millimetres("The gap between rows", 0.0))
                .describe(format!(
                    "Equal cells filling the paper between the margins; each cell must be at least {MIN_CELL_MM} mm on each side"
                ))
                .into(),
        ),
        (
            "PrintItem",
            object()
                .property(
                    "caption",
                    string().max_length(MAX_CAPTION_CHARS).describe(
                        "Free text under this code (printable ASCII and Latin-1), instead of what the request's caption names",
                    ),
                )
                .describe("A data item: data or type with its fields, and the settings of a BatchItem (filename is not used); every item must be valid")
                .into(),
        ),
        (
            "PrintRequest",
            object()
                .property(
                    "layout",
                    one_of_strings(layouts).describe(
                        "Avery L7160 (A4, 21 labels of 63.5 x 38.1 mm), L7163 (A4, 14 of 99.1 x 38.1 mm), 5160 (Letter, 30 of 2-5/8 x 1 in) or custom (grid). Default: L7160 on A4, 5160 on Letter",
                    ),
                )
                .property(
                    "paper",
                    one_of_strings(Paper::ALL.iter().map(|p| p.name())).describe(
                        "a4 or letter; a stock comes on its own paper (another is refused). Default: the stock's, a4 for a custom grid",
                    ),
                )
                .property("grid", reference("PrintGrid"))
                .property(
                    "caption",
                    one_of_strings(
                        CaptionKind::ALL
                            .iter()
                            .map(|k| k.name())
                            .chain(["shortUrl"]),
                    )
                    .describe(
                        "The line under each code: data (a link's short URL, an item's data; shortUrl is the same), name (a link's name) or none. Default: data",
                    ),
                )
                .property(
                    "cropMarks",
                    boolean()
                        .default_value(false)
                        .describe("Hairlines in the margin along every cell edge, for cutting plain paper"),
                )
                .property(
                    "links",
                    array(string())
                        .min_items(1)
                        .max_items(MAX_LISTED)
                        .describe("The account's links by id, in this order, each in its design (another account's id is 404 Link not found)"),
                )
                .property("tag", string().min_length(1).describe("The account's links with this tag, oldest first"))
                .property("allLinks", boolean().describe("true: all of the account's links, oldest first"))
                .property(
                    "items",
                    array(reference("PrintItem"))
                        .min_items(1)
                        .max_items(MAX_LISTED)
                        .describe("Plain data items, as batch's"),
                )
                .property("defaults", reference("BatchSettings"))
                .describe(
                    "Exactly one of links, tag, allLinks and items. At most 100 codes on Pro, 1,000 on Enterprise (the plan's batch items); plans below Pro are refused as batch is, and a request counts as one batch request",
                )
                .example(json!({
                    "layout": "L7160",
                    "tag": "spring",
                    "caption": "name",
                    "cropMarks": false
                }))
                .into(),
        ),
    ]
}
