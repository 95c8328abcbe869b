//! The rules for one Spec Graph node file: fields, constraints, contract conditionals,
//! verification entries, links and metadata.

use super::*;

/// Checks one node file (a JSON object).
pub(crate) fn node(rel: &str, map: &Map<String, Value>) -> Vec<Pending> {
    let mut out = Out {
        path: rel,
        node: map.get("id").and_then(Value::as_str).map(str::to_string),
        findings: Vec::new(),
    };
    let kind = match map.get("type") {
        None => {
            out.push(
                "schema",
                path(&["id"]),
                format!("missing required field `type`: one of {}", TYPES.join(", ")),
            );
            None
        }
        Some(Value::String(t)) if TYPES.contains(&t.as_str()) => Some(t.as_str()),
        Some(other) => {
            out.push(
                "schema",
                path(&["type"]),
                format!(
                    "unknown type {}: use one of {}",
                    short_value(other),
                    TYPES.join(", ")
                ),
            );
            None
        }
    };
    let grouping = matches!(kind, Some("feature" | "layer"));
    match map.get("id") {
        None => out.push(
            "schema",
            path(&["type"]),
            "missing required field `id` (e.g. \"AUTH-01\")".into(),
        ),
        Some(Value::String(id)) => {
            let max = if grouping { 20 } else { 80 };
            if !valid_id(id, max) {
                out.push(
                    "id-pattern",
                    path(&["id"]),
                    if grouping {
                        format!("{} id `{id}` must be an upper-case letter followed by up to 19 upper-case letters, digits or `-` (at most 20 characters)", kind.unwrap_or("feature"))
                    } else {
                        format!("id `{id}` must be an upper-case letter followed by up to 79 upper-case letters, digits or `-` (e.g. AUTH-01)")
                    },
                );
            }
        }
        Some(other) => out.push(
            "schema",
            path(&["id"]),
            format!("`id` must be a string, not {}", json_type(other)),
        ),
    }
    let Some(kind) = kind else {
        return out.findings;
    };
    let (allowed, title_max): (&[&str], usize) = match kind {
        "feature" | "layer" => (&GROUPING_KEYS, 100),
        "behavior" => (&BEHAVIOR_KEYS, 100),
        _ => (&CONTRACT_KEYS, 140),
    };
    for key in map.keys() {
        if allowed.contains(&key.as_str()) {
            continue;
        }
        let message = match key.as_str() {
            "category" => {
                format!("`category` is only allowed on decisions, not on a {kind}: remove it")
            }
            "severity" => {
                format!("`severity` is only allowed on policies, not on a {kind}: remove it")
            }
            "artifact" => {
                format!("`artifact` is only allowed on artifact nodes, not on a {kind}: remove it")
            }
            _ => format!(
                "unknown field `{key}` on a {kind}: the schema allows only {}",
                allowed.join(", ")
            ),
        };
        out.push("schema", path(&[key]), message);
    }
    string_field(&mut out, map, "$schema", false, 0, None);
    string_field(&mut out, map, "title", true, 3, Some(title_max));
    match kind {
        "feature" | "layer" => {
            string_field(&mut out, map, "description", true, 1, None);
        }
        "behavior" => {
            string_field(&mut out, map, "expectation", true, 10, None);
            match map.get("verification") {
                Some(Value::Array(_)) => out.push(
                    "schema",
                    path(&["verification"]),
                    "a behavior's `verification` is one command string (at least 5 characters), not a list".into(),
                ),
                _ => string_field(&mut out, map, "verification", true, 5, None),
            }
            constraints(&mut out, map);
        }
        _ => {
            string_field(&mut out, map, "statement", true, 1, None);
            verification(&mut out, map);
            constraints(&mut out, map);
            contract_conditionals(&mut out, map, kind);
        }
    }
    links(&mut out, map);
    metadata(&mut out, map, kind);
    out.findings
}

