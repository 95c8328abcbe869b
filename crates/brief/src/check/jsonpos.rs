//! Positions inside JSON text. serde_json keeps no spans, so findings about a value are
//! located afterwards by walking the text along a path (only for files that have findings).

/// One step of a path into a JSON document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seg {
    /// A member of an object.
    Key(String),
    /// An element of an array.
    Index(usize),
    /// The first array element that is this string.
    Str(String),
    /// The first array element that is an object whose `key` is this string.
    ObjWith(String, String),
}

impl Seg {
    pub fn key(key: &str) -> Seg {
        Seg::Key(key.to_string())
    }
}

/// Byte offset of the value at `path` (of its key, when the path ends with a key). When the
/// full path does not exist, the offset of the deepest part that does.
pub(crate) fn locate(text: &str, path: &[Seg]) -> Option<usize> {
    let bytes = text.as_bytes();
    let start = skip_ws(bytes, 0);
    if start >= bytes.len() {
        return None;
    }
    Some(walk(bytes, start, path).unwrap_or(start))
}

/// Walks from the value at `at`; returns the best offset found.
fn walk(b: &[u8], at: usize, path: &[Seg]) -> Option<usize> {
    let Some((seg, rest)) = path.split_first() else {
        return Some(at);
    };
    match (b.get(at)?, seg) {
        (b'{', Seg::Key(want)) => {
            let mut i = skip_ws(b, at + 1);
            while i < b.len() && b[i] != b'}' {
                let key_at = i;
                let (key, after) = string(b, i)?;
                i = skip_ws(b, after);
                if b.get(i) != Some(&b':') {
                    return None;
                }
                let value_at = skip_ws(b, i + 1);
                if &key == want {
                    if rest.is_empty() {
                        return Some(key_at);
                    }
                    return Some(walk(b, value_at, rest).unwrap_or(key_at));
                }
                let next = skip_ws(b, skip_value(b, value_at)?);
                if next <= key_at {
                    return None;
                }
                i = next;
                if b.get(i) == Some(&b',') {
                    i = skip_ws(b, i + 1);
                }
            }
            None
        }
        (b'[', _) => {
            let mut i = skip_ws(b, at + 1);
            let mut index = 0;
            while i < b.len() && b[i] != b']' {
                let end = skip_value(b, i)?;
                // Malformed text (`[}`) must not stall the walk.
                if end <= i {
                    return None;
                }
                let hit = match seg {
                    Seg::Index(n) => *n == index,
                    Seg::Str(want) => string(b, i).is_some_and(|(s, _)| &s == want),
                    Seg::ObjWith(key, want) => {
                        b[i] == b'{'
                            && walk(b, i, &[Seg::Key(key.clone())]).is_some_and(|key_at| {
                                let colon =
                                    skip_ws(b, string(b, key_at).map(|(_, e)| e).unwrap_or(key_at));
                                let value_at = skip_ws(b, colon + 1);
                                string(b, value_at).is_some_and(|(s, _)| &s == want)
                            })
                    }
                    Seg::Key(_) => false,
                };
                if hit {
                    return Some(walk(b, i, rest).unwrap_or(i));
                }
                index += 1;
                i = skip_ws(b, end);
                if b.get(i) == Some(&b',') {
                    i = skip_ws(b, i + 1);
                }
            }
            None
        }
        _ => None,
    }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// A JSON string at `i`: its (unescaped enough to compare) content and the offset after it.
fn string(b: &[u8], i: usize) -> Option<(String, usize)> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let mut out = Vec::new();
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'"' => return Some((String::from_utf8_lossy(&out).into_owned(), j + 1)),
            b'\\' => {
                match b.get(j + 1)? {
                    b'n' => out.push(b'\n'),
                    b't' => out.push(b'\t'),
                    b'r' => out.push(b'\r'),
                    b'u' => out.extend_from_slice(b"?"),
                    other => out.push(*other),
                }
                j += if b.get(j + 1) == Some(&b'u') { 6 } else { 2 };
            }
            c => {
                out.push(c);
                j += 1;
            }
        }
    }
    None
}

/// The offset just after the value starting at `i`.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => string(b, i).map(|(_, end)| end),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = string(b, j)?.1;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            {
                j += 1;
            }
            Some(j)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::line_col;

    const TEXT: &str = r#"{
  "id": "A-1",
  "title": "Has \"quotes\" and [brackets]",
  "links": {
    "depends_on": ["B-1", "C-1"],
    "constrains": []
  },
  "verification": [
    "npm test",
    { "kind": "http", "url": "x" }
  ]
}"#;

    fn at(path: &[Seg]) -> (u32, u32) {
        line_col(TEXT, locate(TEXT, path).unwrap())
    }

    #[test]
    fn malformed_arrays_and_objects_end_the_walk() {
        for text in ["[}", "{\"a\": [}]}", "[[}", "{\"a\":}", "[,]", "{\"a\" 1}"] {
            let _ = locate(text, &[Seg::Key("a".into()), Seg::Index(1)]);
            let _ = locate(text, &[Seg::Index(1)]);
        }
    }

    #[test]
    fn keys_indices_and_strings() {
        assert_eq!(at(&[Seg::key("id")]), (2, 3));
        assert_eq!(
            at(&[
                Seg::key("links"),
                Seg::key("depends_on"),
                Seg::Str("C-1".into())
            ]),
            (5, 27)
        );
        assert_eq!(at(&[Seg::key("verification"), Seg::Index(1)]), (10, 5));
        assert_eq!(
            at(&[Seg::key("verification"), Seg::Index(1), Seg::key("url")]),
            (10, 23)
        );
    }

    #[test]
    fn missing_parts_fall_back_to_the_deepest_found() {
        assert_eq!(
            at(&[Seg::key("links"), Seg::key("implements"), Seg::Index(0)]),
            (4, 3)
        );
        assert_eq!(at(&[Seg::key("nope")]), (1, 1));
    }

    #[test]
    fn objects_with_a_member() {
        let text = r#"{"nodes": [{"id": "A", "path": "a.json"}, {"path": "b.json", "id": "B"}]}"#;
        let path = [
            Seg::key("nodes"),
            Seg::ObjWith("id".into(), "B".into()),
            Seg::key("path"),
        ];
        assert_eq!(locate(text, &path), text.find("\"path\": \"b"));
    }

    #[test]
    fn garbage_never_panics() {
        for text in ["", "{", "[1,", "{\"a\":", "\"\\", "{\"a\" 1}", "[{]"] {
            let _ = locate(text, &[Seg::key("a"), Seg::Index(3)]);
        }
    }
}
