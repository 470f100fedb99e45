//! A foreign link as this service's typed link input: its code kept exactly (or refused with the domain's reason, never changed), its target, its title as the link's name, its tags and its creation time, each through `LinkUpdate`'s setters.

use qr_domain::links::link::MAX_NAME_CHARS;
use qr_domain::{LinkUpdate, ShortCode};

use crate::foreign::ForeignLink;

/// The link's name: the title with line breaks and other control characters as spaces; a
/// title longer than the 200 characters a name holds is cut to 199 and `…` (a title is a
/// label, not what a printed code needs); without a title, the short URL as printed.
pub fn link_name(link: &ForeignLink) -> String {
    let title: String = link
        .title
        .as_deref()
        .unwrap_or("")
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let title = title.trim();
    let name = if title.is_empty() {
        link.shown()
    } else {
        title.to_owned()
    };
    if name.chars().count() > MAX_NAME_CHARS {
        let mut cut: String = name.chars().take(MAX_NAME_CHARS - 1).collect();
        cut.push('…');
        cut
    } else {
        name
    }
}

/// A foreign link as link input, with its code (which the input also holds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MappedLink {
    /// The link's fields.
    pub update: LinkUpdate,
    /// Its code, exactly as printed.
    pub code: ShortCode,
}

/// The link input of a foreign link, or the domain's message refusing one of its fields (a
/// code outside the alphabet, too short or too long, reserved; a target that is not an http
/// or https URL; too many or too long tags). Every field the service cannot keep refuses the
/// link: an import never keeps a printed code on a changed target or an altered code.
pub fn link_update(link: &ForeignLink) -> Result<MappedLink, String> {
    let name = link_name(link);
    let mut update =
        LinkUpdate::parse(Some(&name), Some(&link.target)).map_err(|e| e.to_string())?;
    // The custom code's rule keeps the text byte for byte (surrounding spaces, the export's
    // padding, aside).
    let code = ShortCode::custom(&link.code);
    update
        .set_short_code(&link.code)
        .map_err(|e| e.to_string())?;
    let code = code.map_err(|e| e.to_string())?;
    if !link.tags.is_empty() {
        update.set_tags(&link.tags).map_err(|e| e.to_string())?;
    }
    if let Some(at) = link.created_at {
        update.set_created_at(at);
    }
    Ok(MappedLink { update, code })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn foreign(code: &str, title: Option<&str>) -> ForeignLink {
        ForeignLink {
            code: code.to_owned(),
            domain: Some("bit.ly".to_owned()),
            target: "https://example.com/a".to_owned(),
            title: title.map(str::to_owned),
            tags: vec!["print".to_owned()],
            created_at: Some("2019-05-06T07:08:09Z".parse().unwrap()),
        }
    }

    #[test]
    fn codes_are_kept_or_refused_with_the_domain_reason() {
        let mapped = link_update(&foreign("Spring-Sale_2025", Some("Spring"))).unwrap();
        assert_eq!(mapped.code.as_str(), "Spring-Sale_2025");
        let update = mapped.update;
        assert_eq!(update.short_code.unwrap().as_str(), "Spring-Sale_2025");
        assert_eq!(update.name.unwrap().as_str(), "Spring");
        assert_eq!(update.tags.unwrap()[0].as_str(), "print");
        assert_eq!(
            update.created_at.unwrap().to_rfc3339(),
            "2019-05-06T07:08:09+00:00"
        );
        for code in ["a.b.c", "ab", "café", "admin", "a/b/c"] {
            let refused = link_update(&foreign(code, None)).unwrap_err();
            assert!(
                refused.starts_with("invalid shortCode: "),
                "{code}: {refused}"
            );
        }
    }

    #[test]
    fn names_come_from_titles() {
        assert_eq!(link_name(&foreign("abc", None)), "bit.ly/abc");
        assert_eq!(link_name(&foreign("abc", Some(" a\nb "))), "a b");
        let long = link_name(&foreign("abc", Some(&"x".repeat(300))));
        assert_eq!(long.chars().count(), 200);
        assert!(long.ends_with('…'));
    }
}
