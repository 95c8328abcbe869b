//! The Markdown knowledge base through the binary, with no `brief.toml`: the context of a
//! chosen decision on every fixture (within budget, exact against tiktoken-rs, the same bytes
//! twice), a superseded ADR's banner, and a topic in the mixed project drawing on every
//! source. Fixtures: `tests/fixtures/kb/<name>/repo` (copied: contexts write an index).

use crate::common::{copy_fixture, hit_ids, node_ids, run};
use serde_json::Value;

const KB: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/kb");

fn oracle(text: &str) -> usize {
    tiktoken_rs::cl100k_base()
        .unwrap()
        .encode_ordinary(text)
        .len()
}

#[track_caller]
fn brief(args: &[&str]) -> String {
    let (code, stdout, stderr) = run(args);
    assert_eq!(code, 0, "brief {args:?}: {stderr}");
    stdout
}

fn audit(root: &str, target: &str, budget: &str) -> Value {
    let out = brief(&[
        "context", target, "--root", root, "--budget", budget, "--format", "json",
    ]);
    serde_json::from_str(&out).expect("JSON output")
}

/// A project of the given files (path, text), written here.
fn written(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// A decision per fixture, and a node its context must hold at a generous budget.
const CHOSEN: [(&str, &str, &str); 7] = [
    ("adr-tools", "ADR-0007", "doc/runbooks/carrier-outage.md"),
    ("madr", "ADR-0007", "ADR-0003"),
    (
        "log4brains",
        "docs/adr/20230120-publish-order-events-over-redis-streams.md",
        "docs/adr/20230907-publish-order-events-through-kafka.md",
    ),
    (
        "vault",
        "Concepts/Retry budget.md",
        "Concepts/Backoff and jitter.md",
    ),
    ("docs-repo", "ADR-0002", "docs/policies/retries.md"),
    ("home-assistant-layout", "ADR-0002", "ADR-0009"),
    ("mixed", "ADR-0003", "POL-RETRY-BUDGET-01"),
];

#[test]
fn a_decisions_context_is_within_budget_exact_and_deterministic() {
    for (fixture, target, expected) in CHOSEN {
        let dir = copy_fixture(&format!("{KB}/{fixture}/repo"));
        let root = dir.path().to_str().unwrap();
        let full = audit(root, target, "20000");
        assert_eq!(node_ids(&full)[0], target, "{fixture}");
        assert!(
            node_ids(&full).iter().any(|id| id == expected),
            "{fixture}: {target} reaches {expected}: {:?}",
            node_ids(&full)
        );
        for budget in ["300", "700", "1500", "4000"] {
            let json = audit(root, target, budget);
            let document = json["document"].as_str().unwrap();
            let used = json["budget"]["used"].as_u64().unwrap() as usize;
            assert!(
                used <= budget.parse().unwrap(),
                "{fixture} {budget}: {used}"
            );
            assert_eq!(used, oracle(document), "{fixture} {budget}");
            let again = audit(root, target, budget);
            assert_eq!(
                json, again,
                "{fixture} {budget}: the same request, the same bytes"
            );
        }
    }
}

#[test]
fn a_superseded_adrs_context_says_so() {
    for (fixture, target, successor) in [
        ("adr-tools", "ADR-0006", "ADR-0009"),
        ("madr", "ADR-0002", "ADR-0005"),
        ("home-assistant-layout", "ADR-0002", "ADR-0009"),
    ] {
        let dir = copy_fixture(&format!("{KB}/{fixture}/repo"));
        let root = dir.path().to_str().unwrap();
        let document = brief(&["context", target, "--root", root, "--budget", "2000"]);
        assert!(
            document.contains(&format!("{target} is superseded by **{successor}**")),
            "{fixture}: {document}"
        );
    }
}

#[test]
fn a_retired_record_a_context_reaches_is_shown_by_its_line_alone() {
    let dir = copy_fixture(&format!("{KB}/adr-tools/repo"));
    // A new record that links to the superseded ADR-0006 as background.
    std::fs::write(
        dir.path()
            .join("doc/adr/0011-expire-label-objects-after-a-year.md"),
        "# 11. Expire label objects after a year\n\nDate: 2026-05-02\n\n## Status\n\n\
         Accepted\n\n## Context\n\nLabels once lived in the database \
         ([ADR 6](0006-store-labels-as-postgresql-large-objects.md)).\n\n\
         ## Decision\n\nObject storage expires label objects after 365 days.\n",
    )
    .unwrap();
    let root = dir.path().to_str().unwrap();
    // At every budget, the whole context's too, the old record is a line that says it is
    // superseded, never its old reasoning; as the target it keeps its text.
    for budget in ["1500", "3000", "100000"] {
        let v = audit(root, "ADR-0011", budget);
        let old = v["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["id"] == "ADR-0006")
            .unwrap_or_else(|| panic!("{budget}: ADR-0006 is named: {v}"));
        assert_eq!(old["detail"], "meta", "{budget}: {old}");
        let document = brief(&["context", "ADR-0011", "--root", root, "--budget", budget]);
        let line = document
            .lines()
            .find(|l| l.starts_with("- **ADR-0006**"))
            .unwrap_or_else(|| panic!("{budget}: {document}"));
        assert!(line.contains("status: superseded"), "{line}");
    }
    let v = audit(root, "ADR-0006", "100000");
    assert_eq!(v["nodes"][0]["id"], "ADR-0006");
    assert_eq!(v["nodes"][0]["detail"], "full");
}

#[test]
fn a_topic_in_the_mixed_project_draws_on_every_source() {
    let dir = copy_fixture(&format!("{KB}/mixed/repo"));
    let root = dir.path().to_str().unwrap();
    // The topic's five best hits start the context (one seed would start from the policy
    // alone).
    let out = brief(&[
        "context",
        "retry budget",
        "--root",
        root,
        "--seeds",
        "5",
        "--budget",
        "6000",
        "--format",
        "json",
    ]);
    let json: Value = serde_json::from_str(&out).unwrap();
    let ids = node_ids(&json);
    assert!(
        ids.iter().any(|id| id == "POL-RETRY-BUDGET-01"),
        "Spec Graph: {ids:?}"
    );
    assert!(
        ids.iter()
            .any(|id| ["SPEC-RETRY-001", "DEC-RETRY-001", "NORM-RETRY-001"].contains(&id.as_str())),
        "Contextia: {ids:?}"
    );
    assert!(ids.iter().any(|id| id == "ADR-0003"), "ADRs: {ids:?}");
}

#[test]
fn retry_budget_works_with_no_configuration() {
    for (fixture, first) in [
        ("adr-tools", "ADR-0007"),
        ("vault", "Concepts/Retry budget.md"),
        ("docs-repo", "docs/policies/retries.md"),
    ] {
        let dir = copy_fixture(&format!("{KB}/{fixture}/repo"));
        let root = dir.path().to_str().unwrap();
        let json = audit(root, "retry budget", "4000");
        let ids = node_ids(&json);
        assert!(ids.iter().any(|id| id == first), "{fixture}: {ids:?}");
    }
}

#[test]
fn check_reports_knowledge_base_problems_with_positions() {
    let dir = copy_fixture(&format!("{KB}/superseded-by-missing/repo"));
    let root = dir.path().to_str().unwrap();
    let out = checked(root);
    assert!(
        out.contains("doc/adr/0002-schedule-tasks-with-a-crontab-inside-the-container.md:7:15: warning[adr-superseded-by-missing]"),
        "{out}"
    );
    // Two records sharing a number are no error: both are named by their paths.
    let dir = copy_fixture(&format!("{KB}/duplicate-adr-number/repo"));
    let root = dir.path().to_str().unwrap();
    let (code, stdout, stderr) = run(&["check", "--root", root]);
    let out = format!("{stdout}{stderr}");
    assert!(!out.contains("duplicate id"), "{out}");
    let _ = code;
    let (code, _, stderr) = run(&[
        "context",
        "doc/adr/0004-run-jobs-in-firecracker-microvms.md",
        "--root",
        root,
    ]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn init_prints_writes_and_never_replaces_the_configuration_discovery_uses() {
    let dir = copy_fixture(&format!("{KB}/mixed/repo"));
    let root = dir.path().to_str().unwrap();
    let proposed = brief(&["init", "--root", root]);
    for line in [
        "#   Spec Graph: specgraph/graph.json",
        "#   Contextia: .contextia/",
        "#   ADRs: docs/adr/ (a conventional folder)",
        "specgraph = \"specgraph/graph.json\"",
        "contextia = \".contextia\"",
        "markdown = true",
    ] {
        assert!(
            proposed.lines().any(|l| l == line),
            "{line:?} in\n{proposed}"
        );
    }
    assert!(
        !dir.path().join("brief.toml").exists(),
        "printing writes nothing"
    );
    let before = brief(&["context", "ADR-0003", "--root", root, "--budget", "3000"]);
    let wrote = brief(&["init", "--write", "--root", root]);
    assert!(wrote.starts_with("wrote "), "{wrote}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("brief.toml")).unwrap(),
        proposed
    );
    // The written configuration names the sources discovery found: the same context.
    let after = brief(&["context", "ADR-0003", "--root", root, "--budget", "3000"]);
    assert_eq!(before, after);
    let (code, _, stderr) = run(&["init", "--write", "--root", root]);
    assert_eq!(code, 2);
    assert!(stderr.contains("already exists"), "{stderr}");

    let dir = copy_fixture(&format!("{KB}/docs-repo/repo"));
    let root = dir.path().to_str().unwrap();
    let proposed = brief(&["init", "--root", root]);
    assert!(
        proposed.contains("agent instruction files: .cursor/rules/project.mdc")
            && proposed.contains("AGENTS.md, CLAUDE.md, src/providers/AGENTS.md"),
        "{proposed}"
    );
}

/// Notes link densely, so following links to the end selects most of a vault (a generated
/// 10,000-note vault: 9,484 nodes for one ADR). A knowledge-base target follows links two hops
/// by default, like a Spec Graph target; `--depth full` still follows them to the end.
#[test]
fn a_knowledge_base_target_follows_links_two_hops_by_default() {
    let dir = copy_fixture(&format!("{KB}/vault/repo"));
    let chain = dir.path().join("Chain");
    std::fs::create_dir(&chain).unwrap();
    for (note, next) in [("A", "B"), ("B", "C"), ("C", "D"), ("D", "E")] {
        std::fs::write(
            chain.join(format!("{note}.md")),
            format!("# {note}\n\nSee [[{next}]] for the next step.\n"),
        )
        .unwrap();
    }
    std::fs::write(chain.join("E.md"), "# E\n\nThe end of the chain.\n").unwrap();
    let root = dir.path().to_str().unwrap();
    let ids = node_ids(&audit(root, "Chain/A.md", "100000"));
    for near in ["Chain/A.md", "Chain/B.md", "Chain/C.md"] {
        assert!(ids.iter().any(|id| id == near), "{near} missing: {ids:?}");
    }
    assert!(!ids.iter().any(|id| id == "Chain/D.md"), "{ids:?}");
    let out = brief(&[
        "context",
        "Chain/A.md",
        "--root",
        root,
        "--depth",
        "full",
        "--format",
        "json",
    ]);
    let ids = node_ids(&serde_json::from_str(&out).unwrap());
    assert!(ids.iter().any(|id| id == "Chain/E.md"), "{ids:?}");
}

/// `brief check` on a repository's real shapes: a link to a template brief skips on purpose
/// and links to generated files `.gitignore` lists are not broken, a test fixture's example
/// link is not checked, the repository's own URLs are links; the one truly broken link is
/// reported where it is written.
#[test]
fn check_reports_only_true_knowledge_base_findings() {
    let dir = copy_fixture(&format!("{KB}/markdown-details/repo"));
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    std::fs::write(
        dir.path().join(".git/config"),
        "[remote \"origin\"]\n\turl = https://github.com/acme/shipyard.git\n",
    )
    .unwrap();
    let root = dir.path().to_str().unwrap();
    let (code, stdout, _) = run(&["check", "--root", root]);
    let findings: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains(": warning["))
        .collect();
    assert_eq!(
        findings,
        vec![format!("{root}/docs/guides/runners.md:4:31: warning[md-broken-link]: broken link caching.md: no such file")],
        "{stdout}"
    );
    assert_eq!(code, 0, "warnings pass without --strict");
}

/// An unknown status word is a warning at the word; `--strict` makes warnings fail, and with
/// a baseline only new findings do: what CI runs.
#[test]
fn strict_check_with_a_baseline_fails_only_on_new_findings() {
    let dir = copy_fixture(&format!("{KB}/status-forms/repo"));
    let root = dir.path().to_str().unwrap();
    let (code, stdout, _) = run(&["check", "--root", root]);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("docs/adr/0010-round-half-to-even.md:7:1: warning[unknown-status]: unknown status `frobnicated`"),
        "{stdout}"
    );
    let (code, stdout, _) = run(&["check", "--root", root, "--strict"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("--strict: warnings fail the check"),
        "{stdout}"
    );
    let baseline = dir.path().join("baseline.json");
    let baseline = baseline.to_str().unwrap();
    let (code, _, stderr) = run(&["check", "--root", root, "--write-baseline", baseline]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, _) = run(&["check", "--root", root, "--strict", "--baseline", baseline]);
    assert_eq!(code, 0, "nothing new: {stdout}");
    let adr = dir.path().join("docs/adr/0003-cache-balances-in-redis.md");
    let text = std::fs::read_to_string(&adr).unwrap();
    std::fs::write(
        &adr,
        format!("{text}\nSee [the runbook](../runbooks/cache.md).\n"),
    )
    .unwrap();
    let (code, stdout, _) = run(&["check", "--root", root, "--strict", "--baseline", baseline]);
    assert_eq!(code, 1, "a new broken link fails: {stdout}");
    assert!(stdout.contains("warning[md-broken-link]"), "{stdout}");
}

/// A page split into sections keeps its own context: its sections, reached through other
/// pages' links to its headings, are not shown beside it (its text holds theirs), so the
/// context by id is the page and what it links, as before it had sections.
#[test]
fn a_pages_context_by_id_is_unchanged_by_its_sections() {
    let dir = copy_fixture(&format!("{KB}/markdown-details/repo"));
    let root = dir.path().to_str().unwrap();
    let json = audit(root, "docs/storage.md", "100000");
    let ids = node_ids(&json);
    // What the page links (related material the budget leaves room for follows it).
    assert_eq!(
        ids[..5],
        [
            "docs/storage.md",
            "docs/guides/runners.md",
            "notes/Guides/Escalation.md",
            "notes/Guides/Runbook.md",
            "notes/Home.md",
        ]
    );
    assert!(!ids.iter().any(|id| id.contains('#')), "{ids:?}");
    let document = brief(&[
        "context",
        "docs/storage.md",
        "--root",
        root,
        "--budget",
        "3000",
    ]);
    insta::assert_snapshot!("storage_page_context", document);
    // A section is a target of its own, its page its namespace.
    let json = audit(root, "docs/storage.md#cache-directory", "100000");
    let ids = node_ids(&json);
    assert_eq!(ids[0], "docs/storage.md#cache-directory");
    assert!(ids.iter().any(|id| id == "docs/storage.md"), "{ids:?}");
}

/// An arc42 project whose ADRs and architecture page are AsciiDoc, written here.
fn asciidoc_project() -> tempfile::TempDir {
    written(&[
        (
            "docs/adr/0001-record-architecture-decisions.adoc",
            "= 1. Record architecture decisions\n:status: Accepted\n:date: 2024-02-01\n\n\
             == Context\n\nWe need to record the architectural decisions made on this project.\n\n\
             == Decision\n\nWe will use Architecture Decision Records, as described by Michael Nygard.\n",
        ),
        (
            "docs/adr/0002-store-orders-in-postgresql.adoc",
            "= 2. Store orders in PostgreSQL\n\n== Status\n\n\
             Superseded by xref:0003-store-orders-in-cockroachdb.adoc[ADR 3]\n\n\
             == Context\n\nOrders need transactions across the order and payment tables.\n\n\
             [source,sql]\n----\n== not a section\nSELECT 1;\n----\n\n\
             == Decision\n\nWe store orders in PostgreSQL 15 with one schema per service.\n",
        ),
        (
            "docs/adr/0003-store-orders-in-cockroachdb.adoc",
            "= 3. Store orders in CockroachDB\n:status: accepted\n\n== Context\n\n\
             The order service now runs in three regions; see <<decision>>.\n\n\
             [[decision]]\n== Decision\n\nWe move the orders to CockroachDB, \
             which speaks the PostgreSQL protocol.\n",
        ),
        (
            "docs/arc42/index.adoc",
            "= Order service architecture\n\n== Solution strategy\n\n\
             Read xref:../adr/0002-store-orders-in-postgresql.adoc[the first storage decision] \
             and xref:quality-scenarios.adoc[the quality scenarios].\n",
        ),
    ])
}

#[test]
fn asciidoc_adrs_give_their_status_banner_and_links() {
    let dir = asciidoc_project();
    let root = dir.path().to_str().unwrap();
    let json = audit(root, "ADR-0002", "4000");
    let document = json["document"].as_str().unwrap();
    assert!(
        document.contains("ADR-0002 is superseded by **ADR-0003**"),
        "{document}"
    );
    let ids = node_ids(&json);
    assert_eq!(ids[0], "ADR-0002");
    for linked in ["ADR-0003", "docs/arc42/index.adoc"] {
        assert!(ids.iter().any(|id| id == linked), "{linked} in {ids:?}");
    }
    assert!(
        document.contains("SELECT 1;"),
        "a listing is code: {document}"
    );
    // The `:status:` attribute, and the title without the ADR's number.
    let document = brief(&["context", "ADR-0003", "--root", root]);
    assert!(
        document
            .contains("### ADR-0003: Store orders in CockroachDB\n_decision · status: accepted"),
        "{document}"
    );
}

#[test]
fn check_reports_a_broken_xref_at_its_asciidoc_position() {
    let dir = asciidoc_project();
    let root = dir.path().to_str().unwrap();
    let out = checked(root);
    // Column 87: where `xref:` stands in the AsciiDoc line (the Markdown reading of the
    // line before it is shorter).
    assert!(
        out.contains("docs/arc42/index.adoc:5:87: warning[md-broken-link]"),
        "{out}"
    );
    assert!(
        !out.contains("0003-store-orders-in-cockroachdb.adoc:"),
        "{out}"
    );
}

/// An Antora component (`docs/antora.yml`, `docs/modules/<module>/pages/`), written here:
/// its cross references name pages by their path in the module's `pages/` folder, or in
/// another module as `module:path`, wherever the page that refers stands.
fn antora_project() -> tempfile::TempDir {
    written(&[
        ("docs/antora.yml", "name: mail\nversion: ~\nnav:\n- modules/concepts/nav.adoc\n"),
        (
            "docs/modules/concepts/nav.adoc",
            "* xref:index.adoc[Concepts]\n** xref:protocols/smtp.adoc[SMTP]\n",
        ),
        (
            "docs/modules/concepts/pages/index.adoc",
            "= Concepts\n\nStart with xref:protocols/smtp.adoc[SMTP] and xref:ROOT:index.adoc[the home page].\n",
        ),
        (
            "docs/modules/concepts/pages/protocols/smtp.adoc",
            "= SMTP\n\nMessages are handed over as in xref:messages/mime.adoc#_parts[MIME]; \
             compare xref:./lmtp.adoc[LMTP] and <<protocols/lmtp.adoc#_delivery,delivery>>.\n\n\
             [#_rfc]\n== RFC\n\nSee xref:other-component:ROOT:page.adoc[elsewhere].\n",
        ),
        (
            "docs/modules/concepts/pages/protocols/lmtp.adoc",
            "= LMTP\n\n== Delivery\n\nLocal delivery, back in xref:index.adoc[the concepts].\n",
        ),
        (
            "docs/modules/concepts/pages/messages/mime.adoc",
            "= MIME\n\n== Parts\n\nA message has parts.\n",
        ),
        (
            "docs/modules/ROOT/pages/index.adoc",
            "= Mail server\n\nRead xref:concepts:protocols/smtp.adoc[how mail moves].\n",
        ),
    ])
}

#[test]
fn antora_cross_references_resolve_from_the_modules_pages() {
    let dir = antora_project();
    let root = dir.path().to_str().unwrap();
    let (code, stdout, stderr) = run(&["check", "--root", root]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(!stdout.contains("md-broken-link"), "{stdout}");
    let smtp = "docs/modules/concepts/pages/protocols/smtp.adoc";
    let json = audit(root, smtp, "100000");
    let ids = node_ids(&json);
    for linked in [
        "docs/modules/concepts/pages/messages/mime.adoc",
        "docs/modules/concepts/pages/protocols/lmtp.adoc",
        // Backlinks: the module's index, the navigation and the other module's page.
        "docs/modules/concepts/pages/index.adoc",
        "docs/modules/ROOT/pages/index.adoc",
    ] {
        assert!(ids.iter().any(|id| id == linked), "{linked} in {ids:?}");
    }
}

/// A decision record's summary is its decision; a text cut to fill the budget replaces it
/// only when the cut still holds that decision. A record whose context runs long would
/// otherwise lose what it decided to the opening of its context.
#[test]
fn a_cut_record_never_says_less_than_its_summary() {
    let context: String = (1..=14)
        .map(|n| format!("Background point {n}: the login service restarts often and users complain about being signed out. "))
        .collect();
    let adr = format!(
        "# 1. Keep sessions in Redis\n\n## Status\n\nAccepted\n\n## Context\n\n{context}\n\n\
         ## Decision\n\nWe keep login sessions in Redis with a thirty-day expiry.\n\n\
         ## Consequences\n\nRedis becomes part of every deployment.\n"
    );
    let dir = written(&[("docs/adr/0001-keep-sessions-in-redis.md", &adr)]);
    let root = dir.path().to_str().unwrap();
    for format in ["markdown", "text", "xml"] {
        let (mut with_text, mut cut) = (0, 0);
        for budget in (120..=700).step_by(20) {
            let budget = budget.to_string();
            let document = brief(&[
                "context", "ADR-0001", "--root", root, "--budget", &budget, "--format", format,
            ]);
            cut += usize::from(document.contains("cut to fit"));
            if document.contains("Background point 1:") || document.contains("thirty-day") {
                with_text += 1;
                assert!(
                    document.contains("We keep login sessions in Redis"),
                    "{format} at {budget} tokens lost the decision:\n{document}"
                );
            }
        }
        assert!(
            with_text > 10,
            "{format}: shown with text at {with_text} budgets"
        );
        assert!(cut > 3, "{format}: cut at {cut} budgets");
    }
}

/// A record that links to the target but was reverted joins its related material last, by
/// its line: that the method it described is no longer supported is worth knowing, its old
/// text is not.
#[test]
fn a_retired_record_linking_to_the_target_joins_last_by_its_line() {
    let dir = written(&[
        (
            "docs/adr/0001-define-supported-installation-methods.md",
            "# 1. Define supported installation methods\n\n## Status\n\nAccepted\n\n\
             ## Decision\n\nA supported method is tested and documented by the maintainers.\n",
        ),
        (
            "docs/adr/0002-install-from-a-virtualenv.md",
            "# 2. Install from a virtualenv\n\n## Status\n\n\
             Reverted by [discussion 12](https://example.org/discussions/12).\n\n\
             The virtualenv method is no longer supported; use the container image.\n\n\
             ## Decision\n\nRunning from a virtualenv is a supported method as defined in \
             [ADR-0001](0001-define-supported-installation-methods.md).\n",
        ),
        (
            "docs/adr/0003-install-from-the-container-image.md",
            "# 3. Install from the container image\n\n## Status\n\nAccepted\n\n\
             ## Decision\n\nThe container image is a supported method as defined in \
             [ADR-0001](0001-define-supported-installation-methods.md).\n",
        ),
    ]);
    let root = dir.path().to_str().unwrap();
    let json = audit(root, "ADR-0001", "4000");
    let nodes = json["nodes"].as_array().unwrap();
    let ids = node_ids(&json);
    assert_eq!(ids, ["ADR-0001", "ADR-0003", "ADR-0002"], "{json}");
    let reverted = &nodes[2];
    assert_eq!(reverted["detail"], "meta", "{reverted}");
    assert_eq!(reverted["retired"], "withdrawn", "{reverted}");
    let document = json["document"].as_str().unwrap();
    // Its line says what its status section says.
    assert!(
        document.contains(
            "status: reverted (The virtualenv method is no longer supported; use the \
             container image.)"
        ),
        "{document}"
    );
    assert!(
        !document.contains("Running from a virtualenv"),
        "{document}"
    );
}

/// Run from inside an Antora component, brief walks up to the repository (its ADRs, its
/// agent files), not to the component's folder; a component in a folder of its own name
/// (`session-docs/antora.yml`, as Spring projects keep theirs) is found without `brief.toml`.
#[test]
fn an_antora_component_is_found_from_the_repository_root() {
    let dir = written(&[
        (".adr-dir", "doc/adr\n"),
        (
            "doc/adr/0001-keep-sessions-in-redis.md",
            "# 1. Keep sessions in Redis\n\n## Status\n\nAccepted\n\n## Decision\n\n\
             Sessions live in Redis.\n",
        ),
        ("session-docs/antora.yml", "name: session\nversion: ~\n"),
        (
            "session-docs/modules/ROOT/pages/index.adoc",
            "= Sessions\n\nSee xref:guides/redis.adoc[the Redis guide].\n",
        ),
        (
            "session-docs/modules/ROOT/pages/guides/redis.adoc",
            "= Redis guide\n\nConfigure the session store in Redis.\n",
        ),
    ]);
    let inside = dir.path().join("session-docs/modules/ROOT/pages/guides");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_brief"))
        .args(["search", "session store Redis", "--format", "json"])
        .current_dir(&inside)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let found = hit_ids(&stdout);
    let ids: Vec<&str> = found.iter().map(String::as_str).collect();
    assert!(
        ids.contains(&"ADR-0001"),
        "the repository's records: {ids:?}"
    );
    assert!(
        ids.contains(&"session-docs/modules/ROOT/pages/guides/redis.adoc"),
        "the component's pages, by their path from the repository: {ids:?}"
    );
}

/// A Docusaurus site whose pages are MDX, written here: its ES module lines, components and
/// admonition fences are not text, its links between `.mdx` pages are links, and `check`
/// names a broken one at the page's own line.
fn mdx_project() -> tempfile::TempDir {
    written(&[
        (
            "AGENTS.md",
            "# Agents\n\nRun `npm test` before every commit.\n",
        ),
        (
            "website/docs/install.mdx",
            "---\ndescription: Install the CLI\n---\nimport Tabs from '@theme/Tabs';\nimport TabItem from '@theme/TabItem';\n\n# Install the CLI\n\n<Tabs groupId=\"os\">\n<TabItem value=\"deb\" label=\"Debian\">\n\nAdd the signing key to the keyring, then install the package.\n\n</TabItem>\n</Tabs>\n\n:::warning\nNever skip the signing key.\n:::\n\nThen read [state encryption](./encryption.mdx) and [the missing page](./gone.mdx).\n",
        ),
        (
            "website/docs/encryption.mdx",
            "# State encryption\n\n{/* Keep in step with the RFC. */}\nThe key provider can run an external program that prints the key.\n",
        ),
        (
            "website/docs/index.mdx",
            "import DocCardList from '@theme/DocCardList';\n\n# Documentation\n\n<DocCardList />\n",
        ),
    ])
}

#[test]
fn mdx_pages_are_read_as_their_markdown() {
    let dir = mdx_project();
    let root = dir.path().to_str().unwrap();
    let json = audit(
        root,
        "encrypt the state with a key an external program prints",
        "2000",
    );
    let ids = node_ids(&json);
    assert_eq!(ids[0], "website/docs/encryption.mdx", "{ids:?}");
    let document = brief(&["show", "website/docs/install.mdx", "--root", root]);
    assert!(document.contains("Add the signing key"), "{document}");
    assert!(
        document.contains("Never skip the signing key."),
        "{document}"
    );
    assert_none_in(&document, &["import Tabs", "<TabItem", ":::"]);
    assert!(
        document.contains("website/docs/encryption.mdx"),
        "{document}"
    );
    let out = checked(root);
    assert!(
        out.contains("website/docs/install.mdx:21:52: warning[md-broken-link]"),
        "a broken link at the page's own line: {out}"
    );
}

/// A Mintlify site keeps its pages at the root beside its `docs.json`, its English there and
/// each translation in a language folder of the same paths (`fr/customize/domain.mdx` beside
/// `customize/domain.mdx`): the pages are read, and the copies are no start and no related
/// material of an English task.
#[test]
fn a_mintlify_site_at_the_root_is_read_and_its_copies_stay_out() {
    // Pages on other topics, so that the task's words are rare in the site.
    let topics = [
        "Analytics",
        "Themes",
        "Search",
        "Navigation",
        "Snippets",
        "Webhooks",
    ];
    let others: Vec<(String, String)> = topics
        .iter()
        .map(|t| {
            let file = format!("guides/{}.mdx", t.to_lowercase());
            (file, format!("# {t}\n\nHow {t} works on the site.\n"))
        })
        .collect();
    let mut files: Vec<(&str, &str)> = others
        .iter()
        .map(|(f, t)| (f.as_str(), t.as_str()))
        .collect();
    files.extend([
        ("docs.json", "{\"name\": \"Docs\"}\n"),
        (
            "customize/custom-domain.mdx",
            "---\ntitle: Custom domain\n---\n\n## Add your custom domain\n\nPoint a CNAME record for the custom domain at the site.\n",
        ),
        (
            "fr/customize/custom-domain.mdx",
            "---\ntitle: Domaine personnalisé (custom domain)\n---\n\n## Ajoutez votre custom domain\n\nUn CNAME record pour le custom domain.\n",
        ),
        (
            "deploy/dns.mdx",
            "# DNS\n\nA CNAME record maps a custom domain to the site.\n",
        ),
        ("quickstart.mdx", "# Quickstart\n\nInstall the CLI.\n"),
    ]);
    let dir = written(&files);
    let root = dir.path().to_str().unwrap();
    let json = audit(root, "add a custom domain with a CNAME record", "4000");
    let ids = node_ids(&json);
    assert!(ids[0].starts_with("customize/custom-domain.mdx"), "{ids:?}");
    assert!(ids.iter().any(|id| id == "deploy/dns.mdx"), "{ids:?}");
    assert!(!ids.iter().any(|id| id.starts_with("fr/")), "{ids:?}");
}

/// A Python project documented with Sphinx, its ADRs in reStructuredText as Open edX projects
/// keep them, written here: titles by their adornments, `Status` sections, a superseded
/// record, a toctree and `:doc:` links between pages, a code block and a broken link.
fn rst_project() -> tempfile::TempDir {
    written(&[
        (
            "docs/decisions/0001-keep-sessions-in-memory.rst",
            "Keep sessions in memory\n-----------------------\n\nStatus\n------\n\n\
             Superseded by 0002\n\nContext\n-------\n\nOne process serves every request.\n\n\
             Decision\n--------\n\nSessions live in the process's memory.\n",
        ),
        (
            "docs/decisions/0002-store-sessions-in-postgres.rst",
            "Store sessions in PostgreSQL\n----------------------------\n\nStatus\n------\n\n\
             Accepted\n\nContext\n-------\n\nSeveral workers serve requests, and a restart \
             must not sign users out.\n\nDecision\n--------\n\nSessions are rows of the \
             ``sessions`` table, read through :doc:`../sessions`.\n",
        ),
        (
            "docs/index.rst",
            "=============\nExample guide\n=============\n\n.. toctree::\n   :maxdepth: 2\n\n   \
             sessions\n   Decisions <decisions/0002-store-sessions-in-postgres>\n",
        ),
        (
            "docs/sessions.rst",
            ".. _sessions:\n\nSessions\n========\n\nHow a signed-in user stays signed in across \
             workers and restarts.\n\n.. code-block:: python\n   :linenos:\n\n   # not a \
             heading\n   store = SessionStore()\n\n.. note:: Rotate the signing key yearly.\n\n\
             See :doc:`expiry` for how long a session lasts.\n",
        ),
    ])
}

#[test]
fn rst_pages_are_read_as_their_markdown() {
    let dir = rst_project();
    let root = dir.path().to_str().unwrap();
    let json = audit(
        root,
        "store sessions so that restarting a worker does not sign users out",
        "2000",
    );
    let ids = node_ids(&json);
    assert_eq!(ids[0], "ADR-0002", "the current record starts: {ids:?}");
    let old = brief(&["show", "ADR-0001", "--root", root]);
    assert!(old.contains("superseded"), "{old}");
    let page = brief(&["show", "docs/sessions.rst", "--root", root]);
    assert!(
        page.contains("Note: Rotate the signing key yearly."),
        "{page}"
    );
    assert!(page.contains("# not a heading"), "code stays code: {page}");
    assert_none_in(
        &page,
        &[".. code-block", ":linenos:", ":doc:", ".. _sessions"],
    );
    let index = brief(&["show", "docs/index.rst", "--root", root, "--format", "json"]);
    assert!(index.contains("Example guide"), "{index}");
    let out = checked(root);
    assert!(
        out.contains("docs/sessions.rst:16:5: warning[md-broken-link]"),
        "the broken `:doc:` at the page's own line and column: {out}"
    );
    assert!(
        !out.contains("docs/index.rst"),
        "the toctree's links resolve: {out}"
    );
}

/// A page of the knowledge named by its path is that page: `context` starts from it (then
/// what governs the file), `show` shows it. A file of several nodes of its own stays a file
/// that things govern.
#[test]
fn a_page_named_by_its_path_is_the_page() {
    let dir = written(&[
        ("AGENTS.md", "# Agents\n\nKeep records short.\n"),
        (
            "doc/adr/0001-record-architecture-decisions.md",
            "# 1. Record architecture decisions\n\nStatus: Accepted\n\nWe record them.\n",
        ),
        (
            "doc/adr/0002-implement-as-shell-scripts.md",
            "# 2. Implement as shell scripts\n\nStatus: Accepted\n\n## Context\n\nPortable.\n\n\
             ## Decision\n\nPOSIX shell only.\n",
        ),
        (
            "README.md",
            "# Tools\n\nSee [the records](doc/adr/0002-implement-as-shell-scripts.md).\n",
        ),
    ]);
    let root = dir.path().to_str().unwrap();
    for path in [
        "doc/adr/0002-implement-as-shell-scripts.md",
        "./doc/adr/../adr/0002-implement-as-shell-scripts.md",
    ] {
        let json = audit(root, path, "2000");
        let seeds: Vec<&str> = json["seeds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap_or_else(|| s.as_str().unwrap()))
            .collect();
        assert_eq!(seeds[0], "ADR-0002", "{seeds:?}");
        assert!(
            seeds.contains(&"AGENTS.md"),
            "what governs the file too: {seeds:?}"
        );
        let shown = brief(&["show", path, "--root", root]);
        assert!(
            shown.starts_with("### ADR-0002: Implement as shell scripts"),
            "{shown}"
        );
    }
    let document = brief(&[
        "context",
        "doc/adr/0002-implement-as-shell-scripts.md",
        "--root",
        root,
    ]);
    assert!(
        document.contains("Start nodes, the page and what governs it (exact match): ADR-0002"),
        "the header says how the start was found: {document}"
    );
    // An id still means the id.
    let shown = brief(&["show", "README.md", "--root", root]);
    assert!(shown.contains("README.md"), "{shown}");
}

/// A Sphinx project kept as a repository of its own (`conf.py` and `index.rst` at the root,
/// as a guide is), with proposals written as PEPs are (a header block of `Key: value` lines
/// whose `Title` names the page): found without `brief.toml`, from a folder of it too.
#[test]
fn a_sphinx_project_at_the_root_and_pep_headers_are_read() {
    let dir = written(&[
        ("conf.py", "project = 'Guide'\n"),
        (
            "index.rst",
            "Guide\n=====\n\n.. toctree::\n\n   proposals/pep-0042\n   setup/branches\n",
        ),
        (
            "proposals/pep-0042.rst",
            "PEP: 42\nTitle: Freeze the loader's public interface\nAuthor: A. Writer\n\
             Status: Accepted\nCreated: 01-Mar-2024\n\n\nAbstract\n========\n\n\
             The loader's functions keep their signatures across minor releases.\n",
        ),
        (
            "setup/branches.rst",
            "Maintenance branches\n====================\n\nA fix lands on main first, then \
             is backported.\n",
        ),
    ]);
    let root = dir.path().to_str().unwrap();
    let pep = brief(&["show", "proposals/pep-0042.rst", "--root", root]);
    assert!(
        pep.starts_with("### proposals/pep-0042.rst: Freeze the loader's public interface"),
        "the header's title is the page's: {pep}"
    );
    assert!(!pep.contains("A. Writer"), "{pep}");
    let inside = dir.path().join("setup");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_brief"))
        .args([
            "search",
            "backport a fix to a maintenance branch",
            "--format",
            "json",
        ])
        .current_dir(&inside)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(hit_ids(&stdout)[0], "setup/branches.rst", "{stdout}");
}

/// A Sphinx `:ref:` names a label another page defines (`.. _expiry rules:`): it is a link to
/// that page, and stops being one when the label goes (the page that names it is read again).
#[test]
fn a_ref_links_the_page_that_defines_its_label() {
    let dir = written(&[
        (
            "docs/guide.rst",
            "Guide\n=====\n\nRead :ref:`the rules <expiry rules>` before changing timeouts.\n",
        ),
        (
            "docs/expiry.rst",
            ".. _expiry rules:\n\nSession expiry\n==============\n\nSessions last 14 days.\n",
        ),
        ("docs/other.rst", "Other\n=====\n\nNothing here.\n"),
    ]);
    let root = dir.path().to_str().unwrap();
    let linked = |json: &Value| -> bool {
        json["nodes"].as_array().unwrap().iter().any(|n| {
            n["id"] == "docs/expiry.rst"
                && n["reasons"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|r| r["relation"] == "links")
        })
    };
    let json = audit(root, "docs/guide.rst", "4000");
    assert!(linked(&json), "{json}");
    let (_, stdout, stderr) = run(&["check", "--root", root]);
    assert!(
        stdout.contains("0 warnings") || stderr.contains("0 warnings"),
        "{stdout}{stderr}"
    );
    std::fs::write(
        dir.path().join("docs/expiry.rst"),
        "Session expiry\n==============\n\nSessions last 14 days.\n",
    )
    .unwrap();
    let json = audit(root, "docs/guide.rst", "4000");
    assert!(!linked(&json), "the label is gone: {json}");
}

/// What `brief check` prints on both streams for the project at `root`.
fn checked(root: &str) -> String {
    let (_, stdout, stderr) = run(&["check", "--root", root]);
    format!("{stdout}{stderr}")
}

/// Asserts that none of `noise` (a source format's markup) is left in `document`.
fn assert_none_in(document: &str, noise: &[&str]) {
    for noise in noise {
        assert!(!document.contains(noise), "{noise} in {document}");
    }
}

/// Nested agent files, each governing its folder.
fn nested_agent_files() -> tempfile::TempDir {
    written(&[
        ("AGENTS.md", "# Agents\n\nRun the tests before pushing.\n\n## Releases\n\nTag from main.\n\n## Reviews\n\nTwo approvals.\n"),
        ("src/AGENTS.md", "# Source rules\n\nKeep modules small.\n"),
        (
            "src/providers/AGENTS.md",
            "# Provider rules\n\nEach provider owns its client and its base URL.\n",
        ),
        ("src/providers/openai.py", "client = None\n"),
        ("docs/guide.md", "# Guide\n\nHow to call a provider.\n"),
    ])
}

fn seed_ids(json: &Value) -> Vec<String> {
    json["seeds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            s["id"]
                .as_str()
                .unwrap_or_else(|| s.as_str().unwrap())
                .to_string()
        })
        .collect()
}

/// A file starts from what governs it, the nearest scope first: the agent file of its own
/// folder before those of the folders above it. A folder named as the target is governed by
/// its own agent file too, as any file placed in it would be.
#[test]
fn a_file_or_folder_starts_from_its_nearest_agent_file() {
    let dir = nested_agent_files();
    let root = dir.path().to_str().unwrap();
    let everything = ["src/providers/AGENTS.md", "src/AGENTS.md", "AGENTS.md"];
    for target in [
        "src/providers/openai.py",
        "src/providers/anthropic.py",
        "src/providers",
        "src/providers/",
    ] {
        let seeds = seed_ids(&audit(root, target, "2000"));
        assert_eq!(seeds, everything, "{target}: {seeds:?}");
    }
    let seeds = seed_ids(&audit(root, "src/", "2000"));
    assert_eq!(seeds, ["src/AGENTS.md", "AGENTS.md"], "{seeds:?}");
    let json = audit(root, ".", "2000");
    assert_eq!(json["target"], "AGENTS.md", "{json}");
    let document = brief(&["context", "src/providers", "--root", root]);
    assert!(
        document.contains("Start nodes, what governs the folder (exact match)"),
        "{document}"
    );
}

/// A page named with an anchor, as links write it (`AGENTS.md#testing-rules`,
/// `doc/adr/0002-….md#decision`), is that part of the page; an anchor the page has no part
/// of its own for is the whole page (a heading inside it or a part), with a note when no
/// heading has it — never a context of whatever the words of the target find.
#[test]
fn a_page_and_an_anchor_are_that_part_of_the_page_or_the_page() {
    // Long enough to be read by its sections.
    let filler = "Each change is small and reviewed before it is merged. ".repeat(40);
    let agents = format!(
        "# Agents\n\nRules.\n\n## Testing rules\n\nRun them all. {filler}\n\n\
         ### Flaky tests\n\nQuarantine them.\n\n## Releases\n\nTag. {filler}\n"
    );
    let dir = written(&[
        ("AGENTS.md", agents.as_str()),
        (
            "doc/adr/0002-implement-as-shell-scripts.md",
            "# 2. Implement as shell scripts\n\nStatus: Accepted\n\n## Decision\n\nPOSIX shell.\n",
        ),
        (
            "docs/testing.md",
            "# Testing\n\nAgents run the testing suite; testing agents md flaky.\n",
        ),
        (
            "docs/storage.md",
            "Storage\n=======\n\nIntro.\n\nCache directory\n---------------\n\nKept.\n\n\
             ```sh\n# install deps\n```\n",
        ),
    ]);
    let root = dir.path().to_str().unwrap();
    let json = audit(root, "AGENTS.md#testing-rules", "2000");
    assert_eq!(json["target"], "AGENTS.md#testing-rules", "{json}");
    let (code, stdout, stderr) = run(&[
        "context",
        "doc/adr/0002-implement-as-shell-scripts.md#",
        "--root",
        root,
        "--format",
        "json",
    ]);
    assert_eq!(
        (code, stderr.as_str()),
        (0, ""),
        "an empty anchor is the page"
    );
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["target"], "ADR-0002", "{stdout}");
    // A heading inside the page or one of its parts: the page, and nothing to note.
    for (target, page) in [
        ("AGENTS.md#flaky-tests", "AGENTS.md"),
        ("AGENTS.md#Flaky-Tests", "AGENTS.md"),
        (
            "doc/adr/0002-implement-as-shell-scripts.md#decision",
            "ADR-0002",
        ),
        ("ADR-0002#decision", "ADR-0002"),
        ("docs/storage.md#cache-directory", "docs/storage.md"),
        ("AGENTS.md#testing", "AGENTS.md"),
        ("docs/storage.md#install-deps", "docs/storage.md"),
    ] {
        let (code, stdout, stderr) = run(&[
            "context", target, "--root", root, "--budget", "2000", "--format", "json",
        ]);
        assert_eq!(code, 0, "{target}: {stderr}");
        let json: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(json["target"], page, "{target}: {stdout}");
        let gone = target.ends_with("#testing") || target.ends_with("#install-deps");
        assert_eq!(
            stderr.contains(&format!("note: {page} has no heading `#")),
            gone,
            "{target}: {stderr}"
        );
        let (code, shown, stderr) = run(&["show", target, "--root", root, "--format", "json"]);
        assert_eq!(code, 0, "{target}: {stderr}");
        assert!(
            shown.contains(&format!("\"id\": \"{page}\"")),
            "{target}: {shown}"
        );
        assert_eq!(
            stderr.contains(&format!("note: {page} has no heading `#")),
            gone,
            "show {target}: {stderr}"
        );
    }
    let shown = brief(&["show", "AGENTS.md#testing-rules", "--root", root]);
    assert!(shown.contains("Run them all."), "{shown}");
}

/// A folder nothing governs is its own index page or, without one, an error that says what
/// it holds and what to name instead: the words of its path would find any page in it.
#[test]
fn a_folder_nothing_governs_is_its_index_page_or_says_what_it_holds() {
    let dir = written(&[
        (
            "doc/adr/0001-record-architecture-decisions.md",
            "# 1. Record architecture decisions\n\nStatus: Accepted\n\nWe record them.\n",
        ),
        (
            "doc/adr/0002-implement-as-shell-scripts.md",
            "# 2. Implement as shell scripts\n\nStatus: Accepted\n\nPOSIX shell only.\n",
        ),
        ("src/main.sh", "echo hi\n"),
    ]);
    let root = dir.path().to_str().unwrap();
    let (code, stdout, stderr) = run(&["context", "doc/adr", "--root", root]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stderr.contains(
            "nothing governs the folder doc/adr: no rule, agent file, task or spec covers it, \
             no index page of it (README.md, index.md, …) is a page of the knowledge, and it \
             holds 2 nodes of the knowledge (ADR-0001, ADR-0002)"
        ),
        "{stderr}"
    );
    let (code, _, stderr) = run(&["context", "src/", "--root", root]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("it holds no node of the knowledge"),
        "{stderr}"
    );
    // A file's name still says what it is about: it is read as words.
    let (code, _, stderr) = run(&["context", "doc/adr/0003-shell-scripts.md", "--root", root]);
    assert_eq!(code, 0, "{stderr}");
    // A folder with an index page of its own is that page.
    std::fs::write(
        dir.path().join("doc/adr/README.md"),
        "# Decision log\n\nOne record a decision.\n",
    )
    .unwrap();
    let json = audit(root, "doc/adr", "2000");
    assert_eq!(json["target"], "doc/adr/README.md", "{json}");
    // The root is a folder too.
    let (code, _, stderr) = run(&["context", ".", "--root", root]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("nothing governs the project's root folder"),
        "{stderr}"
    );
    std::fs::write(dir.path().join("README.md"), "# Tools\n\nShell tools.\n").unwrap();
    for target in [".", "./", "doc/.."] {
        let json = audit(root, target, "2000");
        assert_eq!(json["target"], "README.md", "{target}: {json}");
    }
}

/// How globs and `paths` reach a file or folder target: a bare word naming a folder stays
/// words; a folder is reached by what reaches any file in it (not by a rule for the files of
/// its parent, `src/*`, nor for one-letter names, `src/providers/?`), and by a spec whose
/// `paths` cover its files; a rule is as near as its deepest matching glob; a folder whose
/// name holds glob characters (Next.js `app/[slug]`) is governed by its own agent file.
#[test]
fn globs_and_paths_reach_a_file_or_folder_as_they_read() {
    let rule =
        |globs: &str| format!("---\nglobs: {globs}\nalwaysApply: false\n---\n# Rule\n\nText.\n");
    let dir = written(&[
        ("src/providers/openai.py", "x = 1\n"),
        ("src/AGENTS.md", "# Source\n\nKeep modules small.\n"),
        (".cursor/rules/top.mdc", &rule("src/*")),
        (".cursor/rules/one-letter.mdc", &rule("src/providers/?")),
        (".cursor/rules/a-prov.mdc", &rule("**/*.py, src/providers/**")),
        (
            ".contextia/system/specs/SPEC-PROV-001.md",
            "---\nid: SPEC-PROV-001\ntitle: Providers\nstatus: approved\npaths:\n  - src/providers/*\n---\n# Providers\n\nOne client each.\n",
        ),
        ("billing/pay.ts", "export {}\n"),
        (
            "doc/adr/0001-billing-retries.md",
            "# 1. Billing retries\n\nStatus: Accepted\n\nBilling retries back off.\n",
        ),
        ("app/AGENTS.md", "# App\n\nServer components first.\n"),
        ("app/[slug]/AGENTS.md", "# Slug pages\n\nValidate the slug.\n"),
        ("app/[slug]/page.tsx", "export {}\n"),
        ("app/s/page.tsx", "export {}\n"),
        (".cursor/rules/mig.mdc", &rule("migrations")),
        ("db/migrations/001.sql", "select 1;\n"),
        (".cursor/rules/brace.mdc", &rule(r"app/\{x\}")),
        ("app/{x}/page.tsx", "export {}\n"),
    ]);
    let root = dir.path().to_str().unwrap();
    let seeds = seed_ids(&audit(root, "src/providers", "2000"));
    assert_eq!(
        seeds,
        ["SPEC-PROV-001", ".cursor/rules/a-prov.mdc", "src/AGENTS.md"],
        "{seeds:?}"
    );
    let seeds = seed_ids(&audit(root, "src/providers/openai.py", "2000"));
    assert_eq!(
        seeds,
        ["SPEC-PROV-001", ".cursor/rules/a-prov.mdc", "src/AGENTS.md"],
        "{seeds:?}"
    );
    let json = audit(root, "billing", "2000");
    assert_eq!(json["target"], "ADR-0001", "a bare word is words: {json}");
    let seeds = seed_ids(&audit(root, "app/[slug]/page.tsx", "2000"));
    assert_eq!(
        seeds,
        ["app/[slug]/AGENTS.md", "app/AGENTS.md"],
        "{seeds:?}"
    );
    let seeds = seed_ids(&audit(root, "app/[slug]", "2000"));
    assert_eq!(
        seeds,
        ["app/[slug]/AGENTS.md", "app/AGENTS.md"],
        "{seeds:?}"
    );
    let seeds = seed_ids(&audit(root, "app/s/page.tsx", "2000"));
    assert_eq!(seeds, ["app/AGENTS.md"], "{seeds:?}");
    // A glob whose last part names the folder reaches it, escaped or anywhere.
    let seeds = seed_ids(&audit(root, "db/migrations/", "2000"));
    assert_eq!(seeds, [".cursor/rules/mig.mdc"], "{seeds:?}");
    let seeds = seed_ids(&audit(root, "app/{x}/", "2000"));
    assert_eq!(
        seeds,
        [".cursor/rules/brace.mdc", "app/AGENTS.md"],
        "{seeds:?}"
    );
}
