//! The JSON of a link in a request body (`POST /api/links`, `PUT /api/links?id=`, each item of `POST /api/links/bulk`): its members read in the API's order into the domain's typed `LinkUpdate`, with the JSON's own errors (a wrong type, an unknown or a missing member) worded here.

use std::fmt;

use qr_domain::LinkUpdate;
use qr_domain::links::bulk::ItemError;
use qr_domain::links::campaign::{
    Conditions, FieldError, FieldRule, LinkField, Rule, RulePart, Tag, Utm, UtmPart, Variant,
    VariantPart, rules,
};
use qr_domain::links::link::LinkError;
use serde_json::{Map, Value};

type Object = Map<String, Value>;

/// Why a link's JSON was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyError {
    /// A required member is absent (`name field required`).
    Missing(&'static str),
    /// The name or the target is not a string, `null` included.
    NotString(&'static str),
    /// A member has the wrong JSON shape.
    Shape {
        /// The member's path.
        field: LinkField,
        /// What it must be.
        shape: Shape,
    },
    /// A rule of the link refused a value.
    Link(LinkError),
}

/// What a member's JSON must be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// A string.
    String,
    /// `true` or `false`.
    Boolean,
    /// An object.
    Object,
    /// A bulk item that is not an object.
    Item,
    /// An array of the named things.
    Array(&'static str),
    /// An object with only the `expected` members; `name` is another.
    Unknown {
        /// The member given.
        name: String,
        /// The members known.
        expected: &'static [&'static str],
    },
    /// An object that lacks the member `name`.
    Required(&'static str),
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::String => f.write_str("it must be a string"),
            Shape::Boolean => f.write_str("it must be true or false"),
            Shape::Object => f.write_str("it must be an object"),
            Shape::Item => f.write_str("it must be a JSON object"),
            Shape::Array(what) => write!(f, "it must be an array of {what}"),
            Shape::Unknown { name, expected } => {
                write!(
                    f,
                    "unknown member {name:?}; expected {}",
                    expected.join(", ")
                )
            }
            Shape::Required(name) => write!(f, "{name} is required"),
        }
    }
}

/// The API's message for a refused link body.
impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BodyError::Missing(name) => write!(f, "{name} field required"),
            BodyError::NotString(name) => write!(f, "{name} must be a string"),
            BodyError::Shape { field, shape } => write!(f, "Invalid {field}: {shape}"),
            BodyError::Link(e) => f.write_str(&crate::error::link_message(e)),
        }
    }
}

impl std::error::Error for BodyError {}

impl From<LinkError> for BodyError {
    fn from(e: LinkError) -> Self {
        BodyError::Link(e)
    }
}

impl From<FieldError> for BodyError {
    fn from(e: FieldError) -> Self {
        BodyError::Link(LinkError::Field(e))
    }
}

type Read<T> = Result<T, BodyError>;

fn shape(field: LinkField, shape: Shape) -> BodyError {
    BodyError::Shape { field, shape }
}

fn rule(field: LinkField) -> impl Fn(FieldRule) -> BodyError {
    move |rule| FieldError::new(field, rule).into()
}

/// The fields of a link creation, as `POST /api/links` and each bulk item read them: `name`
/// then `targetUrl` (each a required string), their rules, then [`campaign_fields`].
pub fn creation(body: &Object) -> Read<LinkUpdate> {
    let required = |name: &'static str| match body.get(name) {
        None => Err(BodyError::Missing(name)),
        Some(Value::String(s)) => Ok(s.as_str()),
        Some(_) => Err(BodyError::NotString(name)),
    };
    let name = required("name")?;
    let target = required("targetUrl")?;
    campaign_fields(LinkUpdate::parse(Some(name), Some(target))?, body)
}

/// One item of a bulk request (or a line of `qr links import`): an object read by
/// `creation` (the API body's reader), or why it was refused as a bulk failure's error.
pub fn bulk_item(item: &Value) -> Result<LinkUpdate, ItemError> {
    let read = match item {
        Value::Object(fields) => creation(fields),
        _ => Err(shape(LinkField::Link, Shape::Item)),
    };
    read.map_err(ItemError::from)
}

