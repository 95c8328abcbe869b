//! `brief search`, a query as the context target, `--seeds`, lenses, through the binary.

use crate::common;

use common::{copy_fixture, ids, order, run};
use serde_json::Value;
use std::collections::BTreeSet;

const PAYMENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/payments");
const NOTES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/notes-app");

fn json(args: &[&str]) -> Value {
    let (code, stdout, stderr) = run(args);
    assert_eq!(code, 0, "brief {args:?}: {stderr}");
    serde_json::from_str(&stdout).unwrap()
}

#[test]
fn search_ranks_by_bm25_with_an_exact_id_first() {
    let dir = copy_fixture(PAYMENTS);
    let root = dir.path().to_str().unwrap();
    let hits = json(&["search", "pol-chk-01", "--root", root, "--format", "json"]);
    assert_eq!(hits[0]["id"], "POL-CHK-01");
    let hits = json(&[
        "search",
        "idempotency key",
        "--root",
        root,
        "--format",
        "json",
        "--limit",
        "3",
    ]);
    let hits = hits.as_array().unwrap();
    assert_eq!(hits.len(), 3);
    for hit in hits {
        assert!(hit["id"].is_string() && hit["kind"].is_string() && hit["title"].is_string());
        assert!(hit["score"].as_f64().unwrap() > 0.0);
    }
    let (code, text, _) = run(&["search", "idempotency", "--root", root, "--kind", "policy"]);
    assert_eq!(code, 0);
    assert!(text.lines().all(|l| l.contains("policy")), "{text}");
    let (code, _, stderr) = run(&["search", "xylophone quartz", "--root", root]);
    assert_eq!(code, 1, "nothing matches: exit 1");
    assert!(stderr.contains("no match"));
}

#[test]
fn a_search_that_finds_nothing_says_why() {
    let dir = copy_fixture(PAYMENTS);
    let root = dir.path().to_str().unwrap();
    for (query, kind, why) in [
        ("zzqx xylophones", None, "no node's text has those words"),
        ("the and of it", None, "only common words"),
        (
            "idempotency key",
            Some("design_token"),
            "no node of kind `design_token` matches",
        ),
    ] {
        let mut args = vec!["search", query, "--root", root];
        if let Some(kind) = kind {
            args.extend(["--kind", kind]);
        }
        let (code, stdout, stderr) = run(&args);
        assert_eq!(code, 1, "{query}: {stdout}{stderr}");
        assert!(stdout.is_empty(), "{query}: {stdout}");
        assert!(stderr.contains(why), "{query}: {stderr}");
        assert!(stderr.contains(&format!("`{query}`")), "{query}: {stderr}");
    }
}

#[test]
fn a_query_becomes_the_target() {
    let dir = copy_fixture(NOTES);
    let root = dir.path().to_str().unwrap();
    let by_query = json(&[
        "context",
        "duplicated paragraphs offline replay",
        "--root",
        root,
        "--format",
        "json",
    ]);
    assert_eq!(by_query["query"], "duplicated paragraphs offline replay");
    let target = by_query["target"].as_str().unwrap().to_string();
    assert_eq!(by_query["nodes"][0]["reasons"][0]["relation"], "target");
    // The same context as asking for the best hit by id, apart from the header and query.
    let by_id = json(&["context", &target, "--root", root, "--format", "json"]);
    assert_eq!(ids(&by_query), ids(&by_id));
    // Relevance is part of the score and visible.
    assert!(by_query["nodes"][0]["rank"]["relevance"].as_f64().unwrap() > 0.0);
    assert!(by_query["document"]
        .as_str()
        .unwrap()
        .starts_with("# Context for \"duplicated paragraphs offline replay\""));
}

