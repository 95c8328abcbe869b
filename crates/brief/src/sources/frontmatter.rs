//! YAML frontmatter: split off the `---` fences ourselves (a thematic break in the body must
//! never be taken for one) and parse with serde-saphyr under its default resource budget,
//! which rejects billion-laughs style inputs and duplicate keys.

use serde_json::{Map, Value};

use super::Problem;
use crate::model::Location;

/// A Markdown file split into its frontmatter and body.
#[derive(Debug, PartialEq)]
pub struct Split<'a> {
    /// The YAML between the fences, if the file has frontmatter.
    pub yaml: Option<&'a str>,
    /// 1-based line of the first YAML line.
    pub yaml_line: u32,
    pub body: &'a str,
    /// 1-based line of the body's first line.
    pub body_line: u32,
}

/// Splits `---\n<yaml>\n---\n<body>`; a file without an opening fence is all body.
/// An opening fence without a closing one is an error.
pub fn split<'a>(path: &str, text: &'a str) -> Result<Split<'a>, Problem> {
    let first_line_end = text.find('\n').map(|i| i + 1).unwrap_or(text.len());
    if text[..first_line_end].trim_end() != "---" {
        return Ok(Split {
            yaml: None,
            yaml_line: 1,
            body: text,
            body_line: 1,
        });
    }
    let mut offset = first_line_end;
    let mut line = 2u32;
    while offset < text.len() {
        let end = text[offset..]
            .find('\n')
            .map(|i| offset + i + 1)
            .unwrap_or(text.len());
        let content = text[offset..end].trim_end();
        if content == "---" || content == "..." {
            return Ok(Split {
                yaml: Some(&text[first_line_end..offset]),
                yaml_line: 2,
                body: &text[end..],
                body_line: line + 1,
            });
        }
        offset = end;
        line += 1;
    }
    Err(Problem::error(
        Location::file(path),
        "frontmatter opened with `---` is never closed: add a `---` line after the YAML",
    ))
}

/// Parses frontmatter YAML into a JSON-like map. Errors point into the file.
pub fn parse(path: &str, yaml: &str, yaml_line: u32) -> Result<Map<String, Value>, Problem> {
    if yaml.trim().is_empty() {
        return Ok(Map::new());
    }
    let options = serde_saphyr::options! { with_snippet: false };
    match serde_saphyr::from_str_with_options::<Value>(yaml, options) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(Value::Null) => Ok(Map::new()),
        Ok(_) => Err(Problem::error(
            Location {
                path: path.to_string(),
                line: yaml_line,
                col: 1,
            },
            "frontmatter must be a YAML mapping of `key: value` lines",
        )),
        Err(err) => {
            let (line, col) = err
                .location()
                .map(|loc| (loc.line() as u32, loc.column() as u32))
                .unwrap_or((1, 1));
            Err(Problem::error(
                Location {
                    path: path.to_string(),
                    line: yaml_line + line.max(1) - 1,
                    col: col.max(1),
                },
                format!("invalid YAML frontmatter: {}", first_line(&err.to_string())),
            ))
        }
    }
}

/// The first line of an error message, without a trailing location the caller already has.
fn first_line(message: &str) -> String {
    let line = message.lines().next().unwrap_or("").trim();
    match line.rfind(" at line ") {
        Some(cut) => line[..cut].to_string(),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_fences_and_tracks_lines() {
        let text = "---\nid: SPEC-1\ntitle: T\n---\n# T\n\n---\nbody\n";
        let split = split("a.md", text).unwrap();
        assert_eq!(split.yaml, Some("id: SPEC-1\ntitle: T\n"));
        assert_eq!(split.body_line, 5);
        assert!(split.body.starts_with("# T"));
        assert!(
            split.body.contains("---\nbody"),
            "thematic break stays in the body"
        );
    }

    #[test]
    fn no_fence_means_no_frontmatter() {
        let split = split("a.md", "# Just text\n").unwrap();
        assert_eq!(split.yaml, None);
    }

    #[test]
    fn unclosed_fence_is_an_error() {
        assert!(split("a.md", "---\nid: X\n").is_err());
    }

    #[test]
    fn yaml_errors_point_into_the_file() {
        let err = parse("a.md", "id: X\ntitle: [unclosed\nstatus: ok\n", 2).unwrap_err();
        assert!(err.location.line >= 3, "{err}");
        assert!(err.message.starts_with("invalid YAML"), "{err}");
    }

    #[test]
    fn duplicate_keys_are_rejected() {
        assert!(parse("a.md", "id: A\nid: B\n", 2).is_err());
    }

    #[test]
    fn alias_bombs_are_bounded() {
        let mut yaml = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let prev = i - 1;
            yaml.push_str(&format!(
                "a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"
            ));
        }
        assert!(parse("bomb.md", &yaml, 2).is_err());
    }

    #[test]
    fn parses_lists_and_maps() {
        let map = parse(
            "a.md",
            "id: TASK-1\nspecs: [SPEC-A, SPEC-B]\nlinks:\n  decisions: [DEC-1]\ncreated: 2026-03-02\n",
            2,
        )
        .unwrap();
        assert_eq!(map["specs"][1], "SPEC-B");
        assert_eq!(map["links"]["decisions"][0], "DEC-1");
        assert_eq!(map["created"], "2026-03-02");
    }
}

#[cfg(test)]
mod fuzz {
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Any text, split and parsed as frontmatter, gives a map or a located problem.
        #[test]
        fn frontmatter_never_panics(yaml in "\\PC{0,200}", body in "\\PC{0,50}") {
            let text = format!("---\n{yaml}\n---\n{body}");
            if let Ok(split) = super::split("x.md", &text) {
                if let Some(yaml) = split.yaml {
                    if let Err(problem) = super::parse("x.md", yaml, split.yaml_line) {
                        prop_assert!(problem.location.line >= 1);
                    }
                }
            }
        }

        /// YAML-shaped input with random keys, indentation, anchors and flow collections.
        #[test]
        fn yaml_shapes_never_panic(lines in proptest::collection::vec("( {0,4})([a-z]{1,6}|-|&a|\\*a|\\[|\\]|\\{|\\}|:|'|\"| ){0,8}", 0..12)) {
            let yaml = lines.join("\n");
            let _ = super::parse("x.md", &yaml, 2);
        }
    }
}