/// A refused item: a rule's refusal stays typed, for the caller to word; the JSON's own errors
/// are worded here.
impl From<BodyError> for ItemError {
    fn from(e: BodyError) -> Self {
        match e {
            BodyError::Link(e) => ItemError::from(e),
            other => ItemError::Unread {
                message: other.to_string(),
            },
        }
    }
}

/// The `targetUrl` of a bulk item as given (empty when absent or not a string): its failure's
/// `data`.
pub fn bulk_data(item: &Value) -> String {
    item.get("targetUrl")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// Adds the campaign fields present in `body` (`shortCode`, `tags`, `validFrom`, `validUntil`,
/// `maxScans`, `expiredUrl`, `disabled`, `password`, `rules`, `variants`, `utm`,
/// `forwardQuery`, `domain`, `design`), read in that order. `null` clears a field that can be unset; other members
/// are not read here.
pub fn campaign_fields(mut update: LinkUpdate, body: &Object) -> Read<LinkUpdate> {
    for name in CAMPAIGN_FIELDS {
        if let Some(v) = body.get(name) {
            campaign_field(&mut update, name, v)?;
        }
    }
    Ok(update)
}

/// The campaign fields of a link's JSON, in the order they are read.
pub const CAMPAIGN_FIELDS: [&str; 14] = [
    "shortCode",
    "tags",
    "validFrom",
    "validUntil",
    "maxScans",
    "expiredUrl",
    "disabled",
    "password",
    "rules",
    "variants",
    "utm",
    "forwardQuery",
    "domain",
    "design",
];

/// Sets the campaign field `name` (one of [`CAMPAIGN_FIELDS`]; another name sets nothing) from
/// its JSON value `v`.
pub fn campaign_field(update: &mut LinkUpdate, name: &str, v: &Value) -> Read<()> {
    match name {
        "shortCode" => update.set_short_code(string(LinkField::ShortCode, v)?)?,
        "tags" => update.tags = Some(tags(v)?),
        "validFrom" => {
            update.set_valid_from(nullable(v, |v| instant(LinkField::ValidFrom, v))?);
        }
        "validUntil" => {
            update.set_valid_until(nullable(v, |v| instant(LinkField::ValidUntil, v))?);
        }
        "maxScans" => {
            let n = nullable(v, |v| {
                whole_number(v).ok_or_else(|| rule(LinkField::MaxScans)(FieldRule::MaxScans))
            })?;
            update.set_max_scans(n)?;
        }
        "expiredUrl" => {
            update.set_expired_url(nullable(v, |v| string(LinkField::ExpiredUrl, v))?)?;
        }
        "disabled" => update.set_disabled(boolean(LinkField::Disabled, v)?),
        "password" => update.set_password(nullable(v, |v| string(LinkField::Password, v))?)?,
        "rules" => update.rules = Some(rule_list(v)?),
        "variants" => update.variants = Some(variant_list(v)?),
        "utm" => update.utm = Some(nullable(v, utm)?),
        "forwardQuery" => update.set_forward_query(boolean(LinkField::ForwardQuery, v)?),
        "domain" => match v {
            Value::Null => update.clear_domain(),
            v => update.set_domain(string(LinkField::Domain, v)?)?,
        },
        // A design id names one of the account's designs; anything else names none.
        "design" => match v {
            Value::Null => update.clear_design(),
            v => update.set_design(
                v.as_str()
                    .and_then(|id| id.parse().ok())
                    .ok_or(LinkError::DesignNotFound)?,
            ),
        },
        _ => {}
    }
    Ok(())
}

/// `null` (clear) or a value.
fn nullable<'v, T>(v: &'v Value, f: impl FnOnce(&'v Value) -> Read<T>) -> Read<Option<T>> {
    if v.is_null() {
        Ok(None)
    } else {
        f(v).map(Some)
    }
}

fn string(field: LinkField, v: &Value) -> Read<&str> {
    v.as_str().ok_or_else(|| shape(field, Shape::String))
}

/// A whole number of at least 0, written `5` or `5.0`: JSON (and JSON Schema's `integer`) does
/// not tell them apart. Past 2^53 a fraction cannot be written, so floats stop there.
fn whole_number(v: &Value) -> Option<u64> {
    const EXACT_FLOATS: f64 = 9_007_199_254_740_992.0;
    v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| f.fract() == 0.0 && (0.0..=EXACT_FLOATS).contains(f))
            // The filter keeps whole numbers from 0 to 2^53, which a u64 holds exactly.
            .map(|f| f as u64)
    })
}

