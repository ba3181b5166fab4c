//! An SVG made safe to inline in the HTML report: parsed as XML (`roxmltree`, through usvg,
//! which the PDF already uses), rejected unless its root is an SVG `<svg>`, and written
//! again with only the drawing: SVG elements of an allowlist (no `<script>`, no
//! `<foreignObject>`, nothing outside the SVG namespace), no event-handler attribute
//! (`on…`), no reference outside the document (an `href` must be a `#fragment`, a `url(…)`
//! in a presentation attribute or `style` must be `url(#…)`), no comment or processing
//! instruction, every text escaped. A figure `tables` drew passes through with the same
//! elements, attributes and text.

use super::text::xml_escape;
use usvg::roxmltree::{Document, Node, NodeType, ParsingOptions};

/// The SVG namespace.
const SVG_NS: &str = "http://www.w3.org/2000/svg";
/// The XML namespace (`xml:space`).
const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";
/// The XLink namespace (`xlink:href`).
const XLINK_NS: &str = "http://www.w3.org/1999/xlink";

/// The SVG elements a figure may hold: shapes, text, grouping, paint servers and clipping.
/// Anything else is dropped with its content.
const ELEMENTS: &[&str] = &[
    "svg",
    "g",
    "defs",
    "symbol",
    "use",
    "title",
    "desc",
    "path",
    "rect",
    "circle",
    "ellipse",
    "line",
    "polyline",
    "polygon",
    "text",
    "tspan",
    "textPath",
    "clipPath",
    "mask",
    "marker",
    "pattern",
    "linearGradient",
    "radialGradient",
    "stop",
];

/// Why a file is not an SVG the report can show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotSvg(pub String);

/// Whether an attribute value refers outside the document: `url(…)` other than
/// `url(#…)`, or a `javascript:` or `data:` scheme anywhere.
fn external(value: &str) -> bool {
    let v: String = value
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    if v.contains("javascript:") || v.contains("data:") || v.contains("expression(") {
        return true;
    }
    let mut rest = v.as_str();
    while let Some(i) = rest.find("url(") {
        let after = rest[i + 4..].trim_start_matches(['\'', '"']);
        if !after.starts_with('#') {
            return true;
        }
        rest = &rest[i + 4..];
    }
    v.contains("@import")
}

/// The attribute as written again, or `None` when it is dropped.
fn attribute(a: &usvg::roxmltree::Attribute) -> Option<String> {
    let name = a.name();
    let value = a.value();
    let qualified = match a.namespace() {
        None => name.to_string(),
        Some(XML_NS) => format!("xml:{name}"),
        Some(XLINK_NS) if name == "href" => "href".to_string(),
        Some(_) => return None,
    };
    if name.len() >= 2 && name[..2].eq_ignore_ascii_case("on") {
        return None;
    }
    if name == "href" && !value.starts_with('#') {
        return None;
    }
    if external(value) {
        return None;
    }
    Some(format!("{qualified}=\"{}\"", xml_escape(value)))
}

fn write(node: Node, out: &mut String) {
    match node.node_type() {
        NodeType::Text => out.push_str(&xml_escape(node.text().unwrap_or_default())),
        NodeType::Element => {
            let tag = node.tag_name();
            if tag.namespace() != Some(SVG_NS) || !ELEMENTS.contains(&tag.name()) {
                return;
            }
            out.push('<');
            out.push_str(tag.name());
            if node.parent_element().is_none() {
                out.push_str(&format!(" xmlns=\"{SVG_NS}\""));
            }
            for a in node.attributes() {
                if let Some(t) = attribute(&a) {
                    out.push(' ');
                    out.push_str(&t);
                }
            }
            if node.has_children() {
                out.push('>');
                for c in node.children() {
                    write(c, out);
                }
                out.push_str(&format!("</{}>", tag.name()));
            } else {
                out.push_str("/>");
            }
        }
        // comments and processing instructions are dropped; the root is not reached here
        _ => {}
    }
}

/// The SVG document `text`, safe to inline in HTML; an error when it is not an SVG.
pub fn sanitize(text: &str) -> Result<String, NotSvg> {
    let opts = ParsingOptions {
        allow_dtd: false,
        ..ParsingOptions::default()
    };
    let doc = Document::parse_with_options(text, opts)
        .map_err(|e| NotSvg(format!("not an XML document ({e})")))?;
    let root = doc.root_element();
    if root.tag_name().namespace() != Some(SVG_NS) || root.tag_name().name() != "svg" {
        return Err(NotSvg(format!(
            "not an SVG document (its root element is <{}>, not an SVG <svg>)",
            root.tag_name().name()
        )));
    }
    let mut out = String::with_capacity(text.len());
    write(root, &mut out);
    out.push('\n');
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_content_is_dropped_and_the_drawing_kept() {
        // hand-written: a script, handlers, external references, a foreign object and a
        // text that tries to close the page's elements
        let hostile = r##"<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" onload="alert(1)" width="10">
<!-- a comment -->
<script>alert('x')</script>
<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>
<rect width="5" fill="url(http://evil/x)" stroke="url(#grad)" onclick="steal()"/>
<a href="javascript:alert(1)"><text>link</text></a>
<use xlink:href="http://evil/sprite.svg#i"/><use href="#local"/>
<image href="http://evil/track.png"/>
<text x="1" style="fill:url('https://evil/p')">&lt;/svg&gt;&lt;/section&gt;&lt;/body&gt;</text>
</svg>"##;
        let s = sanitize(hostile).unwrap();
        for bad in [
            "script",
            "alert",
            "onload",
            "onclick",
            "foreignObject",
            "evil",
            "javascript",
            "image",
            "<a",
            "<!--",
        ] {
            assert!(!s.contains(bad), "{bad} in {s}");
        }
        // the drawing and its local references stay; the text is escaped, not markup
        assert!(
            s.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\">"),
            "{s}"
        );
        assert!(
            s.contains("<rect width=\"5\" stroke=\"url(#grad)\"/>"),
            "{s}"
        );
        assert!(s.contains("<use href=\"#local\"/>"), "{s}");
        assert!(
            s.contains("&lt;/svg&gt;&lt;/section&gt;&lt;/body&gt;</text>"),
            "{s}"
        );
        assert_eq!(s.matches("</svg>").count(), 1, "{s}");
    }

    #[test]
    fn what_is_not_an_svg_is_an_error() {
        assert!(sanitize("just text, named .svg").is_err());
        assert!(sanitize("<html><body/></html>").is_err());
        // an <svg> outside the SVG namespace is not an SVG document
        assert!(sanitize("<svg><rect/></svg>").is_err());
        // entities declared in a DTD (a billion laughs) are refused with the DTD
        assert!(sanitize(
            "<!DOCTYPE svg [<!ENTITY a \"aaaa\">]><svg xmlns=\"http://www.w3.org/2000/svg\">&a;</svg>"
        )
        .is_err());
    }
}
