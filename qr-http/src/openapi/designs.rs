//! `/api/designs` (saved designs) and `GET /api/links/qr` (a link's code in its design) with the design schemas.

use qr_domain::designs::design::{MAX_DESIGN_NAME_CHARS, MAX_DESIGNS, MAX_LOGO_BYTES};
use qr_domain::designs::look::is_look_parameter;
use serde_json::json;

use crate::routes::Method;

use super::generate::parameters::settings;
use super::json_schema::{
    Format, Schema, array, binary, boolean, count, object, reference, string,
};
use super::keyed::{self, KeyedOperation};
use super::model::{Example, HeaderObject, Operation, Parameter, Response};

/// The `id` parameter of one design.
fn id_parameter() -> Parameter {
    Parameter::query(
        "id",
        string().min_length(1),
        "Design identifier (a UUID; a malformed one is 404 like an unknown one, an empty one 400)",
    )
    .required()
    .example(Example::Text("5d0c3f1e-2b7a-4c9e-8f61-0a4b7d2e9c13"))
}

/// `/api/designs`: list (and HEAD) or show, create, change, remove.
pub(super) fn designs() -> Vec<(Method, Operation)> {
    let get = KeyedOperation::new(
        "getDesigns",
        "With id: one of the account's designs with its logo's data; without: all of them, by name",
    )
    .parameters(vec![
        Parameter::query(
            "id",
            string().min_length(1),
            "Design identifier; absent lists every design (empty is 400)",
        )
        .example(Example::Text("5d0c3f1e-2b7a-4c9e-8f61-0a4b7d2e9c13")),
    ])
    .success(
        200,
        Response::new("A Design (with id), or {designs: [Design]}").json(Schema::AnyOf(vec![
            reference("Design").into(),
            reference("DesignList").into(),
        ])),
    )
    .errors(&[404]);
    let create = KeyedOperation::new(
        "createDesign",
        format!("Save a design (at most {MAX_DESIGNS} per account; a logo needs Pro)"),
    )
    .body("NewDesign")
    .success(201, Response::new("The design").json(reference("Design")))
    .errors(&[408, 413]);
    let update = KeyedOperation::new(
        "updateDesign",
        "Change a design: a new name, a new look (replacing the whole look), a new logo (null removes it), or make it the default (or not)",
    )
    .parameters(vec![id_parameter()])
    .body("DesignChange")
    .success(200, Response::new("The design").json(reference("Design")))
    .errors(&[404, 408, 413]);
    let delete = KeyedOperation::new(
        "deleteDesign",
        "Remove a design no link names (409 says how many do)",
    )
    .parameters(vec![id_parameter()])
    .success(204, Response::new("Removed"))
    .errors(&[404, 409]);
    keyed::operations(vec![
        (Method::Get, get),
        (Method::Post, create),
        (Method::Put, update),
        (Method::Delete, delete),
    ])
}

/// `GET /api/links/qr?id=` (and its HEAD twin).
pub(super) fn link_code() -> Vec<(Method, Operation)> {
    let image = Response::new("The image")
        .header("ETag", HeaderObject::new(string()))
        .body("image/png", binary())
        .body("image/svg+xml", string())
        .body("application/pdf", binary())
        .body("application/postscript", string());
    let mut parameters = vec![
        Parameter::query(
            "id",
            string().min_length(1),
            "Link identifier (a UUID; a malformed one is 404 like an unknown one)",
        )
        .required()
        .example(Example::Text("4f7c2a9e-1b3d-4e5f-8a6b-7c9d0e1f2a3b")),
    ];
    parameters.extend(
        settings()
            .into_iter()
            .filter(|s| s.name != "data" && s.name != "logo")
            .map(|s| {
                let description = if is_look_parameter(s.name) {
                    "Overrides the design's value for this request"
                } else {
                    s.description
                };
                Parameter {
                    example: None,
                    ..Parameter::query(s.name, s.schema, description)
                }
            }),
    );
    keyed::operations(vec![(
        Method::Get,
        KeyedOperation::new(
            "getLinkCode",
            "The link's QR code: its shortUrl in the link's design, else the account's default design, else plain; counted and cached as generate",
        )
        .parameters(parameters)
        .success(200, image)
        .success(
            304,
            Response::new("Not modified (If-None-Match matched the ETag)"),
        )
        .errors(&[404, 422]),
    )])
}

/// The look as a request gives it: each look parameter with generate's schema.
fn look_input() -> Schema {
    let mut look = object()
        .closed()
        .describe("Generate parameters describing looks; a value generate refuses is 400 with generate's message");
    for setting in settings().into_iter().filter(|s| is_look_parameter(s.name)) {
        look = look.property(setting.name, setting.schema);
    }
    look.into()
}

/// The logo as a request gives it.
fn logo_input() -> Schema {
    let data = string().describe(format!(
        "The image in standard base64; at most {MAX_LOGO_BYTES} bytes decoded"
    ));
    Schema::AnyOf(vec![
        object()
            .required(&["data"])
            .closed()
            .property(
                "mediaType",
                string().describe("image/png or image/jpeg; must match the image"),
            )
            .property("data", data)
            .into(),
        string()
            .pattern("^data:")
            .describe("A data: URL, data:image/png;base64,<data>")
            .into(),
        Schema::Const(super::json_schema::Constant::Null),
    ])
}

fn name_input() -> Schema {
    string()
        .min_length(1)
        .max_length(MAX_DESIGN_NAME_CHARS)
        .describe(format!(
            "1 to {MAX_DESIGN_NAME_CHARS} characters after trimming, no control characters"
        ))
        .into()
}

/// The design schemas: `Design`, `DesignList`, `NewDesign`, `DesignChange`.
pub(super) fn schemas() -> Vec<(&'static str, Schema)> {
    let logo = object()
        .nullable()
        .required(&["mediaType", "bytes"])
        .closed()
        .property("mediaType", string())
        .property("bytes", count())
        .property(
            "data",
            string().describe("The image in base64 (GET with id only)"),
        );
    let mut look = object().closed();
    for setting in settings().into_iter().filter(|s| is_look_parameter(s.name)) {
        look = look.property(setting.name, string());
    }
    let design = object()
        .required(&[
            "id",
            "name",
            "look",
            "logo",
            "isDefault",
            "createdAt",
            "updatedAt",
        ])
        .closed()
        .property("id", string().format(Format::Uuid))
        .property("name", string())
        .property(
            "look",
            look.describe("The design's generate parameters, as text"),
        )
        .property("logo", logo)
        .property("isDefault", boolean())
        .property("createdAt", string().format(Format::DateTime))
        .property("updatedAt", string().format(Format::DateTime));
    let list = object()
        .required(&["designs"])
        .closed()
        .property("designs", array(reference("Design")));
    let new_design = object()
        .required(&["name"])
        .closed()
        .property("name", name_input())
        .property("look", look_input())
        .property("logo", logo_input())
        .property("isDefault", boolean())
        .example(json!({"name": "Brand", "look": {"color": "1a237e", "style": "dots"}, "isDefault": true}));
    let change = object()
        .closed()
        .property("name", name_input())
        .property("look", look_input())
        .property("logo", logo_input())
        .property("isDefault", boolean())
        .example(json!({"name": "Brand (autumn)", "look": {"color": "bf360c"}}));
    vec![
        ("Design", design.into()),
        ("DesignList", list.into()),
        ("NewDesign", new_design.into()),
        ("DesignChange", change.into()),
    ]
}