/// A string field: presence, type and length in characters.
fn string_field(
    out: &mut Out,
    map: &Map<String, Value>,
    key: &str,
    required: bool,
    min: usize,
    max: Option<usize>,
) {
    match map.get(key) {
        None if required => out.push(
            "schema",
            path(&["type"]),
            format!("missing required field `{key}`{}", length_hint(min, max)),
        ),
        None => {}
        Some(Value::String(text)) => {
            let n = text.chars().count();
            if n < min || max.is_some_and(|max| n > max) {
                out.push(
                    "schema",
                    path(&[key]),
                    format!(
                        "`{key}` has {n} characters; it needs{}",
                        length_hint(min, max)
                    ),
                );
            }
        }
        Some(other) => out.push(
            "schema",
            path(&[key]),
            format!("`{key}` must be a string, not {}", json_type(other)),
        ),
    }
}

fn length_hint(min: usize, max: Option<usize>) -> String {
    match (min, max) {
        (0, None) => String::new(),
        (min, None) => format!(" (at least {min} characters)"),
        (min, Some(max)) => format!(" ({min} to {max} characters)"),
    }
}

fn constraints(out: &mut Out, map: &Map<String, Value>) {
    match map.get("constraints") {
        None => {}
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                if !item.is_string() {
                    out.push(
                        "schema",
                        vec![Seg::key("constraints"), Seg::Index(i)],
                        format!("constraints[{i}] must be a string, not {}", json_type(item)),
                    );
                }
            }
        }
        Some(other) => out.push(
            "schema",
            path(&["constraints"]),
            format!(
                "`constraints` must be a list of strings (use [] for none), not {}",
                json_type(other)
            ),
        ),
    }
}

fn contract_conditionals(out: &mut Out, map: &Map<String, Value>, kind: &str) {
    for (key, owner, owners) in [
        ("category", "decision", "decisions"),
        ("severity", "policy", "policies"),
        ("artifact", "artifact", "artifact nodes"),
    ] {
        if kind != owner && map.contains_key(key) {
            out.push(
                "schema",
                path(&[key]),
                format!("`{key}` is only allowed on {owners}, not on a {kind}: remove it"),
            );
        }
    }
    match (kind, map.get("category")) {
        ("decision", None) => out.push(
            "schema",
            path(&["type"]),
            format!(
                "a decision needs a `category`: one of {}",
                CATEGORIES.join(", ")
            ),
        ),
        ("decision", Some(Value::String(c))) if CATEGORIES.contains(&c.as_str()) => {}
        ("decision", Some(other)) => out.push(
            "schema",
            path(&["category"]),
            format!(
                "decision category {} is not one of {}",
                short_value(other),
                CATEGORIES.join(", ")
            ),
        ),
        _ => {}
    }
    match (kind, map.get("severity")) {
        ("policy", None) => out.push(
            "schema",
            path(&["type"]),
            "a policy needs a `severity`: \"hard\" or \"soft\"".into(),
        ),
        ("policy", Some(Value::String(s))) if s == "hard" || s == "soft" => {}
        ("policy", Some(other)) => out.push(
            "schema",
            path(&["severity"]),
            format!(
                "policy severity {} must be \"hard\" or \"soft\"",
                short_value(other)
            ),
        ),
        _ => {}
    }
    match (kind, map.get("artifact")) {
        ("artifact", None) => out.push(
            "schema",
            path(&["type"]),
            "an artifact node needs an `artifact` object with the source's `sha256`".into(),
        ),
        ("artifact", Some(Value::Object(info))) => {
            for key in info.keys() {
                if !["sha256", "source", "format"].contains(&key.as_str()) {
                    out.push(
                        "schema",
                        path(&["artifact", key]),
                        format!("unknown field `{key}` in `artifact`: it has only sha256, source and format"),
                    );
                }
            }
            match info.get("sha256") {
                Some(Value::String(hash)) if is_sha256(hash) => {}
                None => out.push(
                    "schema",
                    path(&["artifact"]),
                    "`artifact` needs a `sha256` (64 hex digits) of its source".into(),
                ),
                Some(other) => out.push(
                    "schema",
                    path(&["artifact", "sha256"]),
                    format!(
                        "artifact.sha256 must be 64 hex digits, not {}",
                        short_value(other)
                    ),
                ),
            }
            for key in ["source", "format"] {
                if let Some(value) = info.get(key).filter(|v| !v.is_string()) {
                    out.push(
                        "schema",
                        path(&["artifact", key]),
                        format!("artifact.{key} must be a string, not {}", json_type(value)),
                    );
                }
            }
        }
        ("artifact", Some(other)) => out.push(
            "schema",
            path(&["artifact"]),
            format!("`artifact` must be an object, not {}", json_type(other)),
        ),
        _ => {}
    }
    pins(out, map.get("pins"));
}