fn boolean(field: LinkField, v: &Value) -> Read<bool> {
    v.as_bool().ok_or_else(|| shape(field, Shape::Boolean))
}

/// An ISO 8601 UTC instant; anything but a string breaks the same rule as unreadable text.
fn instant(field: LinkField, v: &Value) -> Read<chrono::DateTime<chrono::Utc>> {
    let text = v
        .as_str()
        .ok_or_else(|| rule(field)(FieldRule::Timestamp))?;
    rules::instant(text).map_err(rule(field))
}

fn url(field: LinkField, v: &Value) -> Read<qr_domain::TargetUrl> {
    rules::url(string(field, v)?).map_err(rule(field))
}

/// A rule's target: a web URL or an app URL ([`rules::rule_target`]).
fn rule_target(field: LinkField, v: &Value) -> Read<qr_domain::links::campaign::RuleTarget> {
    rules::rule_target(string(field, v)?).map_err(rule(field))
}

fn array<'v>(field: LinkField, v: &'v Value, of: &'static str) -> Read<&'v Vec<Value>> {
    v.as_array().ok_or_else(|| shape(field, Shape::Array(of)))
}

fn object(field: LinkField, v: &Value) -> Read<&Object> {
    v.as_object().ok_or_else(|| shape(field, Shape::Object))
}

/// Refuses members other than `known`, so a typo is never silently ignored.
fn only(field: LinkField, o: &Object, known: &'static [&'static str]) -> Read<()> {
    match o.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(shape(
            field,
            Shape::Unknown {
                name: k.clone(),
                expected: known,
            },
        )),
        None => Ok(()),
    }
}

/// An object with only the `known` members, every one required, their values in order.
fn members<'v, const N: usize>(
    field: LinkField,
    item: &'v Value,
    known: &'static [&'static str; N],
) -> Read<[&'v Value; N]> {
    let o = object(field, item)?;
    only(field, o, known)?;
    let mut values = [&Value::Null; N];
    for (slot, name) in values.iter_mut().zip(known) {
        *slot = o
            .get(*name)
            .ok_or_else(|| shape(field, Shape::Required(name)))?;
    }
    Ok(values)
}

fn tags(v: &Value) -> Read<Vec<Tag>> {
    let items = array(LinkField::Tags, v, "strings")?;
    rules::tag_count(items.len()).map_err(rule(LinkField::Tags))?;
    let mut out: Vec<Tag> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let field = LinkField::Tag(i);
        let tag = rules::tag(string(field, item)?).map_err(rule(field))?;
        // A repeated tag is kept once.
        if !out.contains(&tag) {
            out.push(tag);
        }
    }
    Ok(out)
}

const CONDITIONS: &[&str] = &["device", "os", "country", "language"];

fn conditions(i: usize, v: &Value) -> Read<Conditions> {
    let at = |part| LinkField::Rule(i, part);
    let o = object(at(RulePart::When), v)?;
    only(at(RulePart::When), o, CONDITIONS)?;
    // A member given is a condition: `null` is a wrong type here, not an absent condition (the
    // document says strings; a null that silently meant "any" would hide a client's bug).
    let member = |name: &str| o.get(name);
    let text = |name: &str, part| member(name).map(|v| string(at(part), v)).transpose();
    let mut c = Conditions::default();
    if let Some(s) = text("device", RulePart::Device)? {
        c.device = Some(rules::device(s).map_err(rule(at(RulePart::Device)))?);
    }
    if let Some(s) = text("os", RulePart::Os)? {
        c.os = Some(rules::os(s).map_err(rule(at(RulePart::Os)))?);
    }
    if let Some(s) = text("country", RulePart::Country)? {
        c.country = Some(rules::country(s).map_err(rule(at(RulePart::Country)))?);
    }
    if let Some(s) = text("language", RulePart::Language)? {
        c.language = Some(rules::language(s).map_err(rule(at(RulePart::Language)))?);
    }
    rules::conditions(c).map_err(rule(at(RulePart::When)))
}

