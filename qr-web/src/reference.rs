//! The API reference page's content: the OpenAPI document as plain values (operations, parameters with their bounds, bodies, responses, examples, schemas), filled in by the server that mounts the dashboard from the typed tables it serves as `/api/openapi.json`.
//!
//! qr-web cannot see qr-http's document types (qr-http depends on qr-web), so the server walks
//! its typed document into these values and hands them over in [`crate::WebConfig`]. A schema
//! arrives as the JSON Schema the document writes; [`Schema::of`] reads it generically, so a
//! keyword added to the document shows on the page as `keyword: value` at once, and in words once
//! [`Schema::bounds`] has a phrase for it.

use serde_json::Value;

/// The whole reference.
#[derive(Debug, Clone, Default)]
pub struct ApiReference {
    /// The API's title.
    pub title: String,
    /// The API's version.
    pub version: String,
    /// What the API is, in a paragraph.
    pub description: String,
    /// The base URL requests go to.
    pub server: String,
    /// The ways to present the key: a name and how.
    pub auth: Vec<(String, String)>,
    /// Every operation, in the document's order (path, then method).
    pub operations: Vec<Operation>,
    /// The component schemas by name, which operations refer to.
    pub schemas: Vec<(String, Schema)>,
}

/// One operation: a method on a path.
#[derive(Debug, Clone, Default)]
pub struct Operation {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The path template, `/r/{shortCode}`.
    pub path: String,
    /// What it does, in a line.
    pub summary: String,
    /// The document's `operationId`, the page's anchor.
    pub id: String,
    /// Whether it is answered without an API key.
    pub public: bool,
    /// Its parameters.
    pub parameters: Vec<Parameter>,
    /// Its request bodies by media type.
    pub bodies: Vec<Body>,
    /// Its answers by status.
    pub responses: Vec<Response>,
    /// Whole example requests: a summary and the query string.
    pub examples: Vec<(String, String)>,
}

/// One parameter.
#[derive(Debug, Clone)]
pub struct Parameter {
    /// Its name.
    pub name: String,
    /// Where it goes: `query`, `header` or `path`.
    pub location: String,
    /// Whether it must be sent.
    pub required: bool,
    /// Its values.
    pub schema: Schema,
    /// What it means.
    pub description: String,
    /// A value it may take, as written in a request.
    pub example: Option<String>,
}

/// A request or response body of one media type.
#[derive(Debug, Clone)]
pub struct Body {
    /// The media type.
    pub media_type: String,
    /// Its schema.
    pub schema: Schema,
}

/// One answer of an operation.
#[derive(Debug, Clone)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// When it is answered, and why.
    pub description: String,
    /// The headers it carries.
    pub headers: Vec<String>,
    /// Its bodies by media type.
    pub bodies: Vec<Body>,
}

/// A JSON Schema as the page shows it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Schema {
    /// `type` (`string`, or `string or null`); `None` for a reference, a `oneOf` or a `const`.
    pub type_name: Option<String>,
    /// The component schema it refers to (`$ref`), by name.
    pub reference: Option<String>,
    /// Its description.
    pub description: Option<String>,
    /// Every other keyword with its value, in the document's order.
    pub keywords: Vec<(String, Value)>,
    /// An object's members.
    pub members: Vec<Member>,
    /// An array's items.
    pub items: Option<Box<Schema>>,
    /// `oneOf`'s alternatives.
    pub variants: Vec<Schema>,
}

/// A member of an object schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    /// Its name.
    pub name: String,
    /// Whether it must be present.
    pub required: bool,
    /// Its values.
    pub schema: Schema,
}

/// A member as a table row: inline objects and arrays of them are spelled out with dotted names
/// (`utm.source`, `rules[].targetUrl`).
#[derive(Debug, Clone, PartialEq)]
pub struct MemberRow {
    /// The dotted name.
    pub name: String,
    /// Whether it must be present (in its object).
    pub required: bool,
    /// The schema.
    pub schema: Schema,
}

const COMPONENT_PREFIX: &str = "#/components/schemas/";

impl ApiReference {
    /// The component schema `name`.
    pub fn schema(&self, name: &str) -> Option<&Schema> {
        self.schemas
            .iter()
            .find(|(component, _)| component == name)
            .map(|(_, schema)| schema)
    }
}

