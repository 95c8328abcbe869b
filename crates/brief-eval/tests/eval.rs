//! The evaluation on the payments example: every method stays within the exact budget and
//! uses it, the hand labels name real nodes, and brief keeps every hard constraint.

// Test and bench code: a failed unwrap is the failure report (clippy.toml's test allowances
// do not reach these crates).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use brief::Encoding;
use brief_eval::{measure, read_labels, EvalProject, Method, Report};

fn payments() -> EvalProject {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let labels = read_labels(&dir.join("labels/payments.json")).unwrap();
    EvalProject::open("payments", &dir.join("../../examples/payments"), labels).unwrap()
}

#[test]
fn every_method_fills_the_same_exact_budget() {
    let project = payments();
    for encoding in [Encoding::Cl100k, Encoding::O200k] {
        for budget in [700, 2000, 3500] {
            let bm25 = project.bm25("CHECKOUT-01", encoding, budget);
            let dump = project.dump(encoding, budget);
            for (name, outcome) in [("bm25", &bm25), ("dump", &dump)] {
                assert!(outcome.used <= budget, "{name} {budget}: {}", outcome.used);
                assert!(
                    outcome.used * 100 >= budget * 95,
                    "{name} {budget}: only {}",
                    outcome.used
                );
            }
            // BM25 with the target's own text as the query finds the target first.
            assert!(bm25.shown.contains_key("CHECKOUT-01"));
            // The dump is in path order: README.md and specgraph/graph.json (about 2,100
            // tokens together) come before any node file.
            assert_eq!(dump.shown.is_empty(), budget <= 2000, "{:?}", dump.shown);
        }
    }
}

#[test]
fn brief_keeps_every_hard_constraint_of_the_payments_behaviors() {
    let project = payments();
    let mut report = Report::default();
    measure(&project, &mut report, &[1000, 2000]).unwrap();
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    assert!(report.fits_at_meta > 0);
    assert_eq!(
        report.metric(None, Method::Brief, None, 2000, |s| s.hard_recall),
        Some(1.0)
    );
    // Rows: 8 targets × 2 encodings × 2 budgets × 3 methods.
    assert_eq!(report.rows.len(), 8 * 2 * 2 * 3);
    assert!(report.rows.iter().all(|r| r.used <= r.budget));
}

#[test]
fn every_table_row_has_as_many_cells_as_its_header() {
    let project = payments();
    let mut report = Report::default();
    report.projects.push((
        "payments".into(),
        "Spec Graph".into(),
        project.labels.targets.len(),
        "hand".into(),
    ));
    measure(&project, &mut report, &[2000]).unwrap();
    let markdown = report.markdown(&[2000]);
    let mut tables = 0;
    for table in markdown.split("\n\n") {
        let rows: Vec<&str> = table.lines().filter(|l| l.starts_with('|')).collect();
        let Some(header) = rows.first() else {
            continue;
        };
        tables += 1;
        let cells = header.matches('|').count();
        for row in &rows {
            assert_eq!(row.matches('|').count(), cells, "{row}\nin\n{table}");
        }
        // A header, its rule and at least one row.
        assert!(rows.len() >= 3, "{table}");
    }
    assert_eq!(tables, 3, "{markdown}");
    assert!(markdown.contains("At 2,000 tokens brief keeps 100 % of hard constraints"));
}
