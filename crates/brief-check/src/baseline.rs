//! Baselines: the findings a project already has, so CI can adopt `brief check` and fail only
//! on new ones. A finding's fingerprint is its rule, path, node and message with standalone
//! numbers (lines, columns, counts) blurred — never its line, so editing a file above a known
//! problem does not resurface it. The file is JSON, sorted, one entry per finding:
//!
//! ```json
//! {"version": 1, "findings": [{"rule": "orphan-spec", "path": "…", "node": "SPEC-1", "message": "…"}]}
//! ```

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use brief_root::Root;

use serde::{Deserialize, Serialize};

use super::{Finding, Report};

/// A finding as a baseline remembers it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
struct Entry {
    rule: String,
    path: String,
    #[serde(default)]
    node: Option<String>,
    message: String,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    version: u32,
    findings: Vec<Entry>,
}

/// Known findings, counted by fingerprint.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Baseline {
    counts: BTreeMap<Entry, usize>,
}

/// The largest baseline brief reads (a baseline of a few hundred thousand findings).
pub(crate) const MAX_BASELINE_BYTES: u64 = 64 << 20;

/// A baseline file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    /// The file could not be read.
    #[error("{path}: cannot read the baseline: {message}")]
    Read {
        /// The baseline file.
        path: String,
        /// The system's error.
        message: String,
    },
    /// The file is not a baseline brief wrote.
    #[error("{path}: not a brief check baseline ({message}); write one with --write-baseline")]
    Parse {
        /// The baseline file.
        path: String,
        /// What does not parse, and where.
        message: String,
    },
    /// The file is larger than brief reads.
    #[error(
        "{path}: the baseline is larger than {} MiB, more than brief reads; write a new one \
         with --write-baseline",
        MAX_BASELINE_BYTES >> 20
    )]
    TooLarge {
        /// The baseline file.
        path: String,
    },
    /// The file could not be written.
    #[error("{path}: cannot write the baseline: {message}")]
    Write {
        /// The baseline file.
        path: String,
        /// The system's error.
        message: String,
    },
}

impl Baseline {
    /// The baseline of a report's findings.
    pub fn from_report(report: &Report) -> Baseline {
        let mut counts = BTreeMap::new();
        for finding in &report.findings {
            *counts.entry(fingerprint(finding)).or_insert(0) += 1;
        }
        Baseline { counts }
    }

    /// Number of findings recorded.
    pub fn len(&self) -> usize {
        self.counts.values().sum()
    }

    /// True when no finding is recorded.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Reads the baseline at `rel` beneath the project root: a regular file (never a device,
    /// a FIFO or a folder, never through a link that leaves the root) of at most
    /// [`MAX_BASELINE_BYTES`]. `shown` names it in messages.
    pub fn read(root: &Root, rel: &Path, shown: &str) -> Result<Baseline, BaselineError> {
        let read_error = |message: String| BaselineError::Read {
            path: shown.to_string(),
            message,
        };
        let file = root
            .open_file(&root.path().join(rel))
            .map_err(|e| read_error(e.to_string()))?;
        let too_large = || BaselineError::TooLarge {
            path: shown.to_string(),
        };
        let size = file
            .metadata()
            .map_err(|e| read_error(e.to_string()))?
            .len();
        if size > MAX_BASELINE_BYTES {
            return Err(too_large());
        }
        let mut bytes = Vec::new();
        file.take(MAX_BASELINE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| read_error(e.to_string()))?;
        if bytes.len() as u64 > MAX_BASELINE_BYTES {
            return Err(too_large());
        }
        let text = String::from_utf8(bytes).map_err(|_| BaselineError::Parse {
            path: shown.to_string(),
            message: "not UTF-8 text".into(),
        })?;
        Baseline::parse(&text).map_err(|message| BaselineError::Parse {
            path: shown.to_string(),
            message,
        })
    }

