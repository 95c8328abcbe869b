//! Tool schemas as strict validators take them (ajv in strict mode, the TypeScript SDK's):
//! draft-07 and 2020-12 alike, every sub-schema inline, no `$schema`, no `format` on
//! integers (`uint64` is no JSON Schema format), no `["integer", "null"]` unions (an absent
//! parameter is how a client leaves one out), and `additionalProperties: false` at the top,
//! which the server enforces too ([`properties`]).

use std::sync::Arc;

use rmcp::model::JsonObject;
use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::{json, Map, Value};

/// The input schema of a tool whose parameters are `T`.
pub fn input<T: JsonSchema>() -> Arc<JsonObject> {
    let generator = SchemaSettings::draft07()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator();
    let mut value = generator.into_root_schema_for::<T>().to_value();
    plain(&mut value);
    let mut object = match value {
        Value::Object(object) => object,
        _ => Map::new(),
    };
    object.remove("title");
    object.insert("type".into(), json!("object"));
    object.entry("properties").or_insert_with(|| json!({}));
    object.insert("additionalProperties".into(), json!(false));
    Arc::new(object)
}

/// What a tool returns as structured content: the bytes the CLI prints (`text`), its
/// warnings (`notes`), and with a JSON format the same output parsed (`json`).
pub fn output() -> Arc<JsonObject> {
    let value = json!({
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "What `brief` prints on stdout for the same arguments."},
            "notes": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Warnings and notes, as `brief` prints them on stderr."
            },
            "json": {
                "anyOf": [{"type": "object"}, {"type": "array"}],
                "description": "With a JSON format: `text` parsed."
            }
        },
        "required": ["text", "notes"],
        "additionalProperties": false
    });
    match value {
        Value::Object(object) => Arc::new(object),
        _ => Arc::new(JsonObject::new()),
    }
}

/// The names of a tool's parameters, from its input schema.
pub fn properties(schema: &JsonObject) -> Vec<&str> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

/// Rewrites a schema in place into the plain form the module describes.
fn plain(value: &mut Value) {
    match value {
        Value::Object(object) => {
            // Parameter names, not keywords: only their schemas are rewritten.
            if let Some(Value::Object(properties)) = object.get_mut("properties") {
                properties.values_mut().for_each(plain);
            }
            object.remove("$schema");
            object.remove("format");
            if object.get("default") == Some(&Value::Null) {
                object.remove("default");
            }
            if let Some(Value::Array(types)) = object.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    object.insert("type".into(), only);
                }
            }
            if let Some(Value::Array(enumerated)) = object.get_mut("enum") {
                enumerated.retain(|v| !v.is_null());
            }
            for key in ["anyOf", "oneOf"] {
                drop_null_branch(object, key);
            }
            for (key, child) in object.iter_mut() {
                if key != "properties" {
                    plain(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(plain),
        _ => {}
    }
}

/// `anyOf: [X, {type: null}]` → X merged into the schema (its own description kept).
fn drop_null_branch(object: &mut Map<String, Value>, key: &str) {
    let Some(Value::Array(branches)) = object.get_mut(key) else {
        return;
    };
    branches.retain(|b| b.get("type") != Some(&json!("null")));
    if branches.len() != 1 {
        return;
    }
    let Some(Value::Object(only)) = branches.pop() else {
        return;
    };
    object.remove(key);
    for (k, v) in only {
        object.entry(k).or_insert(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::*;

    /// Every keyword a strict validator refuses or reads differently, anywhere in `value`.
    fn loose(value: &Value, at: &str, found: &mut Vec<String>) {
        match value {
            Value::Object(object) => {
                for key in [
                    "$schema",
                    "$ref",
                    "$defs",
                    "definitions",
                    "format",
                    "nullable",
                ] {
                    if object.contains_key(key) {
                        found.push(format!("{at}: {key}"));
                    }
                }
                if let Some(Value::Array(_)) = object.get("type") {
                    found.push(format!("{at}: a union type"));
                }
                for (k, v) in object {
                    if k == "properties" {
                        for (name, property) in v.as_object().into_iter().flatten() {
                            loose(property, &format!("{at}/properties/{name}"), found);
                        }
                    } else {
                        loose(v, &format!("{at}/{k}"), found);
                    }
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    loose(v, &format!("{at}/{i}"), found);
                }
            }
            _ => {}
        }
    }

    #[test]
    fn schemas_are_plain() {
        for schema in [
            input::<ContextParams>(),
            input::<ImpactParams>(),
            input::<ExplainParams>(),
            input::<DiffParams>(),
            input::<SearchParams>(),
            input::<PackageListParams>(),
            input::<PackageAddParams>(),
            input::<NoParams>(),
        ] {
            let value = Value::Object((*schema).clone());
            let mut found = Vec::new();
            loose(&value, "", &mut found);
            assert!(found.is_empty(), "{found:?} in {value:#}");
            assert_eq!(value["additionalProperties"], json!(false));
        }
    }

    #[test]
    fn context_settings_are_flattened_with_their_bounds() {
        let schema = Value::Object((*input::<ContextParams>()).clone());
        let props = &schema["properties"];
        assert_eq!(
            props["budget"],
            json!({"type": "integer", "minimum": 1, "description": props["budget"]["description"]})
        );
        assert_eq!(props["seeds"]["minimum"], json!(1));
        assert_eq!(props["target"]["minLength"], json!(1));
        assert_eq!(props["detail"]["enum"], json!(["full", "summary", "meta"]));
        assert_eq!(props["depth"]["anyOf"][0]["type"], json!("integer"));
        assert_eq!(schema["required"], json!(["target"]));
        for key in [
            "depth",
            "lens",
            "no_identity",
            "budget",
            "detail",
            "encoding",
            "format",
        ] {
            assert!(props.get(key).is_some(), "{key}");
        }
        let impact = Value::Object((*input::<ImpactParams>()).clone());
        assert!(impact["properties"].get("budget").is_none());
        assert!(impact["properties"].get("depth").is_some());
    }
}