/// `pins`: a list of `{"id", "sha256"}` objects, each with a valid id and a 64-hex-digit hash.
fn pins(out: &mut Out, pins: Option<&Value>) {
    match pins {
        None => {}
        Some(Value::Array(pins)) => {
            for (i, pin) in pins.iter().enumerate() {
                let at = vec![Seg::key("pins"), Seg::Index(i)];
                let Value::Object(pin) = pin else {
                    out.push(
                        "schema",
                        at,
                        format!("pins[{i}] must be an object {{\"id\", \"sha256\"}}"),
                    );
                    continue;
                };
                for key in pin.keys() {
                    if key != "id" && key != "sha256" {
                        out.push(
                            "schema",
                            with(&at, Seg::key(key)),
                            format!(
                                "unknown field `{key}` in pins[{i}]: a pin has only id and sha256"
                            ),
                        );
                    }
                }
                match pin.get("id") {
                    Some(Value::String(id)) if valid_id(id, 80) => {}
                    Some(Value::String(id)) => out.push(
                        "id-pattern",
                        with(&at, Seg::key("id")),
                        format!("pins[{i}].id `{id}` is not a valid node id"),
                    ),
                    _ => out.push(
                        "schema",
                        at.clone(),
                        format!("pins[{i}] needs an `id` string"),
                    ),
                }
                match pin.get("sha256") {
                    Some(Value::String(hash)) if is_sha256(hash) => {}
                    _ => out.push(
                        "schema",
                        with(&at, Seg::key("sha256")),
                        format!("pins[{i}] needs a `sha256` of 64 hex digits"),
                    ),
                }
            }
        }
        Some(other) => out.push(
            "schema",
            path(&["pins"]),
            format!(
                "`pins` must be a list of {{\"id\", \"sha256\"}}, not {}",
                json_type(other)
            ),
        ),
    }
}

/// A contract's `verification`: a non-empty list of strings or typed entries.
fn verification(out: &mut Out, map: &Map<String, Value>) {
    let items = match map.get("verification") {
        None => {
            out.push(
                "schema",
                path(&["type"]),
                "missing required field `verification`: a list of at least one check (a command string or {\"kind\": …})".into(),
            );
            return;
        }
        Some(Value::Array(items)) if !items.is_empty() => items,
        Some(Value::Array(_)) => {
            out.push(
                "schema",
                path(&["verification"]),
                "`verification` is empty: list at least one check".into(),
            );
            return;
        }
        Some(other) => {
            out.push(
                "schema",
                path(&["verification"]),
                format!(
                    "`verification` must be a list of checks, not {} (only behaviors take a single string)",
                    json_type(other)
                ),
            );
            return;
        }
    };
    for (i, item) in items.iter().enumerate() {
        let at = vec![Seg::key("verification"), Seg::Index(i)];
        match item {
            Value::String(text) if !text.is_empty() => {}
            Value::String(_) => out.push(
                "verification-entry",
                at,
                format!("verification[{i}] is an empty string"),
            ),
            Value::Object(entry) => verification_entry(out, &at, i, entry),
            other => out.push(
                "verification-entry",
                at,
                format!(
                    "verification[{i}] must be a string or an object with a `kind`, not {}",
                    json_type(other)
                ),
            ),
        }
    }
}