fn rule_list(v: &Value) -> Read<Vec<Rule>> {
    let items = array(LinkField::Rules, v, "rules")?;
    rules::rule_count(items.len()).map_err(rule(LinkField::Rules))?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let [when, target] = members(
            LinkField::Rule(i, RulePart::Whole),
            item,
            &["when", "targetUrl"],
        )?;
        out.push(Rule {
            when: conditions(i, when)?,
            target_url: rule_target(LinkField::Rule(i, RulePart::TargetUrl), target)?,
        });
    }
    Ok(out)
}

fn variant_list(v: &Value) -> Read<Vec<Variant>> {
    let items = array(LinkField::Variants, v, "variants")?;
    rules::variant_count(items.len()).map_err(rule(LinkField::Variants))?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let [target, weight] = members(
            LinkField::Variant(i, VariantPart::Whole),
            item,
            &["targetUrl", "weight"],
        )?;
        let weight_field = LinkField::Variant(i, VariantPart::Weight);
        let weight = whole_number(weight)
            .ok_or(FieldRule::Weight)
            .and_then(rules::weight)
            .map_err(rule(weight_field))?;
        out.push(Variant {
            target_url: url(LinkField::Variant(i, VariantPart::TargetUrl), target)?,
            weight,
        });
    }
    Ok(out)
}

const UTM_MEMBERS: &[&str] = &["source", "medium", "campaign", "term", "content"];

