//! The print request read from a JSON body (`POST /api/print`): the sheet's fields, the selection (link ids, a tag, all links, or data items read as batch's) and their bounds, each refusal with the API's message.

use qr_core::CropMarks;
use serde_json::{Map, Value};

use super::{
    CaptionKind, CustomGrid, DEFAULT_MARGIN_MM, LabelStock, Layout, MAX_LISTED, Paper, PrintError,
    PrintRequest, PrintSelection, PrintSheet, check_caption, invalid_caption_kind, invalid_layout,
    invalid_paper, items_of_batch,
};
use crate::batch::BatchRequest;

impl PrintRequest {
    /// Parses a JSON body:
    ///
    /// ```json
    /// {"layout": "L7160" | "L7163" | "5160" | "custom", "paper": "a4" | "letter",
    ///  "grid": {"columns": 4, "rows": 10, "marginX": 10, "marginY": 10, "gutterX": 2, "gutterY": 2},
    ///  "caption": "data" | "name" | "none", "cropMarks": false,
    ///  "links": ["<id>", ...] | "tag": "<tag>" | "allLinks": true |
    ///  "items": [{"data": "...", "caption": "...", <generate settings>}], "defaults": {...}}
    /// ```
    ///
    /// The layout defaults to the paper's common stock (L7160 on A4, 5160 on Letter); data
    /// items and defaults read as batch's, and every item must be valid.
    pub fn from_json(body: &[u8]) -> Result<PrintRequest, PrintError> {
        let value: Value =
            serde_json::from_slice(body).map_err(|e| PrintError::InvalidJson(e.to_string()))?;
        let Value::Object(object) = value else {
            return Err(PrintError::NotAnObject);
        };
        let paper = match object.get("paper") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(Paper::parse(s).ok_or_else(invalid_paper)?),
            Some(_) => return Err(invalid_paper()),
        };
        let layout = match object.get("layout") {
            None | Some(Value::Null) => Layout::Stock(match paper {
                Some(Paper::Letter) => LabelStock::Avery5160,
                _ => LabelStock::L7160,
            }),
            Some(Value::String(s)) if s.trim().eq_ignore_ascii_case("custom") => {
                Layout::Custom(custom_grid(object.get("grid"))?)
            }
            Some(Value::String(s)) => {
                Layout::Stock(LabelStock::parse(s).ok_or_else(invalid_layout)?)
            }
            Some(_) => return Err(invalid_layout()),
        };
        if object.contains_key("grid") && !matches!(layout, Layout::Custom(_)) {
            return Err(PrintError::Invalid {
                field: "grid",
                rule: "a grid needs \"layout\": \"custom\"".to_owned(),
            });
        }
        let crop_marks = match object.get("cropMarks") {
            None | Some(Value::Null | Value::Bool(false)) => CropMarks::None,
            Some(Value::Bool(true)) => CropMarks::AtCellEdges,
            Some(_) => {
                return Err(PrintError::Invalid {
                    field: "cropMarks",
                    rule: "it must be true or false".to_owned(),
                });
            }
        };
        let caption = match object.get("caption") {
            None | Some(Value::Null) => CaptionKind::default(),
            Some(Value::String(s)) => CaptionKind::parse(s).ok_or_else(invalid_caption_kind)?,
            Some(_) => return Err(invalid_caption_kind()),
        };
        let sheet = PrintSheet::new(layout, paper, crop_marks)?;
        let selection = selection(&object)?;
        Ok(PrintRequest {
            sheet,
            caption,
            selection,
        })
    }
}