fn verification_entry(out: &mut Out, at: &[Seg], i: usize, entry: &Map<String, Value>) {
    let field = |key: &str| with(at, Seg::key(key));
    for key in entry.keys() {
        if !VERIFICATION_FIELDS.contains(&key.as_str()) {
            out.push(
                "verification-entry",
                field(key),
                format!(
                    "unknown field `{key}` in verification[{i}]: entries have only {}",
                    VERIFICATION_FIELDS.join(", ")
                ),
            );
        }
    }
    let kind = match entry.get("kind") {
        None => {
            out.push(
                "verification-entry",
                at.to_vec(),
                format!(
                    "verification[{i}] has no `kind`: one of {}",
                    VERIFICATION_KINDS.join(", ")
                ),
            );
            None
        }
        Some(Value::String(k)) if VERIFICATION_KINDS.contains(&k.as_str()) => Some(k.as_str()),
        Some(other) => {
            out.push(
                "verification-entry",
                field("kind"),
                format!(
                    "verification[{i}].kind {} is not one of {}",
                    short_value(other),
                    VERIFICATION_KINDS.join(", ")
                ),
            );
            None
        }
    };
    let required: &[&str] = match kind {
        Some("command") => &["command"],
        Some("http") => &["method", "url", "expectStatus"],
        Some("manual") => &["steps"],
        Some("observation") => &["description"],
        Some("policy") => &["ruleId"],
        _ => &[],
    };
    for key in required {
        if !entry.contains_key(*key) {
            out.push(
                "verification-entry",
                at.to_vec(),
                format!(
                    "verification[{i}] of kind `{}` needs `{key}`",
                    kind.unwrap_or_default()
                ),
            );
        }
    }
    for (key, value) in entry {
        let problem = match key.as_str() {
            "command" | "cwd" | "url" | "expected" | "description" | "ruleId" => {
                (!value.is_string()).then(|| "must be a string".to_string())
            }
            "env" => match value {
                Value::Object(vars) if vars.values().all(Value::is_string) => None,
                _ => Some("must be an object of string values".into()),
            },
            "timeoutSeconds" => match value.as_u64() {
                Some(n) if (1..=3600).contains(&n) => None,
                _ => Some("must be a whole number of seconds from 1 to 3600".into()),
            },
            "expectStatus" => match value.as_u64() {
                Some(n) if (100..=599).contains(&n) => None,
                _ => Some("must be an HTTP status from 100 to 599".into()),
            },
            "method" => match value.as_str() {
                Some(m) if METHODS.contains(&m) => None,
                _ => Some(format!("must be one of {}", METHODS.join(", "))),
            },
            "steps" => match value {
                Value::Array(steps) if !steps.is_empty() && steps.iter().all(Value::is_string) => {
                    None
                }
                _ => Some("must be a non-empty list of strings".into()),
            },
            _ => None,
        };
        if let Some(problem) = problem {
            out.push(
                "verification-entry",
                field(key),
                format!("verification[{i}].{key} {problem}"),
            );
        }
    }
}

