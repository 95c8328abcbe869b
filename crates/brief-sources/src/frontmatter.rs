//! YAML frontmatter: split off the `---` fences ourselves (a thematic break in the body must
//! never be taken for one) and parse with serde-saphyr under its default resource budget,
//! which rejects billion-laughs style inputs and duplicate keys.

use serde_json::{Map, Value};

use super::{Problem, ProblemKind};
use brief_model::Location;

/// A Markdown file split into its frontmatter and body.
#[derive(Debug, PartialEq)]
pub struct Split<'a> {
    /// The YAML between the fences, if the file has frontmatter.
    pub yaml: Option<&'a str>,
    /// 1-based line of the first YAML line.
    pub yaml_line: u32,
    /// The text after the closing fence (the whole file without frontmatter).
    pub body: &'a str,
    /// 1-based line of the body's first line.
    pub body_line: u32,
}

/// Where a file's frontmatter fences are: the opening line is exactly `---` (trailing spaces
/// allowed), the closing one `---` or `...`. `----` or `--- x` opens nothing.
struct Fences {
    /// Byte offset of the first YAML line (just past the opening fence).
    yaml_start: usize,
    /// Byte offset of the closing fence line and just past it, with its 1-based line; `None`
    /// when the frontmatter is never closed.
    close: Option<(usize, usize, u32)>,
}

fn fences(text: &str) -> Option<Fences> {
    let first_line_end = text.find('\n').map(|i| i + 1).unwrap_or(text.len());
    if text[..first_line_end].trim_end() != "---" {
        return None;
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
            return Some(Fences {
                yaml_start: first_line_end,
                close: Some((offset, end, line)),
            });
        }
        offset = end;
        line += 1;
    }
    Some(Fences {
        yaml_start: first_line_end,
        close: None,
    })
}

/// The byte offset just past the frontmatter's closing fence: 0 without frontmatter, the end of
/// the text when it is never closed. The same fences [`split`] reads.
pub fn end(text: &str) -> usize {
    match fences(text) {
        None => 0,
        Some(Fences {
            close: Some((_, end, _)),
            ..
        }) => end,
        Some(Fences { close: None, .. }) => text.len(),
    }
}

/// Splits `---\n<yaml>\n---\n<body>`; a file without an opening fence is all body.
/// An opening fence without a closing one is an error.
pub fn split<'a>(path: &str, text: &'a str) -> Result<Split<'a>, Problem> {
    match fences(text) {
        None => Ok(Split {
            yaml: None,
            yaml_line: 1,
            body: text,
            body_line: 1,
        }),
        Some(Fences {
            yaml_start,
            close: Some((close, end, line)),
        }) => Ok(Split {
            yaml: Some(&text[yaml_start..close]),
            yaml_line: 2,
            body: &text[end..],
            body_line: line + 1,
        }),
        Some(Fences { close: None, .. }) => Err(Problem::error(
            ProblemKind::Syntax,
            Location::file(path),
            "frontmatter opened with `---` is never closed: add a `---` line after the YAML",
        )),
    }
}

/// A frontmatter value as one piece of text: a string trimmed, a number or a boolean as
/// written; `None` for lists, maps and nothing. The one rule every reader of frontmatter uses.
pub(crate) fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A frontmatter value shown on one line (an extra field): a [`scalar`], a list joined with
/// `, `, a map as JSON; `None` for nothing or an empty text.
pub(crate) fn one_line(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::Array(items) => Some(
            items
                .iter()
                .map(|item| scalar(item).unwrap_or_else(|| item.to_string()))
                .collect::<Vec<_>>()
                .join(", "),
        ),
        Value::Object(_) => Some(value.to_string()),
        other => scalar(other),
    }
    .filter(|line| !line.is_empty())
}

/// The 1-based file line of a top-level key in frontmatter that starts on `yaml_line`.
pub(crate) fn key_line(yaml: &str, yaml_line: u32, key: &str) -> Option<u32> {
    yaml.lines()
        .position(|line| {
            line.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with(':'))
        })
        .map(|i| yaml_line + i as u32)
}

