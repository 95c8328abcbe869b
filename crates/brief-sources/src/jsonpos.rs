//! Positions inside JSON text. serde_json keeps no spans, so findings about a value are
//! located afterwards by walking the text along a path (only for files that have findings).

/// One step of a path into a JSON document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
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
    /// A segment naming the object key `key`.
    pub fn key(key: &str) -> Seg {
        Seg::Key(key.to_string())
    }
}

/// Byte offset of the value at `path` (of its key, when the path ends with a key). When the
/// full path does not exist, the offset of the deepest part that does.
pub fn locate(text: &str, path: &[Seg]) -> Option<usize> {
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

/// Locates many paths in one JSON text. The text is walked once into a tree of offsets, and
/// each array gets its lookup maps on first use, so a file with a hundred thousand findings
/// costs one pass, not one pass per finding. Answers are those of [`locate`].
pub struct Locator<'t> {
    text: &'t str,
    /// `None` for text that is not well-formed (or nests too deep): then [`locate`] walks it.
    tree: Option<(usize, Node)>,
}

/// How deep the tree of offsets goes before the locator leaves a text to [`locate`].
const MAX_DEPTH: usize = 128;

/// A JSON value as offsets.
enum Node {
    Object {
        /// (key, offset of the key, offset of the value, value), in text order.
        members: Vec<(String, usize, usize, Node)>,
        /// The first member with each key.
        by_key: std::collections::HashMap<String, usize>,
    },
    Array {
        /// (offset, value), in text order.
        items: Vec<(usize, Node)>,
        /// The first string element equal to each string (built on first use).
        strings: std::cell::OnceCell<std::collections::HashMap<String, usize>>,
        /// Per key: the first object element whose `key` member is each string.
        with: std::cell::RefCell<
            std::collections::HashMap<String, std::collections::HashMap<String, usize>>,
        >,
    },
    Str(String),
    Other,
}