#[test]
fn seeds_merge_several_hits() {
    let dir = copy_fixture(PAYMENTS);
    let root = dir.path().to_str().unwrap();
    let one = json(&[
        "context", "refund", "--root", root, "--format", "json", "--budget", "100000", "--seeds",
        "1",
    ]);
    let three = json(&[
        "context", "refund", "--root", root, "--format", "json", "--budget", "100000", "--seeds",
        "3",
    ]);
    let targets = |v: &Value| {
        v["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| {
                n["reasons"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|r| r["relation"] == "target")
            })
            .count()
    };
    assert_eq!(targets(&one), 1);
    assert_eq!(targets(&three), 3);
    assert!(ids(&three).is_superset(&ids(&one)));
    // Each node once, smallest distance kept.
    let listed = order(&three);
    assert_eq!(listed.len(), ids(&three).len());
}

#[test]
fn unknown_words_are_still_an_unknown_target() {
    let dir = copy_fixture(PAYMENTS);
    let (code, _, stderr) = run(&[
        "context",
        "CHECKOUT-99",
        "--root",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("CHECKOUT-0"),
        "suggests close ids: {stderr}"
    );
}

#[test]
fn each_lens_changes_the_set_or_the_order() {
    let dir = copy_fixture(PAYMENTS);
    let root = dir.path().to_str().unwrap();
    let base = [
        "context",
        "CHECKOUT-01",
        "--root",
        root,
        "--format",
        "json",
        "--budget",
        "100000",
    ];
    let with = |lens: &str| {
        let mut args = base.to_vec();
        args.extend(["--lens", lens]);
        json(&args)
    };
    let default = json(&base);
    // coding: references and fields, no namespace; decisions boosted.
    let coding = with("coding");
    assert!(ids(&default).contains("CHECKOUT") && !ids(&coding).contains("CHECKOUT"));
    assert!(ids(&coding).contains("DEC-CHK-01"), "references followed");
    let boosted = coding["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == "DEC-CHK-01")
        .unwrap();
    let plain = default["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == "DEC-CHK-01")
        .unwrap();
    assert!(
        boosted["score"].as_f64().unwrap() > plain["score"].as_f64().unwrap(),
        "decision boosted"
    );
    // planning: children and fields, no references: forward dependencies are gone, what
    // constrains the target stays.
    let planning = with("planning");
    assert!(!ids(&planning).contains("CHECKOUT-02") && !ids(&planning).contains("DEC-CHK-01"));
    assert!(ids(&planning).contains("POL-CHK-01") && ids(&planning).contains("DEC-PLAT-01"));
    // writing and meeting-prep: depth capped at 2, no namespace.
    for lens in ["writing", "meeting-prep"] {
        let v = with(lens);
        assert!(!ids(&v).contains("CHECKOUT"), "{lens}");
        assert!(
            !ids(&v).contains("DEC-CHK-03"),
            "{lens}: depth 3 node left out"
        );
    }
    // general: depth 3 and children too.
    let general = with("general");
    assert!(ids(&general).contains("DEC-CHK-03"), "depth 3 reached");
    assert!(ids(&general).is_superset(&ids(&default)));
    let (code, _, stderr) = run(&["context", "CHECKOUT-01", "--root", root, "--lens", "nope"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown lens") && stderr.contains("coding"));
}

#[test]
fn custom_lenses_come_from_brief_toml_and_are_listed() {
    let dir = copy_fixture(PAYMENTS);
    std::fs::write(
        dir.path().join("brief.toml"),
        "[lenses.compliance]\ndescription = \"what auditors ask about\"\nfollow = [\"parent\"]\nboost = [\"policy\"]\nmax_depth = 1\n",
    )
    .unwrap();
    let root = dir.path().to_str().unwrap();
    let (code, text, _) = run(&["lenses", "--root", root]);
    assert_eq!(code, 0);
    for name in [
        "general",
        "writing",
        "coding",
        "planning",
        "meeting-prep",
        "compliance",
    ] {
        assert!(text.contains(name), "{name} listed:\n{text}");
    }
    let v = json(&[
        "context",
        "CHECKOUT-01",
        "--root",
        root,
        "--format",
        "json",
        "--lens",
        "compliance",
    ]);
    assert_eq!(v["lens"], "compliance");
    assert!(ids(&v).contains("CHECKOUT"), "parent followed");
    assert!(!ids(&v).contains("CHECKOUT-02"), "references not followed");
}

#[test]
fn the_children_of_a_feature_need_a_lens_that_follows_them() {
    let dir = copy_fixture(PAYMENTS);
    let root = dir.path().to_str().unwrap();
    let plain = json(&[
        "context", "CHECKOUT", "--root", root, "--format", "json", "--budget", "100000",
    ]);
    let general = json(&[
        "context", "CHECKOUT", "--root", root, "--format", "json", "--budget", "100000", "--lens",
        "general",
    ]);
    assert!(!ids(&plain).contains("CHECKOUT-04"));
    assert!(
        ids(&general).contains("CHECKOUT-04"),
        "contains followed forward with `child`"
    );
}

#[test]
fn a_large_fanout_is_sampled_and_said_so() {
    let dir = copy_fixture(PAYMENTS);
    std::fs::write(dir.path().join("brief.toml"), "[context]\nfanout = 3\n").unwrap();
    let root = dir.path().to_str().unwrap();
    let v = json(&[
        "context", "CHECKOUT", "--root", root, "--format", "json", "--budget", "100000", "--lens",
        "general",
    ]);
    let truncated = v["truncated"]
        .as_array()
        .expect("truncation reported in JSON");
    let contains = truncated
        .iter()
        .find(|t| t["id"] == "CHECKOUT" && t["relation"] == "contains")
        .unwrap();
    assert_eq!(contains["kept"], 3);
    assert!(contains["total"].as_u64().unwrap() > 3);
    assert!(v["document"].as_str().unwrap().contains("## Truncated"));
    assert!(v["document"]
        .as_str()
        .unwrap()
        .contains("the 3 best-ranked were followed"));
}

/// Three Nygard records in `doc/adr`: an accepted one, the one it replaced, a proposal.
fn sessions_adrs() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let adr = dir.path().join("doc/adr");
    std::fs::create_dir_all(&adr).unwrap();
    let record = |file: &str, title: &str, status: &str, body: &str| {
        let text = format!(
            "# {title}\n\nDate: 2024-01-01\n\n## Status\n\n{status}\n\n## Context\n\n{body}\n\n\
             ## Decision\n\n{body}\n"
        );
        std::fs::write(adr.join(file), text).unwrap();
    };
    record(
        "0001-keep-user-sessions-in-memcached.md",
        "1. Keep user sessions in Memcached",
        "Superseded by [2. Keep user sessions in Redis](0002-keep-user-sessions-in-redis.md)",
        "User sessions live in a Memcached cluster; session expiry follows the cache's eviction.",
    );
    record(
        "0002-keep-user-sessions-in-redis.md",
        "2. Keep user sessions in Redis",
        "Accepted",
        "User sessions live in Redis with an explicit expiry, so a restart keeps them.",
    );
    record(
        "0003-sign-session-cookies.md",
        "3. Sign session cookies",
        "Proposed",
        "Session cookies are signed so a user cannot forge another session.",
    );
    dir
}

#[test]
fn a_retired_record_starts_only_what_its_own_words_name() {
    let dir = sessions_adrs();
    let root = dir.path().to_str().unwrap();
    let seeds = |v: &Value| -> Vec<String> {
        v["seeds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap().to_string())
            .collect()
    };
    // Through the binary, on Nygard files: a task both records match starts from the current
    // one and the replaced one is no seed. (Here the words alone already rank it far below;
    // the unit test `a_retired_record_is_a_seed_only_as_the_start` in find.rs holds the rule
    // where it would qualify, as it does when meaning is fused in.)
    let both = json(&[
        "context",
        "where do user sessions live and when do they expire",
        "--root",
        root,
        "--format",
        "json",
        "--seeds",
        "3",
    ]);
    let started = seeds(&both);
    assert!(started.contains(&"ADR-0002".to_string()), "{started:?}");
    assert!(!started.contains(&"ADR-0001".to_string()), "{started:?}");
    // Words only the replaced record holds still start from it (and bring its successor).
    let old = json(&[
        "context",
        "memcached eviction",
        "--root",
        root,
        "--format",
        "json",
    ]);
    assert_eq!(old["target"], "ADR-0001");
    assert!(ids(&old).contains("ADR-0002"), "{:?}", ids(&old));
}

/// A target that says nothing of a topic is refused for what it is: function words alone are
/// not words no node holds (every node holds "the"), and punctuation has no word at all.
#[test]
fn targets_without_a_topic_are_refused_for_what_they_are() {
    let dir = copy_fixture(PAYMENTS);
    let root = dir.path().to_str().unwrap();
    for (target, why) in [
        ("the and of it", "only common words"),
        ("?! --", "it has no word to look for"),
    ] {
        let (code, stdout, stderr) = run(&["context", target, "--root", root]);
        assert_eq!(code, 1, "{target}: {stdout}");
        assert!(stderr.contains(why), "{target}: {stderr}");
        assert!(
            !stderr.contains("no node's text has those words"),
            "{stderr}"
        );
    }
}

/// A weak match is named once in the header, with what to do about it.
#[test]
fn a_weak_match_says_so_once() {
    let dir = copy_fixture(PAYMENTS);
    let root = dir.path().to_str().unwrap();
    let (code, stdout, stderr) = run(&[
        "context",
        "refund outbox currency webhook",
        "--root",
        root,
        "--budget",
        "400",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let starts = stdout
        .lines()
        .find(|l| l.starts_with("Start nodes"))
        .unwrap();
    assert!(
        starts.contains("(weak match; the best node holds only part of the words"),
        "{starts}"
    );
    assert_eq!(starts.matches("weak match").count(), 1, "{starts}");
}

#[test]
fn a_code_block_label_is_not_a_word_of_the_page() {
    // A Python project's docs: every guide shows Python examples, one page is the policy on
    // Python versions. "python" is a word of that page only, not of every fenced example.
    let example = "```python\nagent.run()\n```\n\n";
    let mut pages: Vec<(String, String)> = [
        (
            "streaming.md",
            "Streaming",
            "Streams drop a chunk when the consumer is slow.",
        ),
        (
            "retries.md",
            "Retries",
            "Retries drop the request after three failures.",
        ),
        (
            "hooks.md",
            "Hooks",
            "Hooks support a cleanup step that runs on drop.",
        ),
    ]
    .iter()
    .map(|(file, title, text)| {
        let page = format!("# {title}\n\n{text}\n\n{}", example.repeat(4));
        (file.to_string(), page)
    })
    .collect();
    pages.push((
        "version-policy.md".into(),
        "# Version policy\n\nWe drop support for a Python version once it reaches its end of \
         life, in a minor release.\n"
            .into(),
    ));
    let dir = common::docs_project(&pages);
    let root = dir.path().to_str().unwrap();
    let hits = json(&[
        "search",
        "drop support for Python 3.8",
        "--root",
        root,
        "--format",
        "json",
    ]);
    assert_eq!(hits[0]["id"], "docs/version-policy.md", "{hits}");
    let hits = json(&["search", "python", "--root", root, "--format", "json"]);
    assert_eq!(
        hits.as_array().unwrap().len(),
        1,
        "the fences' label is no hit: {hits}"
    );
}

/// A start found by a weak match is a guess: its links are followed one hop, so the links of
/// its links do not fill the budget before what the words found next. A strong match, or a
/// depth asked for, still walks two hops.
#[test]
fn a_weak_start_is_walked_one_hop() {
    let pages = [
        (
            "retries.md",
            "# Carrier retries\n\nA failed carrier call is retried with backoff and jitter. See [the queue](queue.md).\n",
        ),
        ("billing.md", "# Billing\n\nUnpaid invoices escalate.\n"),
        ("alerts.md", "# Alerts\n\nPager alerts wake the oncall.\n"),
        (
            "queue.md",
            "# Queue\n\nJobs wait here. See [the workers](workers.md).\n",
        ),
        ("workers.md", "# Workers\n\nThey take jobs off the queue.\n"),
    ];
    let dir = common::docs_project(&pages);
    let root = dir.path().to_str().unwrap();
    let context = |target: &str, extra: &[&str]| -> (String, BTreeSet<String>) {
        let mut args = vec!["context", target, "--root", root, "--format", "json"];
        args.extend_from_slice(extra);
        let (code, stdout, stderr) = run(&args);
        assert_eq!(code, 0, "{target}: {stderr}");
        let v: Value = serde_json::from_str(&stdout).unwrap();
        let confidence = v["confidence"].as_str().unwrap().to_string();
        // A second hop the words do not reach is a loose link: shown as related material.
        let mut shown = ids(&v);
        shown.extend(common::related(&v));
        (confidence, shown)
    };
    // The task's words are spread over three pages: the best holds only part of them.
    let weak = "carrier backoff jitter, escalate invoices, pager oncall";
    let (confidence, selected) = context(weak, &[]);
    assert_eq!(confidence, "weak");
    assert!(selected.contains("docs/queue.md"), "{selected:?}");
    assert!(!selected.contains("docs/workers.md"), "{selected:?}");
    // The header says so, and how to follow more.
    let header = |extra: &[&str]| {
        let mut args = vec!["context", weak, "--root", root];
        args.extend_from_slice(extra);
        let (code, stdout, stderr) = run(&args);
        assert_eq!(code, 0, "{stderr}");
        stdout
            .lines()
            .find(|l| l.starts_with("Start nodes"))
            .unwrap()
            .to_string()
    };
    assert!(
        header(&[]).contains("its links are followed 1 hop, `--depth 2` follows more"),
        "{}",
        header(&[])
    );
    // Asked for, the depth is the one asked, and the header has nothing to add.
    let (_, deeper) = context(weak, &["--depth", "2"]);
    assert!(deeper.contains("docs/workers.md"), "{deeper:?}");
    assert!(!header(&["--depth", "2"]).contains("followed"));
    // `explain` reads the same selection, and says why.
    let (code, why, stderr) = run(&["explain", "docs/workers.md", "--for", weak, "--root", root]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        why.contains("beyond depth 1 (a weak match of words is walked that far"),
        "{why}"
    );
    // So is a lens's depth.
    let (_, lensed) = context(weak, &["--lens", "general"]);
    assert!(lensed.contains("docs/workers.md"), "{lensed:?}");
    // A strong match keeps two hops.
    let (confidence, strong) = context("retry a failed carrier call with backoff and jitter", &[]);
    assert_eq!(confidence, "strong");
    assert!(strong.contains("docs/workers.md"), "{strong:?}");
    // And so is the project's depth.
    std::fs::write(dir.path().join("brief.toml"), "[context]\ndepth = 2\n").unwrap();
    let (_, configured) = context(weak, &[]);
    assert!(configured.contains("docs/workers.md"), "{configured:?}");
}

/// A multilingual vault keeps a copy of each page per language (`en/…` beside `de/…`). A task
/// in English starts from the English page, and the German copies that share its product
/// words, or link to it, are neither related hits nor backlinks; a task whose best hit is a
/// German page keeps the German pages.
#[test]
fn copies_in_another_language_are_not_related_material() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| common::write_file(dir.path(), rel, text);
    write(".obsidian/app.json", "{}\n");
    // Pages on other topics, so that the words of the task are rare in the vault.
    let topics = [
        "Canvas",
        "Graph view",
        "Hotkeys",
        "Templates",
        "Bookmarks",
        "Daily notes",
    ];
    for topic in topics {
        write(
            &format!("en/{topic}.md"),
            &format!("# {topic}\n\nHow {topic} works in the editor, with its settings.\n"),
        );
        write(
            &format!("de/{topic}.md"),
            &format!("# {topic}\n\nWie {topic} im Editor funktioniert.\n"),
        );
    }
    write(
        "en/Custom domains.md",
        "# Custom domains\n\nServe your Publish site from your own domain: add a CNAME record \
         for the domain at your registrar. See [[Manage sites]].\n",
    );
    write(
        "en/Manage sites.md",
        "# Manage sites\n\nCreate, rename or delete a Publish site.\n",
    );
    write(
        "en/Domain troubleshooting.md",
        "# Domain troubleshooting\n\nWhen the CNAME record of your domain is wrong, the site \
         does not load.\n",
    );
    write(
        "de/Eigene Domains.md",
        "# Eigene Domains\n\nDeine Publish-Seite unter deiner Domain: lege einen CNAME record \
         für die Domain an. Siehe [[Custom domains]] und [[Domain einrichten]].\n",
    );
    write(
        "de/Domain einrichten.md",
        "# Domain einrichten\n\nDen CNAME record der Domain beim Registrar eintragen. Das \
         Original: [[Custom domains]].\n",
    );
    write(
        "de/Erste Schritte.md",
        "# Erste Schritte\n\nLies zuerst [[Domain einrichten]].\n",
    );
    let root = dir.path().to_str().unwrap();
    let shown = |task: &str| -> (Option<String>, Vec<String>) {
        let (code, stdout, stderr) = run(&[
            "context", task, "--root", root, "--format", "json", "--budget", "4000",
        ]);
        assert_eq!(code, 0, "{stderr}");
        let v: Value = serde_json::from_str(&stdout).unwrap();
        let target = v["target"].as_str().map(str::to_string);
        let nodes = v["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["id"].as_str().unwrap().to_string())
            .collect();
        (target, nodes)
    };
    let (target, nodes) = shown("serve the publish site from my own domain with a CNAME record");
    assert_eq!(target.as_deref(), Some("en/Custom domains.md"), "{nodes:?}");
    assert!(
        nodes.contains(&"en/Domain troubleshooting.md".to_string()),
        "an English hit is related material: {nodes:?}"
    );
    assert!(
        !nodes.iter().any(|n| n.starts_with("de/")),
        "no German copy, by its words or by its link: {nodes:?}"
    );
    // `explain` says why.
    let (code, why, stderr) = run(&[
        "explain",
        "de/Eigene Domains.md",
        "--for",
        "serve the publish site from my own domain with a CNAME record",
        "--root",
        root,
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(why.contains("translation:"), "{why}");
    // Named by its file, the English page keeps its German copy out of its backlinks too.
    let (_, nodes) = shown("en/Custom domains.md");
    assert!(!nodes.iter().any(|n| n.starts_with("de/")), "{nodes:?}");
    let (target, nodes) = shown("beim Registrar eintragen");
    assert_eq!(
        target.as_deref(),
        Some("de/Domain einrichten.md"),
        "{nodes:?}"
    );
    assert!(
        nodes.contains(&"de/Eigene Domains.md".to_string()),
        "a German start keeps the German pages: {nodes:?}"
    );
    assert!(
        nodes.contains(&"de/Erste Schritte.md".to_string()),
        "and the German pages that link to it, without a word of the task: {nodes:?}"
    );
}

/// A docs tree of `pages` (path, text) with an agent file and five pages on other topics, so
/// that a task's words are rare in it; the ids of every node of `task`'s context at 4,000
/// tokens.
fn docs_context(pages: &[(&str, &str)], task: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| common::write_file(dir.path(), rel, text);
    write(
        "AGENTS.md",
        "# Agents\n\nRun the tests before every commit.\n",
    );
    for topic in ["Templates", "Presets", "Extensions", "Workflows", "Logging"] {
        write(
            &format!("docs/{}.md", topic.to_lowercase()),
            &format!("# {topic}\n\nHow {topic} are written.\n"),
        );
    }
    for (rel, text) in pages {
        write(rel, text);
    }
    let root = dir.path().to_str().unwrap();
    let (code, stdout, stderr) = run(&[
        "context", task, "--root", root, "--format", "json", "--budget", "4000",
    ]);
    assert_eq!(code, 0, "{stderr}");
    common::node_ids(&serde_json::from_str(&stdout).unwrap())
}

/// A documentation site keeps its translations under `i18n/<language>/` (MkDocs, Docusaurus)
/// while its English pages live in `docs/`, with no `en/` folder beside them. The copies keep
/// the English terms in their headings ("Token-Speicherung (Token storage)"), so the words of
/// an English task find them; they are translations all the same: no seed, no related hit.
#[test]
fn translations_under_an_i18n_folder_are_copies() {
    let nodes = docs_context(
        &[
            (
                "docs/client/oauth.md",
                "# OAuth clients\n\n## Token storage\n\nThe client stores the access token and \
                 the refresh token, and refreshes the access token before it expires.\n",
            ),
            (
                "docs/client/sessions.md",
                "# Client sessions\n\nA session refreshes its OAuth token through the token \
                 storage.\n",
            ),
            (
                "i18n/de/pages/client/oauth.md",
                "# OAuth-Clients (OAuth clients)\n\n## Token-Speicherung (Token storage)\n\nDer \
                 Client speichert das access token und das refresh token (refresh the access \
                 token).\n",
            ),
            (
                "i18n/pt-br/pages/client/oauth.md",
                "# Clientes OAuth (OAuth clients)\n\n## Armazenamento de tokens (Token \
                 storage)\n\nO cliente guarda o access token e o refresh token (refresh the \
                 access token).\n",
            ),
        ],
        "refresh the OAuth access token the client stores",
    );
    assert!(nodes[0].starts_with("docs/client/oauth.md"), "{nodes:?}");
    assert!(
        nodes.iter().any(|n| n == "docs/client/sessions.md"),
        "{nodes:?}"
    );
    assert!(
        !nodes.iter().any(|n| n.starts_with("i18n/")),
        "no copy under i18n/: {nodes:?}"
    );
}

/// A README translated beside the original (`README.zh-CN.md` beside `README.md`) is a copy:
/// though it links to the page a task starts from, it is no backlink of an English task; a
/// page whose name only looks like one (`root.ca.md`, with no `root.md`) is a page.
#[test]
fn a_translation_named_beside_its_original_is_a_copy() {
    let nodes = docs_context(
        &[
            (
                "docs/install.md",
                "# Install the CLI\n\nInstall the CLI with uv, then initialize a project.\n",
            ),
            (
                "README.md",
                "# Kit\n\nRead [how to install the CLI](docs/install.md).\n",
            ),
            (
                "README.zh-CN.md",
                "# 工具包\n\n阅读 [install the CLI](docs/install.md)。\n",
            ),
            (
                "pki/root.ca.md",
                "# Root CA\n\nSee [install the CLI](../docs/install.md) for the certificates.\n",
            ),
        ],
        "install the CLI and initialize a project",
    );
    assert!(nodes.iter().any(|n| n == "README.md"), "{nodes:?}");
    assert!(nodes.iter().any(|n| n == "pki/root.ca.md"), "{nodes:?}");
    assert!(
        !nodes.iter().any(|n| n.starts_with("README.zh-CN.md")),
        "{nodes:?}"
    );
}

/// A test's data is no knowledge of the project: the ADRs and pages under `fixtures/`,
/// `testdata/` and their kin are examples of the formats, so they are never read, never
/// searched and never numbered beside the project's own records.
#[test]
fn test_data_folders_are_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| common::write_file(dir.path(), rel, text);
    write(
        "docs/adr/0001-use-postgres.md",
        "# 1. Use PostgreSQL\n\nStatus: Accepted\n\nWe store orders in PostgreSQL.\n",
    );
    write(
        "tests/fixtures/docs/adr/0001-example-record.md",
        "# 1. Example record\n\nStatus: Superseded\n\nA parser sample about zebras.\n",
    );
    write("crates/x/testdata/notes.md", "# Notes\n\nMore zebras.\n");
    write("web/__snapshots__/page.md", "# Page\n\nZebras again.\n");
    write("tests/README.md", "# Tests\n\nRun them with make test.\n");
    let root = dir.path().to_str().unwrap();
    let (code, stdout, stderr) = run(&["search", "zebras", "--root", root]);
    assert_ne!(code, 0, "{stdout}");
    assert!(stderr.contains("zebras"), "{stderr}");
    // The project's record keeps its number alone; a test's own notes are still read.
    let (code, card, stderr) = run(&["show", "ADR-0001", "--root", root]);
    assert_eq!(code, 0, "{stderr}");
    assert!(card.contains("PostgreSQL"), "{card}");
    let (code, _, stderr) = run(&["show", "tests/README.md", "--root", root]);
    assert_eq!(code, 0, "{stderr}");
}

/// A project kept inside a test folder (a folder with its own `.log4brains.yml`, `.adr-dir`
/// or `brief.toml` below `tests/`, `integration-tests/`, `e2e/` and their kin) is a sample
/// the tests run against: its records are examples, not the project's decisions. A test
/// folder's own pages, and a project marked anywhere else (a package of a monorepo), are read.
#[test]
fn a_project_inside_a_test_folder_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| common::write_file(dir.path(), rel, text);
    write(".log4brains.yml", "project:\n  name: shop\n");
    write(
        "docs/adr/20240101-use-postgres.md",
        "# Use PostgreSQL\n\n- Status: accepted\n\nWe store orders in PostgreSQL.\n",
    );
    write(
        "packages/core/integration-tests/ro-project/.log4brains.yml",
        "project:\n  name: sample\n",
    );
    write(
        "packages/core/integration-tests/ro-project/docs/adr/20200101-links.md",
        "# Links\n\n- Status: accepted\n\nA sample record about zebras.\n",
    );
    write("e2e/fixture-vault/brief.toml", "[context]\nbudget = 2000\n");
    write("e2e/fixture-vault/Zebras.md", "# Zebras\n\nStriped.\n");
    write("Tests/SampleVault/.obsidian/app.json", "{}\n");
    write(
        "Tests/SampleVault/Zebra crossing.md",
        "# Zebra crossing\n\nZebras.\n",
    );
    write("packages/billing/.adr-dir", "doc/adr\n");
    write(
        "packages/billing/doc/adr/0001-zebra-invoices.md",
        "# 1. Zebra invoices\n\nStatus: Accepted\n\nInvoices are striped like zebras.\n",
    );
    write(
        "packages/core/integration-tests/PLAN.md",
        "# Test plan\n\nCheck the zebra links.\n",
    );
    let root = dir.path().to_str().unwrap();
    let (code, stdout, stderr) = run(&["search", "zebras", "--root", root, "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let ids = common::hit_ids(&stdout);
    assert!(
        !ids.iter().any(|id| id.contains("ro-project")
            || id.contains("fixture-vault")
            || id.contains("SampleVault")),
        "a sample project's pages are not read: {ids:?}"
    );
    assert!(
        ids.iter()
            .any(|id| id == "packages/core/integration-tests/PLAN.md"),
        "a test folder's own page is read: {ids:?}"
    );
    assert!(
        ids.iter()
            .any(|id| id.contains("billing") || id.starts_with("ADR-")),
        "a package's own records are read: {ids:?}"
    );
}