fn utm(v: &Value) -> Read<Utm> {
    let o = object(LinkField::Utm, v)?;
    only(LinkField::Utm, o, UTM_MEMBERS)?;
    let mut utm = Utm::default();
    for part in UtmPart::ALL {
        let field = LinkField::UtmMember(part);
        // `null` is refused like any other non-string (the document says strings; null removes
        // the whole utm object, not one member).
        if let Some(v) = o.get(part.name()) {
            *utm.member_mut(part) = Some(rules::utm_value(string(field, v)?).map_err(rule(field))?);
        }
    }
    rules::utm(utm).map_err(rule(LinkField::Utm))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn err(body: Value) -> String {
        let body = body.as_object().cloned().unwrap_or_default();
        campaign_fields(LinkUpdate::default(), &body)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn bounds_and_messages() {
        let many: Vec<String> = (0..21).map(|i| format!("t{i}")).collect();
        assert_eq!(
            err(json!({"tags": many})),
            "Invalid tags: at most 20 tags are allowed (got 21)"
        );
        assert_eq!(
            err(json!({"tags": ["x".repeat(51)]})),
            "Invalid tags[0]: a tag must have 1 to 50 characters (got 51)"
        );
        let body = json!({"tags": [" a ", "a", "b"]});
        let read = campaign_fields(LinkUpdate::default(), body.as_object().unwrap()).unwrap();
        assert_eq!(
            read.tags
                .unwrap()
                .iter()
                .map(Tag::as_str)
                .collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert_eq!(
            err(
                json!({"rules": [{"when": {"device": "phone"}, "targetUrl": "https://a.example"}]})
            ),
            "Invalid rules[0].when.device: it must be one of mobile, desktop, tablet"
        );
        assert_eq!(
            err(json!({"rules": [{"when": {}, "targetUrl": "https://a.example"}]})),
            "Invalid rules[0].when: it must be an object with at least one of device, os, country, language"
        );
        assert_eq!(
            err(
                json!({"rules": [{"when": {"country": "DE"}, "targetUrl": "javascript:alert(1)"}]})
            ),
            "Invalid rules[0].targetUrl: the URL must not use javascript: it runs script in the page that opens it"
        );
        assert_eq!(
            err(
                json!({"rules": [{"when": {"os": "android"}, "targetUrl": "intent://x#Intent;end"}]})
            ),
            "Invalid rules[0].targetUrl: the URL must not use intent: an Android intent can launch any activity of any installed app"
        );
        assert_eq!(
            err(json!({"rules": [{"when": {"os": "ios"}, "targetUrl": "tel:call-me"}]})),
            "Invalid rules[0].targetUrl: a tel: URL must have a phone number of digits and + - . ( ) , or %20, such as tel:+4930123456"
        );
        assert_eq!(
            err(json!({"rules": [{"when": {"cuntry": "DE"}, "targetUrl": "https://a.example"}]})),
            "Invalid rules[0].when: unknown member \"cuntry\"; expected device, os, country, language"
        );
        assert_eq!(
            err(json!({"rules": [{"when": {"os": "ios"}}]})),
            "Invalid rules[0]: targetUrl is required"
        );
        let rule = json!({"when": {"country": "de"}, "targetUrl": "https://a.example"});
        assert_eq!(
            err(json!({"rules": vec![rule.clone(); 21]})),
            "Invalid rules: at most 20 rules are allowed (got 21)"
        );
        assert_eq!(
            err(json!({"variants": [{"targetUrl": "https://a.example", "weight": 1}]})),
            "Invalid variants: a split has 2 to 10 variants (got 1); [] removes it"
        );
        assert_eq!(
            err(
                json!({"variants": [{"targetUrl": "https://a.example", "weight": 0}, {"targetUrl": "https://b.example", "weight": 1}]})
            ),
            "Invalid variants[0].weight: it must be an integer from 1 to 1000"
        );
        assert_eq!(
            err(json!({"utm": {"source": "x".repeat(201)}})),
            "Invalid utm.source: it must have 1 to 200 characters (got 201)"
        );
        assert_eq!(
            err(json!({"utm": {}})),
            "Invalid utm: it must be an object with at least one of source, medium, campaign, term, content (null removes it)"
        );
        assert_eq!(
            err(json!({"validFrom": "2025-01-01T00:00:00+02:00"})),
            "Invalid validFrom: it must be in UTC (ending in Z)"
        );
        assert_eq!(
            err(json!({"validFrom": 7})),
            "Invalid validFrom: it must be an ISO 8601 UTC timestamp such as 2025-06-01T00:00:00Z"
        );
        assert_eq!(
            err(json!({"maxScans": "3"})),
            "Invalid maxScans: it must be an integer from 1 to 1000000000000"
        );
        assert_eq!(
            err(json!({"password": "abc"})),
            "Invalid password: it must have 4 to 128 characters (got 3)"
        );
        assert_eq!(
            err(json!({"disabled": "yes"})),
            "Invalid disabled: it must be true or false"
        );
        assert_eq!(
            err(json!({"shortCode": 5})),
            "Invalid shortCode: it must be a string"
        );
        assert_eq!(
            err(json!({"expiredUrl": "x".repeat(3000)})),
            "Invalid expiredUrl: the URL must be at most 2048 characters (got 3000)"
        );
    }

    #[test]
    fn items_read_like_post_and_keep_their_target_as_data() {
        let items = [
            json!({"name": "A", "targetUrl": "https://example.com/a"}),
            json!({"targetUrl": "https://example.com/b"}),
            json!({"name": "C", "targetUrl": 7}),
            json!("nope"),
        ];
        let read: Vec<_> = items.iter().map(bulk_item).collect();
        assert!(read[0].is_ok());
        let message = |i: usize| read[i].clone().unwrap_err().to_string();
        assert_eq!(message(1), "name field required");
        assert_eq!(message(2), "targetUrl must be a string");
        assert_eq!(message(3), "Invalid link: it must be a JSON object");
        let bad_target = bulk_item(&json!({"name": "D", "targetUrl": "ftp://x"}));
        assert!(
            matches!(bad_target, Err(ItemError::Field { .. })),
            "{bad_target:?}"
        );
        let data: Vec<String> = items.iter().map(bulk_data).collect();
        assert_eq!(
            data,
            ["https://example.com/a", "https://example.com/b", "", ""]
        );
    }
}