impl Schema {
    /// Reads a schema as the document writes it: the structural keywords (`type`, `$ref`,
    /// `description`, `properties`, `required`, `items`, `oneOf`) into their fields, every other
    /// keyword into `keywords` as it is.
    pub fn of(json: &Value) -> Schema {
        let Value::Object(map) = json else {
            return Schema::default();
        };
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut schema = Schema::default();
        for (keyword, value) in map {
            match keyword.as_str() {
                "type" => schema.type_name = Some(type_name(value)),
                "$ref" => {
                    let target = value.as_str().unwrap_or_default();
                    schema.reference = Some(
                        target
                            .strip_prefix(COMPONENT_PREFIX)
                            .unwrap_or(target)
                            .to_owned(),
                    );
                }
                "description" => schema.description = value.as_str().map(str::to_owned),
                "required" => {}
                "properties" => {
                    if let Value::Object(members) = value {
                        schema.members = members
                            .iter()
                            .map(|(name, member)| Member {
                                name: name.clone(),
                                required: required.contains(&name.as_str()),
                                schema: Schema::of(member),
                            })
                            .collect();
                    }
                }
                "items" => schema.items = Some(Box::new(Schema::of(value))),
                "oneOf" => {
                    schema.variants = value
                        .as_array()
                        .map(|all| all.iter().map(Schema::of).collect())
                        .unwrap_or_default();
                }
                _ => schema.keywords.push((keyword.clone(), value.clone())),
            }
        }
        schema
    }

    /// The kind of value in a few words: `string`, `array of Link`, `one of string, integer`.
    pub fn kind(&self) -> String {
        if let Some(name) = &self.reference {
            return name.clone();
        }
        if !self.variants.is_empty() {
            let all: Vec<String> = self.variants.iter().map(Schema::kind).collect();
            return format!("one of {}", all.join(", "));
        }
        match (&self.type_name, &self.items) {
            (Some(t), Some(items)) => format!("{t} of {}", items.kind()),
            (Some(t), None) => t.clone(),
            (None, _) => self
                .keyword("const")
                .map_or_else(|| "any".to_owned(), |v| format!("exactly {}", text(v))),
        }
    }

    /// The component schema a reader follows for the details: its own, or its items'.
    pub fn link(&self) -> Option<&str> {
        self.reference
            .as_deref()
            .or_else(|| self.items.as_ref().and_then(|items| items.link()))
    }

    /// The value of a keyword of `keywords`.
    pub fn keyword(&self, name: &str) -> Option<&Value> {
        self.keywords
            .iter()
            .find(|(keyword, _)| keyword == name)
            .map(|(_, value)| value)
    }

    /// Every bound and rule of the value in words, one per keyword (`default` and `example` are
    /// shown apart); a keyword without a phrase reads `keyword: value`.
    pub fn bounds(&self) -> Vec<String> {
        let number = |name: &str| self.keyword(name).and_then(Value::as_i64).map(grouped);
        let mut out = Vec::new();
        match (number("minimum"), number("maximum")) {
            (Some(least), Some(most)) => out.push(format!("from {least} to {most}")),
            (Some(least), None) => out.push(format!("at least {least}")),
            (None, Some(most)) => out.push(format!("at most {most}")),
            (None, None) => {}
        }
        match (number("minLength"), number("maxLength")) {
            (Some(least), Some(most)) if least == most => {
                out.push(format!("exactly {least} characters"));
            }
            (Some(least), Some(most)) => out.push(format!("{least} to {most} characters")),
            (Some(least), None) => out.push(format!("at least {least} characters")),
            (None, Some(most)) => out.push(format!("at most {most} characters")),
            (None, None) => {}
        }
        match (number("minItems"), number("maxItems")) {
            (Some(least), Some(most)) => out.push(format!("{least} to {most} items")),
            (Some(least), None) => out.push(format!("at least {least} items")),
            (None, Some(most)) => out.push(format!("at most {most} items")),
            (None, None) => {}
        }
        for (keyword, value) in &self.keywords {
            match keyword.as_str() {
                "minimum" | "maximum" | "minLength" | "maxLength" | "minItems" | "maxItems"
                | "default" | "example" => {}
                "enum" => {
                    let all: Vec<String> = value
                        .as_array()
                        .map(|v| v.iter().map(text).collect())
                        .unwrap_or_default();
                    out.push(format!("one of: {}", all.join(", ")));
                }
                "const" if self.type_name.is_some() => out.push(format!("exactly {}", text(value))),
                "const" => {}
                "format" => out.push(format!("format {}", text(value))),
                "pattern" => out.push(format!("matches {}", text(value))),
                "uniqueItems" if value == &Value::Bool(true) => {
                    out.push("no item twice".to_owned());
                }
                "additionalProperties" if value == &Value::Bool(false) => {
                    out.push("no other members".to_owned());
                }
                "minProperties" if value == &Value::from(1) => {
                    out.push("at least one member".to_owned());
                }
                "minProperties" => out.push(format!("at least {} members", text(value))),
                _ => out.push(format!("{keyword}: {}", text(value))),
            }
        }
        out
    }