impl<'t> Locator<'t> {
    /// A locator over one JSON document's text, positioned at its first value.
    pub fn new(text: &'t str) -> Locator<'t> {
        let b = text.as_bytes();
        let start = skip_ws(b, 0);
        // Only JSON gets a tree: text after the root value, or any other malformation, is
        // left to the walk, whose answers on such text the tree could not reproduce.
        let tree = (start < b.len())
            .then(|| build(b, start, 0))
            .flatten()
            .filter(|&(_, end)| skip_ws(b, end) == b.len())
            .map(|(node, _)| (start, node));
        Locator { text, tree }
    }

    /// What [`locate`] answers for `path`.
    pub fn locate(&self, path: &[Seg]) -> Option<usize> {
        match &self.tree {
            Some((start, node)) => Some(walk_tree(node, *start, path).unwrap_or(*start)),
            None => locate(self.text, path),
        }
    }
}

/// The value at `i` as a tree, and the offset after it; `None` for malformed text.
fn build(b: &[u8], i: usize, depth: usize) -> Option<(Node, usize)> {
    if depth > MAX_DEPTH {
        return None;
    }
    match b.get(i)? {
        b'{' => {
            let mut members = Vec::new();
            let mut by_key = std::collections::HashMap::new();
            let mut j = skip_ws(b, i + 1);
            if b.get(j) == Some(&b'}') {
                return Some((Node::Object { members, by_key }, j + 1));
            }
            loop {
                let key_at = j;
                let (key, after) = string(b, j)?;
                j = skip_ws(b, after);
                if b.get(j) != Some(&b':') {
                    return None;
                }
                let value_at = skip_ws(b, j + 1);
                let (value, end) = build(b, value_at, depth + 1)?;
                by_key.entry(key.clone()).or_insert(members.len());
                members.push((key, key_at, value_at, value));
                j = skip_ws(b, end);
                match b.get(j)? {
                    b',' => j = skip_ws(b, j + 1),
                    b'}' => return Some((Node::Object { members, by_key }, j + 1)),
                    _ => return None,
                }
            }
        }
        b'[' => {
            let mut items = Vec::new();
            let mut j = skip_ws(b, i + 1);
            if b.get(j) != Some(&b']') {
                loop {
                    let (value, end) = build(b, j, depth + 1)?;
                    items.push((j, value));
                    j = skip_ws(b, end);
                    match b.get(j)? {
                        b',' => j = skip_ws(b, j + 1),
                        b']' => break,
                        _ => return None,
                    }
                }
            }
            let node = Node::Array {
                items,
                strings: std::cell::OnceCell::new(),
                with: std::cell::RefCell::new(std::collections::HashMap::new()),
            };
            Some((node, j + 1))
        }
        b'"' => string(b, i).map(|(s, end)| (Node::Str(s), end)),
        _ => {
            let end = skip_value(b, i)?;
            literal(&b[i..end]).then_some((Node::Other, end))
        }
    }
}

/// Whether `token` is a JSON literal: `true`, `false`, `null` or a number.
fn literal(token: &[u8]) -> bool {
    if matches!(token, b"true" | b"false" | b"null") {
        return true;
    }
    let digits = |t: &[u8], mut i: usize| {
        let from = i;
        while t.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        (i > from).then_some(i)
    };
    let mut i = usize::from(token.first() == Some(&b'-'));
    let Some(mut at) = digits(token, i) else {
        return false;
    };
    if token.get(at) == Some(&b'.') {
        let Some(next) = digits(token, at + 1) else {
            return false;
        };
        at = next;
    }
    if matches!(token.get(at), Some(b'e' | b'E')) {
        i = at + 1;
        if matches!(token.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let Some(next) = digits(token, i) else {
            return false;
        };
        at = next;
    }
    at == token.len()
}

/// [`walk`] over the tree.
fn walk_tree(node: &Node, at: usize, path: &[Seg]) -> Option<usize> {
    let Some((seg, rest)) = path.split_first() else {
        return Some(at);
    };
    match (node, seg) {
        (Node::Object { members, by_key }, Seg::Key(want)) => {
            let (_, key_at, value_at, value) = &members[*by_key.get(want)?];
            if rest.is_empty() {
                return Some(*key_at);
            }
            Some(walk_tree(value, *value_at, rest).unwrap_or(*key_at))
        }
        (
            Node::Array {
                items,
                strings,
                with,
            },
            seg,
        ) => {
            let index = match seg {
                Seg::Index(n) => (*n < items.len()).then_some(*n)?,
                Seg::Str(want) => *strings
                    .get_or_init(|| {
                        let mut map = std::collections::HashMap::new();
                        for (k, (_, item)) in items.iter().enumerate() {
                            if let Node::Str(s) = item {
                                map.entry(s.clone()).or_insert(k);
                            }
                        }
                        map
                    })
                    .get(want)?,
                Seg::ObjWith(key, want) => {
                    let mut with = with.borrow_mut();
                    let map = with.entry(key.clone()).or_insert_with(|| {
                        let mut map = std::collections::HashMap::new();
                        for (k, (_, item)) in items.iter().enumerate() {
                            if let Node::Object { members, by_key } = item {
                                if let Some(&m) = by_key.get(key) {
                                    if let Node::Str(s) = &members[m].3 {
                                        map.entry(s.clone()).or_insert(k);
                                    }
                                }
                            }
                        }
                        map
                    });
                    *map.get(want)?
                }
                Seg::Key(_) => return None,
            };
            let (item_at, item) = &items[index];
            Some(walk_tree(item, *item_at, rest).unwrap_or(*item_at))
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
    use crate::text::line_col;

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

    /// Text that is not JSON is left to the walk, so both answer alike: a scalar holding a
    /// bracket (`a{`, which the walk's bracket count treats as an opening) and text after
    /// the root value (found by the proptest `json_locator_agrees`).
    #[test]
    fn the_locator_answers_what_the_walk_answers_on_near_json() {
        for text in [
            "[[\"\",a{]]0",
            "[[\"\",a{]]",
            "[a[, 1]",
            "{\"a\": b\"}",
            "[1] [2, 3]",
            "[1]x",
        ] {
            assert!(Locator::new(text).tree.is_none(), "{text:?} is not JSON");
            for path in [
                vec![Seg::Index(1)],
                vec![Seg::Index(0), Seg::Index(1)],
                vec![Seg::key("a")],
            ] {
                assert_eq!(
                    Locator::new(text).locate(&path),
                    locate(text, &path),
                    "{text:?} {path:?}"
                );
            }
        }
    }

    #[test]
    fn literals_are_json_scalars() {
        for ok in ["0", "-1", "12.5", "1e9", "-0.5E-3", "true", "false", "null"] {
            assert!(literal(ok.as_bytes()), "{ok}");
        }
        for bad in ["", "-", "a{", "1.", ".5", "1e", "tru", "01x", "1-2"] {
            assert!(!literal(bad.as_bytes()), "{bad}");
        }
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
    fn the_locator_answers_what_locate_answers() {
        let texts = [
            TEXT,
            r#"{"nodes": [{"id": "A", "path": "a.json"}, {"path": "b.json", "id": "B"}, {"id": "A"}]}"#,
            r#"{"a": [1, "x", "y", "x", {"k": "v"}], "a": {"b": 2}}"#,
            "[}",
            "{\"a\": [1, 2",
            "",
        ];
        let paths = [
            vec![Seg::key("id")],
            vec![
                Seg::key("links"),
                Seg::key("depends_on"),
                Seg::Str("C-1".into()),
            ],
            vec![Seg::key("links"), Seg::key("implements"), Seg::Index(0)],
            vec![Seg::key("verification"), Seg::Index(1), Seg::key("url")],
            vec![
                Seg::key("nodes"),
                Seg::ObjWith("id".into(), "A".into()),
                Seg::key("path"),
            ],
            vec![Seg::key("nodes"), Seg::ObjWith("id".into(), "B".into())],
            vec![Seg::key("a"), Seg::Str("x".into())],
            vec![Seg::key("a"), Seg::Index(4), Seg::key("k")],
            vec![Seg::key("a"), Seg::Index(9)],
            vec![Seg::Index(0)],
            vec![Seg::key("nope")],
        ];
        for text in texts {
            let locator = Locator::new(text);
            for path in &paths {
                assert_eq!(locator.locate(path), locate(text, path), "{text} {path:?}");
            }
        }
    }

    #[test]
    fn garbage_never_panics() {
        for text in ["", "{", "[1,", "{\"a\":", "\"\\", "{\"a\" 1}", "[{]"] {
            let _ = locate(text, &[Seg::key("a"), Seg::Index(3)]);
        }
    }
}