    /// Writes the baseline to `rel` beneath the project root, creating its folder there if
    /// needed (plain folders only: nothing is written through a link). The file is replaced
    /// whole.
    pub fn write(&self, root: &Root, rel: &Path, shown: &str) -> Result<(), BaselineError> {
        let failed = |message: String| BaselineError::Write {
            path: shown.to_string(),
            message,
        };
        let name = rel
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| failed("not a file name".into()))?;
        let folder = rel.parent().unwrap_or(Path::new(""));
        let dir = root
            .private_dir(folder)
            .map_err(|e| failed(e.to_string()))?;
        dir.replace(name, self.to_json().as_bytes())
            .map_err(|e| failed(e.to_string()))
    }

    fn parse(text: &str) -> Result<Baseline, String> {
        let file: File = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if file.version != 1 {
            return Err(format!("unsupported version {}", file.version));
        }
        let mut counts = BTreeMap::new();
        for entry in file.findings {
            *counts.entry(entry).or_insert(0) += 1;
        }
        Ok(Baseline { counts })
    }

    /// The baseline as JSON, entries sorted.
    pub fn to_json(&self) -> String {
        let findings: Vec<Entry> = self
            .counts
            .iter()
            .flat_map(|(entry, &n)| std::iter::repeat_n(entry.clone(), n))
            .collect();
        let mut text = serde_json::to_string_pretty(&File {
            version: 1,
            findings,
        })
        .unwrap_or_default();
        text.push('\n');
        text
    }

    /// Removes the findings the baseline knows (as many of each fingerprint as it recorded)
    /// and counts them in `report.hidden`.
    pub fn filter(&self, report: &mut Report) {
        let mut left = self.counts.clone();
        let before = report.findings.len();
        report
            .findings
            .retain(|finding| match left.get_mut(&fingerprint(finding)) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    false
                }
                _ => true,
            });
        report.hidden += before - report.findings.len();
    }
}

fn fingerprint(finding: &Finding) -> Entry {
    Entry {
        rule: finding.rule.to_string(),
        path: finding.location.path.clone(),
        node: finding.node.clone(),
        message: blur_numbers(&finding.message),
    }
}

/// Replaces every standalone number with `#`: digits not glued to a letter, digit, `-`, `_`
/// or `.` before them (ids such as SPEC-001 and versions such as 1.0.0 keep theirs).
fn blur_numbers(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut prev: Option<char> = None;
    let mut chars = message.chars().peekable();
    while let Some(c) = chars.next() {
        let glued = prev.is_some_and(|p| p.is_alphanumeric() || matches!(p, '-' | '_' | '.'));
        if c.is_ascii_digit() && !glued {
            while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                chars.next();
            }
            out.push('#');
            prev = Some('#');
            continue;
        }
        out.push(c);
        prev = Some(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Gate, Severity};
    use brief_model::Location;

    fn finding(line: u32, message: &str) -> Finding {
        Finding {
            rule: "orphan-spec",
            severity: Severity::Warning,
            location: Location {
                path: "a.md".into(),
                line,
                col: 1,
            },
            node: Some("SPEC-001".into()),
            message: message.into(),
        }
    }

    #[test]
    fn numbers_are_blurred_but_ids_kept() {
        assert_eq!(
            blur_numbers("SPEC-001 is 912 tokens (first at a.md:3:1), v1.0.0"),
            "SPEC-001 is # tokens (first at a.md:#:#), v1.0.0"
        );
    }

    #[test]
    fn filter_hides_known_findings_whatever_their_line() {
        let known = Report {
            findings: vec![finding(3, "spec SPEC-001 is orphan")],
            hidden: 0,
            gate: Gate::Errors,
        };
        let baseline = Baseline::parse(&Baseline::from_report(&known).to_json()).unwrap();
        let mut now = Report {
            findings: vec![
                finding(7, "spec SPEC-001 is orphan"),
                finding(9, "spec SPEC-001 is orphan"),
            ],
            hidden: 0,
            gate: Gate::Errors,
        };
        baseline.filter(&mut now);
        assert_eq!(now.hidden, 1);
        assert_eq!(now.findings.len(), 1, "a second identical finding is new");
    }

    #[test]
    fn bad_files_are_errors() {
        assert!(Baseline::parse("[]").is_err());
        assert!(Baseline::parse("{\"version\": 2, \"findings\": []}").is_err());
    }
}