fn links(out: &mut Out, map: &Map<String, Value>) {
    let links = match map.get("links") {
        None => return,
        Some(Value::Object(links)) => links,
        Some(other) => {
            out.push(
                "schema",
                path(&["links"]),
                format!(
                    "`links` must be an object like {{\"depends_on\": [\"ID\"]}}, not {}",
                    json_type(other)
                ),
            );
            return;
        }
    };
    for (key, targets) in links {
        if !relations().any(|r| r == key) {
            out.push(
                "schema",
                path(&["links", key]),
                format!(
                    "unknown relation `{key}` in links: use {}",
                    relations().collect::<Vec<_>>().join(", ")
                ),
            );
            continue;
        }
        let Value::Array(targets) = targets else {
            out.push(
                "schema",
                path(&["links", key]),
                format!(
                    "links.{key} must be a list of ids, not {}",
                    json_type(targets)
                ),
            );
            continue;
        };
        for (i, target) in targets.iter().enumerate() {
            let at = vec![Seg::key("links"), Seg::key(key), Seg::Index(i)];
            match target {
                Value::String(id) if valid_id(id, 80) => {}
                Value::String(id) => out.push(
                    "id-pattern",
                    at,
                    format!("links.{key} target `{id}` is not a valid node id (upper-case letters, digits and `-`)"),
                ),
                other => out.push(
                    "schema",
                    at,
                    format!("links.{key}[{i}] must be an id string, not {}", json_type(other)),
                ),
            }
        }
    }
}

fn metadata(out: &mut Out, map: &Map<String, Value>, kind: &str) {
    let meta = match map.get("metadata") {
        None => {
            if kind == "decision" {
                out.push(
                    "schema",
                    path(&["type"]),
                    "a decision needs `metadata.rationale` (at least 10 characters): why this was chosen".into(),
                );
            }
            return;
        }
        Some(Value::Object(meta)) => meta,
        Some(other) => {
            out.push(
                "schema",
                path(&["metadata"]),
                format!("`metadata` must be an object, not {}", json_type(other)),
            );
            return;
        }
    };
    match meta.get("rationale") {
        None if kind == "decision" => out.push(
            "schema",
            path(&["metadata"]),
            "a decision needs `metadata.rationale` (at least 10 characters): why this was chosen"
                .into(),
        ),
        None => {}
        Some(Value::String(text)) if kind == "decision" && text.chars().count() < 10 => out.push(
            "schema",
            path(&["metadata", "rationale"]),
            format!(
                "metadata.rationale has {} characters; a decision's rationale needs at least 10",
                text.chars().count()
            ),
        ),
        Some(Value::String(_)) => {}
        Some(other) => out.push(
            "schema",
            path(&["metadata", "rationale"]),
            format!(
                "metadata.rationale must be a string, not {}",
                json_type(other)
            ),
        ),
    }
    if let Some(tags) = meta.get("tags") {
        if !matches!(tags, Value::Array(items) if items.iter().all(Value::is_string)) {
            out.push(
                "schema",
                path(&["metadata", "tags"]),
                "metadata.tags must be a list of strings".into(),
            );
        }
    }
    match meta.get("rejected_alternatives") {
        None => {}
        Some(Value::Array(alternatives)) => {
            for (i, alt) in alternatives.iter().enumerate() {
                let at = vec![
                    Seg::key("metadata"),
                    Seg::key("rejected_alternatives"),
                    Seg::Index(i),
                ];
                let Value::Object(alt) = alt else {
                    out.push(
                        "schema",
                        at,
                        format!("rejected_alternatives[{i}] must be {{\"title\", \"reason\"}}"),
                    );
                    continue;
                };
                for key in alt.keys() {
                    if key != "title" && key != "reason" {
                        out.push(
                            "schema",
                            with(&at, Seg::key(key)),
                            format!("unknown field `{key}` in rejected_alternatives[{i}]: it has only title and reason"),
                        );
                    }
                }
                for (key, min) in [("title", 3), ("reason", 10)] {
                    let ok = alt
                        .get(key)
                        .and_then(Value::as_str)
                        .is_some_and(|t| t.chars().count() >= min);
                    if !ok {
                        out.push(
                            "schema",
                            with(&at, Seg::key(key)),
                            format!("rejected_alternatives[{i}].{key} must be a string of at least {min} characters"),
                        );
                    }
                }
            }
        }
        Some(other) => out.push(
            "schema",
            path(&["metadata", "rejected_alternatives"]),
            format!(
                "metadata.rejected_alternatives must be a list, not {}",
                json_type(other)
            ),
        ),
    }
}