/// Reads the `grid` object of a custom layout.
fn custom_grid(value: Option<&Value>) -> Result<CustomGrid, PrintError> {
    let Some(Value::Object(grid)) = value else {
        return Err(PrintError::Invalid {
            field: "grid",
            rule: "a custom layout needs a grid object with columns and rows".to_owned(),
        });
    };
    let count = |field: &'static str, name: &str| -> Result<u32, PrintError> {
        grid.get(name)
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| PrintError::Invalid {
                field,
                rule: "it must be a whole number".to_owned(),
            })
    };
    let length = |field: &'static str, name: &str, default: f64| -> Result<f64, PrintError> {
        match grid.get(name) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => v.as_f64().ok_or_else(|| PrintError::Invalid {
                field,
                rule: "it must be a number of millimetres".to_owned(),
            }),
        }
    };
    Ok(CustomGrid {
        columns: count("grid.columns", "columns")?,
        rows: count("grid.rows", "rows")?,
        margin_x: length("grid.marginX", "marginX", DEFAULT_MARGIN_MM)?,
        margin_y: length("grid.marginY", "marginY", DEFAULT_MARGIN_MM)?,
        gutter_x: length("grid.gutterX", "gutterX", 0.0)?,
        gutter_y: length("grid.gutterY", "gutterY", 0.0)?,
    })
}

/// Reads exactly one of `links`, `tag`, `allLinks` and `items`.
fn selection(object: &Map<String, Value>) -> Result<PrintSelection, PrintError> {
    let given = ["links", "tag", "allLinks", "items"]
        .iter()
        .filter(|name| object.get(**name).is_some_and(|v| !v.is_null()))
        .count();
    if given != 1 {
        return Err(PrintError::SelectionRequired);
    }
    let listed_bound = |field: &'static str| PrintError::Invalid {
        field,
        rule: format!("list 1 to {MAX_LISTED}"),
    };
    if let Some(links) = object.get("links").filter(|v| !v.is_null()) {
        let Value::Array(links) = links else {
            return Err(listed_bound("links"));
        };
        if links.is_empty() || links.len() > MAX_LISTED {
            return Err(listed_bound("links"));
        }
        let ids = links
            .iter()
            .map(|id| match id {
                Value::String(s) => Ok(s.clone()),
                _ => Err(PrintError::Invalid {
                    field: "links",
                    rule: "each link is its id as a string".to_owned(),
                }),
            })
            .collect::<Result<_, _>>()?;
        return Ok(PrintSelection::LinkIds(ids));
    }
    if let Some(tag) = object.get("tag").filter(|v| !v.is_null()) {
        return match tag {
            Value::String(s) if !s.trim().is_empty() => Ok(PrintSelection::Tag(s.clone())),
            _ => Err(PrintError::Invalid {
                field: "tag",
                rule: "it must be a tag's text".to_owned(),
            }),
        };
    }
    if let Some(all) = object.get("allLinks").filter(|v| !v.is_null()) {
        return match all {
            Value::Bool(true) => Ok(PrintSelection::AllLinks),
            _ => Err(PrintError::Invalid {
                field: "allLinks",
                rule: "it must be true (or left out)".to_owned(),
            }),
        };
    }
    data_items(object)
}

/// Reads `items` and `defaults` as batch does, then checks every item.
fn data_items(object: &Map<String, Value>) -> Result<PrintSelection, PrintError> {
    let Some(Value::Array(items)) = object.get("items") else {
        return Err(PrintError::Invalid {
            field: "items",
            rule: format!("list 1 to {MAX_LISTED}"),
        });
    };
    if items.is_empty() || items.len() > MAX_LISTED {
        return Err(PrintError::Invalid {
            field: "items",
            rule: format!("list 1 to {MAX_LISTED}"),
        });
    }
    let mut batch = Map::new();
    batch.insert("items".to_owned(), Value::Array(items.clone()));
    if let Some(defaults) = object.get("defaults") {
        batch.insert("defaults".to_owned(), defaults.clone());
    }
    let body = Value::Object(batch).to_string();
    let defaults = |e: crate::BatchError| PrintError::Defaults(e.to_string());
    let request = BatchRequest::from_json(body.as_bytes()).map_err(defaults)?;
    request.validate(u32::MAX).map_err(defaults)?;
    let captions = items
        .iter()
        .map(|item| item.get("caption").cloned())
        .collect::<Vec<_>>();
    let mut parsed = items_of_batch(&request)?;
    for (index, (item, caption)) in parsed.iter_mut().zip(captions).enumerate() {
        let invalid = |error: String| PrintError::InvalidItem { index, error };
        item.caption = match caption {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) => Some(check_caption(&text).map_err(invalid)?),
            Some(_) => return Err(invalid("caption must be text".to_owned())),
        };
    }
    Ok(PrintSelection::Items(parsed))
}