/// Parses frontmatter YAML into a JSON-like map. Errors point into the file.
pub fn parse(path: &str, yaml: &str, yaml_line: u32) -> Result<Map<String, Value>, Problem> {
    if yaml.trim().is_empty() {
        return Ok(Map::new());
    }
    if let Some(map) = simple(yaml) {
        return Ok(map);
    }
    let options = serde_saphyr::options! { with_snippet: false };
    match serde_saphyr::from_str_with_options::<Value>(yaml, options) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(Value::Null) => Ok(Map::new()),
        Ok(_) => Err(Problem::error(
            ProblemKind::Syntax,
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
                ProblemKind::Syntax,
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

/// A fast path for the frontmatter almost every artifact has: `key: word`, `key: [a, b]`,
/// `key:` with `- item` lines, and one level of nested keys of those (a `links:` map). Only
/// plain scalars that YAML reads as strings are accepted (they start with a letter and are not
/// true/false/null and the like, or are a bare date); anything else — quotes, numbers, comments,
/// anchors, block scalars, duplicate keys, odd indentation — returns `None` and goes to the full
/// parser, so the result is always what serde-saphyr would give.
fn simple(yaml: &str) -> Option<Map<String, Value>> {
    let mut root = Map::new();
    // The open key and, when nested, the parent key.
    let mut open: Option<String> = None;
    let mut parent: Option<String> = None;
    for line in yaml.lines() {
        if line.trim().is_empty() {
            continue;
        }
        let indent = line.len() - line.trim_start_matches(' ').len();
        let content = &line[indent..];
        if content.starts_with('\t') || content.starts_with('#') {
            return None;
        }
        if let Some(item) = content.strip_prefix("- ") {
            // A block list item under the open key (top level: indent 0 or 2; nested: 4).
            let key = open.as_ref()?;
            let container = match &parent {
                Some(p) if indent == 4 => root.get_mut(p)?.as_object_mut()?,
                None if indent == 0 || indent == 2 => &mut root,
                _ => return None,
            };
            let value = container.get_mut(key)?;
            if value.is_null() {
                *value = Value::Array(Vec::new());
            }
            value
                .as_array_mut()?
                .push(Value::String(plain_scalar(item, false)?.to_string()));
            continue;
        }
        let (key, rest) = content.split_once(':')?;
        if !is_key(key) || !(rest.is_empty() || rest.starts_with(' ')) {
            return None;
        }
        let rest = rest.trim();
        let value = if rest.is_empty() {
            Value::Null
        } else if let Some(inner) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            let items: Option<Vec<Value>> = if inner.trim().is_empty() {
                Some(Vec::new())
            } else {
                inner
                    .split(',')
                    .map(|i| plain_scalar(i.trim(), true).map(|s| Value::String(s.to_string())))
                    .collect()
            };
            Value::Array(items?)
        } else {
            Value::String(plain_scalar(rest, false)?.to_string())
        };
        match indent {
            0 => {
                // A key left empty before a nested map becomes that map's parent.
                if root.contains_key(key) {
                    return None;
                }
                root.insert(key.to_string(), value);
                parent = None;
                open = Some(key.to_string());
            }
            2 => {
                let parent_key = match &parent {
                    Some(p) => p.clone(),
                    None => {
                        let candidate = open.clone()?;
                        if !root.get(&candidate)?.is_null() {
                            return None;
                        }
                        root.insert(candidate.clone(), Value::Object(Map::new()));
                        candidate
                    }
                };
                let map = root.get_mut(&parent_key)?.as_object_mut()?;
                if map.contains_key(key) {
                    return None;
                }
                map.insert(key.to_string(), value);
                parent = Some(parent_key);
                open = Some(key.to_string());
            }
            _ => return None,
        }
    }
    Some(root)
}

fn is_key(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// A scalar YAML reads as a string: a quoted string without escapes, or a plain one (outside
/// a flow list, a trailing ` # comment` dropped, as YAML does).
fn plain_scalar(text: &str, flow: bool) -> Option<&str> {
    let text = text.trim();
    for quote in ['"', '\''] {
        if let Some(inner) = text.strip_prefix(quote) {
            let inner = inner.strip_suffix(quote)?;
            return (!inner.contains([quote, '\\', '\n'])).then_some(inner);
        }
    }
    let value = match text.find(" #") {
        Some(at) if !flow => text[..at].trim_end(),
        _ => text,
    };
    plain(value)
}

/// A plain scalar YAML reads as this very string, or `None`.
fn plain(text: &str) -> Option<&str> {
    let is_date = text.len() == 10
        && text.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            _ => b.is_ascii_digit(),
        });
    if is_date {
        return Some(text);
    }
    let first = text.chars().next()?;
    let special = [
        "true", "false", "null", "yes", "no", "on", "off", "y", "n", "nan", "inf", "infinity",
    ];
    let ok = first.is_alphabetic()
        && !text.contains(": ")
        && !text.contains(" #")
        && !text.ends_with(':')
        && !text.contains(['[', ']', '{', '}', ',', '"', '\'', '\t', '`', '\\'])
        && text == text.trim()
        && !special.contains(&text.to_ascii_lowercase().as_str());
    ok.then_some(text)
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

    /// The one rule for a frontmatter value as text, which every reader (artifacts, the
    /// knowledge base) follows: text trimmed, numbers and booleans as written, nothing for
    /// lists and maps; on one line, lists joined and maps as JSON, and nothing for no text.
    #[test]
    fn one_rule_for_a_value_as_text() {
        use serde_json::json;
        assert_eq!(scalar(&json!("  Draft  ")).as_deref(), Some("Draft"));
        assert_eq!(scalar(&json!(7)).as_deref(), Some("7"));
        assert_eq!(scalar(&json!(true)).as_deref(), Some("true"));
        assert_eq!(scalar(&json!(["a"])), None);
        assert_eq!(scalar(&json!({"a": 1})), None);
        assert_eq!(scalar(&Value::Null), None);
        assert_eq!(one_line(&json!(" x ")).as_deref(), Some("x"));
        assert_eq!(one_line(&json!("   ")), None);
        assert_eq!(one_line(&json!("")), None);
        assert_eq!(one_line(&Value::Null), None);
        assert_eq!(one_line(&json!([])), None);
        assert_eq!(
            one_line(&json!([" a ", 2, {"b": 1}])).as_deref(),
            Some("a, 2, {\"b\":1}")
        );
        assert_eq!(one_line(&json!({"b": 1})).as_deref(), Some("{\"b\":1}"));
    }

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
    fn check_and_the_loader_read_the_same_fences() {
        // check used to take any file starting with `---` (here `----`, a thematic break) as
        // frontmatter up to the next `---` line, while the loader saw none.
        let text = "----\nid: X\n---\nbody\n";
        assert_eq!(split("a.md", text).unwrap().yaml, None);
        assert_eq!(end(text), 0);
        let text = "--- \nid: X\n...\nbody\n";
        let s = split("a.md", text).unwrap();
        assert_eq!(s.yaml, Some("id: X\n"));
        assert_eq!(&text[end(text)..], s.body);
        assert_eq!(end("---\nid: X\n"), "---\nid: X\n".len());
        assert_eq!(end("# no frontmatter\n"), 0);
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
    fn everyday_frontmatter_takes_the_fast_path() {
        let yaml = "id: SPEC-SYNC-001\ntitle: Offline edit queue and replay\nstatus: implemented\npaths:\n  - src/web/sync/**\nlinks:\n  specs: [SPEC-A, SPEC-B]\n  decisions:\n    - DEC-1\ncreated: 2026-05-20\n";
        let fast = simple(yaml).expect("simple frontmatter");
        let full: Value = serde_saphyr::from_str(yaml).unwrap();
        assert_eq!(Value::Object(fast), full);
        let quoted =
            simple("version: \"1.0\"\ntitle: Ledger first #12\n").expect("quoted and comment");
        assert_eq!(quoted["version"], "1.0");
        assert_eq!(quoted["title"], "Ledger first");
        assert!(simple("n: 3\n").is_none(), "numbers: full parser");
        assert!(
            simple("a: x\na: y\n").is_none(),
            "duplicates: full parser (an error)"
        );
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

    /// Keys, words and layouts of everyday frontmatter, some of them not simple on purpose.
    fn frontmatter() -> impl Strategy<Value = String> {
        let word = prop_oneof![
            "[A-Za-z][A-Za-z0-9 ._/*-]{0,14}",
            Just("2026-03-02".to_string()),
            Just("true".to_string()),
            Just("1.0".to_string()),
            Just("\"quoted\"".to_string()),
            Just("a: b".to_string()),
            Just("src/**/*.ts".to_string()),
            Just("Null".to_string()),
            Just("x #tag".to_string()),
            Just("'single quoted'".to_string()),
            Just("\"src/**\"".to_string()),
            Just("\"with \\\" escape\"".to_string()),
            Just("Title #12".to_string()),
        ];
        let key = prop_oneof![
            Just("id"),
            Just("title"),
            Just("status"),
            Just("specs"),
            Just("links"),
            Just("tags"),
            Just("paths"),
            Just("kind"),
            Just("decisions"),
            Just("id"),
        ];
        let entry = (key, 0..4usize, proptest::collection::vec(word, 1..4)).prop_map(
            |(k, shape, words)| match shape {
                0 => format!("{k}: {}", words[0]),
                1 => format!("{k}: [{}]", words.join(", ")),
                2 => format!(
                    "{k}:\n{}",
                    words
                        .iter()
                        .map(|w| format!("  - {w}"))
                        .collect::<Vec<_>>()
                        .join("\n")
                ),
                _ => format!(
                    "{k}:\n  specs: [{}]\n  norms:\n    - {}",
                    words.join(", "),
                    words[0]
                ),
            },
        );
        proptest::collection::vec(entry, 0..6).prop_map(|entries| entries.join("\n") + "\n")
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]

        /// Whenever the fast path answers, it answers what serde-saphyr answers.
        #[test]
        fn the_fast_path_agrees_with_serde_saphyr(yaml in frontmatter()) {
            if let Some(fast) = super::simple(&yaml) {
                let full: serde_json::Value = serde_saphyr::from_str(&yaml).unwrap();
                let full = match full {
                    serde_json::Value::Null => serde_json::Map::new(),
                    serde_json::Value::Object(map) => map,
                    other => panic!("not a map: {other:?}"),
                };
                prop_assert_eq!(fast, full, "yaml:\n{}", yaml);
            }
        }
    }

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