    /// The default value, as a request writes it.
    pub fn default_value(&self) -> Option<String> {
        self.keyword("default").map(text)
    }

    /// The example value, as indented JSON.
    pub fn example(&self) -> Option<String> {
        self.keyword("example")
            .map(|v| serde_json::to_string_pretty(v).unwrap_or_default())
    }

    /// The members as table rows, inline objects (and arrays of them) spelled out.
    pub fn member_rows(&self) -> Vec<MemberRow> {
        let mut rows = Vec::new();
        spell_out(&self.members, "", &mut rows);
        rows
    }
}

fn spell_out(members: &[Member], prefix: &str, rows: &mut Vec<MemberRow>) {
    for member in members {
        let name = format!("{prefix}{}", member.name);
        rows.push(MemberRow {
            name: name.clone(),
            required: member.required,
            schema: member.schema.clone(),
        });
        spell_out(&member.schema.members, &format!("{name}."), rows);
        if let Some(items) = &member.schema.items {
            spell_out(&items.members, &format!("{name}[]."), rows);
        }
    }
}

/// A whole number with thousands separators: `2,953`, `-1,000`.
pub fn grouped(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if n < 0 {
        out.push('-');
    }
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `"string"` → `string`; `["string", "null"]` → `string or null`.
fn type_name(value: &Value) -> String {
    match value {
        Value::Array(all) => all.iter().map(text).collect::<Vec<_>>().join(" or "),
        other => text(other),
    }
}

/// A value as a request writes it: a string bare, anything else as JSON.
fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_keyword_is_read_and_the_known_ones_are_worded() {
        let schema = Schema::of(&json!({
            "type": ["object", "null"], "additionalProperties": false, "required": ["a"],
            "description": "A thing.",
            "properties": {
                "a": {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[a-z]+$"},
                "b": {"type": "array", "items": {"$ref": "#/components/schemas/Link"}, "maxItems": 3},
                "c": {"type": "integer", "minimum": 1, "maximum": 5, "default": 2},
                "d": {"type": "object", "properties": {"e": {"type": "string", "enum": ["x", "y"]}}},
                "f": {"type": "string", "x-new-keyword": 7}
            }
        }));
        assert_eq!(schema.kind(), "object or null");
        assert_eq!(schema.bounds(), ["no other members"]);
        let rows = schema.member_rows();
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "d", "d.e", "f"]);
        assert!(rows[0].required && !rows[1].required);
        assert_eq!(
            rows[0].schema.bounds(),
            ["1 to 200 characters", "matches ^[a-z]+$"]
        );
        assert_eq!(rows[1].schema.kind(), "array of Link");
        assert_eq!(rows[1].schema.link(), Some("Link"));
        assert_eq!(rows[1].schema.bounds(), ["at most 3 items"]);
        assert_eq!(rows[2].schema.bounds(), ["from 1 to 5"]);
        assert_eq!(rows[2].schema.default_value().as_deref(), Some("2"));
        assert_eq!(rows[4].schema.bounds(), ["one of: x, y"]);
        assert_eq!(rows[5].schema.bounds(), ["x-new-keyword: 7"]);
        assert_eq!(
            Schema::of(&json!({"type": "string", "maxLength": 2953})).bounds(),
            ["at most 2,953 characters"]
        );
        assert_eq!(grouped(-1_000_000), "-1,000,000");
        assert_eq!(grouped(999), "999");
    }
}
