//! The listing of a project's sources and the parser each file is read with.

use super::*;
use brief_sources::{Format, KiroRole, SpecKitRole};

/// How a file is parsed: the sources' catalogue decides.
pub(crate) use brief_sources::Parser;

/// Every source file of the project (the sources' catalogue), the manifests' own problems,
/// and the manifests and folders to watch for a quick check, each stamped before it was read.
pub(crate) fn list(project: &Project) -> (Vec<Listed>, Vec<Problem>, Vec<FolderStamp>) {
    let listing = brief_sources::list(&project.guard, &project.root, &project.sources);
    let listed = listing
        .files
        .into_iter()
        .map(|f| Listed {
            path: f.path,
            rel: f.rel,
            parser: f.parser,
            known: None,
        })
        .collect();
    (listed, listing.problems, listing.watches)
}

/// A parser as stored with its file: `s`, then manifest, id and expected type of each entry
/// that names the file; or `a` and a placement (`identity`, `loose`, or the kind of a folder);
/// or `p`, a registered page format's name and the catalogue's fingerprint.
pub(crate) fn encode_parser(parser: &Parser) -> String {
    match parser {
        Parser::Spec(entry) => {
            let mut text = String::from("s");
            for listed in entry.listings() {
                text.push_str(&format!(
                    "\t{}\t{}\t{}",
                    listed.manifest,
                    listed.id,
                    listed.expected.as_deref().unwrap_or("")
                ));
            }
            text
        }
        Parser::Artifact(Placement::Identity) => "a\tidentity".into(),
        Parser::Artifact(Placement::Loose) => "a\tloose".into(),
        Parser::Artifact(Placement::Folder(kind)) => format!("a\tfolder\t{kind}"),
        Parser::Tana => "t".into(),
        Parser::Markdown(fingerprint) => format!("m\t{fingerprint}"),
        Parser::SpecKit(SpecKitRole::Constitution { features }) => join(&["k", "c"], features),
        Parser::SpecKit(SpecKitRole::Feature { dir, key, files }) => {
            join(&["k", "f", dir, key], files)
        }
        Parser::Kiro(KiroRole::Spec { base, name, files }) => join(&["r", "s", base, name], files),
        Parser::Kiro(KiroRole::Steering { base }) => format!("r\tt\t{base}"),
        Parser::Pages {
            format,
            fingerprint,
        } => format!("p\t{}\t{fingerprint}", format.name()),
    }
}

/// Tab-joined fields then a list (names hold no tabs: the listing skips such names).
fn join(head: &[&str], list: &[String]) -> String {
    let mut out = head.join("\t");
    for item in list {
        out.push('\t');
        out.push_str(item);
    }
    out
}

pub(crate) fn decode_parser(text: &str) -> Option<Parser> {
    let parts: Vec<&str> = text.split('\t').collect();
    match parts.as_slice() {
        ["s", listings @ ..] if !listings.is_empty() && listings.len() % 3 == 0 => {
            let mut entries = listings.chunks(3).map(|listing| Entry {
                manifest: listing[0].to_string(),
                id: listing[1].to_string(),
                expected: (!listing[2].is_empty()).then(|| listing[2].to_string()),
                ..Entry::default()
            });
            let mut entry = entries.next()?;
            entry.also = entries.collect();
            Some(Parser::Spec(entry))
        }
        ["a", "identity"] => Some(Parser::Artifact(Placement::Identity)),
        ["a", "loose"] => Some(Parser::Artifact(Placement::Loose)),
        ["a", "folder", kind] => Some(Parser::Artifact(Placement::Folder(Kind::parse(kind)))),
        ["t"] => Some(Parser::Tana),
        ["m", fingerprint] => Some(Parser::Markdown(fingerprint.to_string())),
        ["k", "c", features @ ..] => Some(Parser::SpecKit(SpecKitRole::Constitution {
            features: owned(features),
        })),
        ["k", "f", dir, key, files @ ..] => Some(Parser::SpecKit(SpecKitRole::Feature {
            dir: dir.to_string(),
            key: key.to_string(),
            files: owned(files),
        })),
        ["r", "s", base, name, files @ ..] => Some(Parser::Kiro(KiroRole::Spec {
            base: base.to_string(),
            name: name.to_string(),
            files: owned(files),
        })),
        ["r", "t", base] => Some(Parser::Kiro(KiroRole::Steering {
            base: base.to_string(),
        })),
        // A format no longer registered reads as no parser: its files are listed again.
        ["p", name, fingerprint] => Some(Parser::Pages {
            format: Format::named(name)?,
            fingerprint: fingerprint.to_string(),
        }),
        _ => None,
    }
}

fn owned(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// Exports are written by `write_tana`, inside the refresh's transaction.
pub(crate) use brief_sources::parse_file as parse;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parsers_read_back_as_stored() {
        let entry = |id: &str, expected: Option<&str>| Entry {
            id: id.into(),
            expected: expected.map(str::to_string),
            manifest: "specgraph/graph.json".into(),
            ..Entry::default()
        };
        let mut spec = entry("A", Some("behavior"));
        spec.also = vec![entry("B", None), entry("A", Some("task"))];
        for parser in [
            Parser::Spec(entry("A", None)),
            Parser::Spec(spec),
            Parser::Artifact(Placement::Loose),
            Parser::Artifact(Placement::Folder(Kind::Spec)),
            Parser::Tana,
            Parser::Markdown("f1".into()),
        ] {
            assert_eq!(decode_parser(&encode_parser(&parser)), Some(parser));
        }
        assert_eq!(decode_parser("s\ta\tb"), None);
    }
}
