use super::*;
use std::collections::HashMap;

fn markdown(text: &str) -> String {
    translate(text, None).markdown
}

/// The Markdown of `text`, which must keep its line count.
fn line_for_line(text: &str) -> String {
    let out = markdown(text);
    assert_eq!(out.lines().count(), text.lines().count(), "{out}");
    out
}

fn targets_of(pairs: &[(&str, &str)]) -> inline::Refs<'static> {
    inline::Refs {
        targets: pairs
            .iter()
            .map(|(name, url)| (name.to_string(), url.to_string()))
            .collect(),
        catalog: None,
    }
}

#[test]
fn an_adr_underlined_alike_throughout_has_the_first_title_for_the_page() {
    let text = "Use Postgres for sessions\n-------------------------\n\nStatus\n------\n\n\
                Accepted\n\nContext\n-------\n\nWe need durable sessions.\n";
    assert_eq!(
        line_for_line(text),
        "# Use Postgres for sessions\n\n\n## Status\n\n\nAccepted\n\n## Context\n\n\n\
         We need durable sessions.\n"
    );
}

#[test]
fn title_styles_take_levels_in_the_order_they_first_appear() {
    let text = "=====\nGuide\n=====\n\nInstall\n=======\n\nOn Linux\n--------\n\nSteps.\n\n\
                Upgrade\n=======\n";
    assert_eq!(
        line_for_line(text),
        "\n# Guide\n\n\n## Install\n\n\n### On Linux\n\n\nSteps.\n\n## Upgrade\n\n"
    );
}

#[test]
fn short_underlines_and_transitions_are_never_markdown_headings() {
    // Three dashes under a four-letter line: not a title in reStructuredText, and in
    // Markdown it would be a setext heading.
    let text = "Some text\n\nText\n---\n\nMore\n\n----------\n\nEnd\n";
    assert_eq!(
        line_for_line(text),
        "Some text\n\nText\n\n\nMore\n\n\n\nEnd\n"
    );
}

#[test]
fn status_date_and_tags_fields_are_metadata_and_builder_fields_are_left_out() {
    let text = ":orphan:\n\nRetire the v4 API\n=================\n\n:Status: Superseded by 0009\n\
                :Date: 2024-03-01\n:Author: Jane\n";
    assert_eq!(
        line_for_line(text),
        "\n\n# Retire the v4 API\n\n\nStatus: Superseded by 0009\nDate: 2024-03-01\n:Author: Jane\n"
    );
}

#[test]
fn references_with_targets_roles_and_literals_become_markdown() {
    let targets = targets_of(&[
        ("email templates", "https://x.org/t"),
        ("pep8", "https://p.org"),
    ]);
    let cases = [
        (
            "See `the docs <https://d.org>`_ now.",
            "See [the docs](https://d.org) now.",
        ),
        (
            "Read `email templates`_ first.",
            "Read [email templates](https://x.org/t) first.",
        ),
        (
            "Follow pep8_ always.",
            "Follow [pep8](https://p.org) always.",
        ),
        (
            "An `unknown`_ one and `code`.",
            "An unknown one and `code`.",
        ),
        ("Run ``make test``.", "Run `make test`."),
        (
            "See :doc:`../install` and :doc:`Guide </guide/index>`.",
            "See [../install](../install.rst) and [Guide](/guide/index.rst).",
        ),
        (
            "Use :class:`~pkg.mod.Widget` or :py:func:`pkg.run`.",
            "Use `Widget` or `pkg.run`.",
        ),
        (
            "As :ref:`the setup <setup>` and :ref:`setup` say.",
            "As the setup and setup say.",
        ),
        ("Per :pep:`8` and :rfc:`2119`.", "Per PEP 8 and RFC 2119."),
        (
            "`[a playground] <https://p.org>`_",
            "[\\[a playground\\]](https://p.org)",
        ),
        (
            "Another project's :doc:`werkzeug:test`.",
            "Another project's werkzeug:test.",
        ),
        (
            "A time 10:30 and a key: value.",
            "A time 10:30 and a key: value.",
        ),
        (
            "snake_case_ names and __init__ stay.",
            "snake_case_ names and __init__ stay.",
        ),
    ];
    for (line, expected) in cases {
        assert_eq!(inline::rewrite(line, &targets).0, expected, "{line}");
    }
}

#[test]
fn a_target_defined_after_its_reference_is_found() {
    let text = "Read the `Release Instructions`_.\n\n.. _Release Instructions: https://r.org/x\n";
    assert_eq!(
        line_for_line(text),
        "Read the [Release Instructions](https://r.org/x).\n\n\n"
    );
}

#[test]
fn literal_blocks_are_fenced_on_the_blank_lines_around_them() {
    let text = "Install it::\n\n    # the package\n    pip install brief\n\nThen go on.\n\n\
                ::\n\n  plain\n\nDone ::\n\n   more\n\nEnd.\n";
    assert_eq!(
        line_for_line(text),
        "Install it:\n~~~~~~\n# the package\npip install brief\n~~~~~~\nThen go on.\n\n\
         \n~~~~~~\nplain\n~~~~~~\nDone\n~~~~~~\nmore\n~~~~~~\nEnd.\n"
    );
}

#[test]
fn code_directives_are_fenced_without_their_options() {
    let text = ".. code-block:: python\n   :linenos:\n\n   # not a heading\n   run()\n\n\
                After.\n";
    assert_eq!(
        line_for_line(text),
        "~~~~~~\n\n\n# not a heading\nrun()\n~~~~~~\nAfter.\n"
    );
}

#[test]
fn a_code_block_at_the_end_of_the_page_is_closed_after_it() {
    let text = "Run::\n\n    make\n    make test";
    let out = markdown(text);
    assert_eq!(out, "Run:\n~~~~~~\nmake\nmake test\n~~~~~~\n");
    // The page's own lines keep their numbers.
    assert_eq!(out.lines().take(4).count(), text.lines().count());
}

#[test]
fn a_code_block_cut_short_or_empty_never_leaves_a_fence_open() {
    // A block followed at once by text: its last line gives way to the fence.
    let text = ".. code:: sh\n\n   one\n   two\nText.\n";
    assert_eq!(line_for_line(text), "~~~~~~\n\none\n~~~~~~\nText.\n");
    // A code directive with nothing in it: no fence at all.
    let text = ".. code-block:: sh\nText.\n";
    assert_eq!(line_for_line(text), "\nText.\n");
}

#[test]
fn admonitions_say_their_name_and_their_content_is_text() {
    let text = ".. note:: Keep the key.\n\n   Rotate it yearly.\n\n.. deprecated:: 3.2\n   \
                Use ``v5``.\n\n.. warning::\n\n       Indented far.\n";
    assert_eq!(
        line_for_line(text),
        "Note: Keep the key.\n\n   Rotate it yearly.\n\nDeprecated since version 3.2:\n   \
         Use `v5`.\n\nWarning:\n\n   Indented far.\n"
    );
}

#[test]
fn pictures_comments_substitutions_targets_and_raw_blocks_are_left_out() {
    let text = ".. image:: a.png\n   :alt: A\n\n.. This is a comment\n   over two lines.\n\n\
                .. |ok| replace:: fine\n.. _label:\n\n.. raw:: html\n\n   <div>x</div>\n\n\
                Kept.\n";
    assert_eq!(line_for_line(text), "\n\n\n\n\n\n\n\n\n\n\n\n\nKept.\n");
}

#[test]
fn toctree_entries_are_links_to_their_documents() {
    let text = ".. toctree::\n   :maxdepth: 2\n\n   intro\n   Guide <guide/index>\n   self\n   \
                api/*\n\nAfter.\n";
    assert_eq!(
        line_for_line(text),
        "\n\n\n- [intro](intro.rst)\n- [Guide](guide/index.rst)\n\n\n\nAfter.\n"
    );
}

#[test]
fn a_warnings_column_is_the_pages_own() {
    let page = translate(
        "Intro\n=====\n\n   See :doc:`gone` or :doc:`old` here.\n",
        None,
    );
    assert_eq!(
        page.markdown.lines().nth(3),
        Some("   See [gone](gone.rst) or [old](old.rst) here.")
    );
    assert_eq!(page.column_of(4, 28), 23, "the second link's `:`");
    // Deeper text loses its indentation beyond three spaces; columns follow.
    let page = translate("       Far `x <y>`_ in.\n", None);
    assert_eq!(page.markdown, "   Far [x](y) in.\n");
    assert_eq!(page.column_of(1, 8), 12, "the reference's backquote");
}

#[test]
fn pathological_lines_are_read_in_one_pass() {
    for unit in [":", "`", "``", ":a", "x_ ", ":a:`"] {
        let line = unit.repeat(200_000 / unit.len());
        let out = inline::rewrite(&line, &targets_of(&[])).0;
        assert!(!out.is_empty());
    }
    let page = "Title\n=====\n\n".to_string() + &"::\n\n    x\n".repeat(20_000);
    assert_eq!(markdown(&page).lines().count(), page.lines().count() + 1);
}

#[test]
fn a_run_of_tildes_in_code_never_closes_its_fence() {
    let text = "Write it::\n\n    Section\n    ~~~~~~~~\n\n    Text.\n\nThen :doc:`gone`.\n";
    assert_eq!(
        line_for_line(text),
        "Write it:\n~~~~~~~~~\nSection\n~~~~~~~~\n\nText.\n~~~~~~~~~\nThen [gone](gone.rst).\n"
    );
}

#[test]
fn a_list_items_literal_block_ends_where_its_text_comes_back() {
    let text =
        "#. Install the package::\n\n      pip install brief\n\n   Then restart.\n\n#. Done.\n";
    assert_eq!(
        line_for_line(text),
        "#. Install the package:\n~~~~~~\npip install brief\n~~~~~~\n   Then restart.\n\n#. Done.\n"
    );
}

#[test]
fn text_that_markdown_would_read_as_a_heading_or_a_comment_stays_text() {
    let text = "We ran:\n\n    # drop the old table\n\nIntro text\n=\n\nWrite ``<!--`` to start one.\n\nUsage\n-----\n";
    assert_eq!(
        line_for_line(text),
        "We ran:\n\n   \\# drop the old table\n\nIntro text\n\n\nWrite `<\\!--` to start one.\n\n# Usage\n\n"
    );
}

#[test]
fn names_with_dots_an_empty_comment_and_titles_one_under_another() {
    let targets = targets_of(&[]);
    assert_eq!(
        inline::rewrite(":doc:`../releases/1.0` and :doc:`notes.txt`", &targets).0,
        "[../releases/1.0](../releases/1.0.rst) and [notes.txt](notes.txt)"
    );
    // An empty comment followed by a blank line takes nothing: the block quote stays.
    assert_eq!(
        line_for_line("- item\n\n..\n\n   A quote.\n"),
        "- item\n\n\n\n   A quote.\n"
    );
    // A title right under another's underline of the same character is not overlined.
    let text = "Title A\n=======\nTitle B\n=======\n\ntext\n\nTitle C\n=======\n";
    assert_eq!(
        line_for_line(text),
        "# Title A\n\n## Title B\n\n\ntext\n\n## Title C\n\n"
    );
    // Backquotes inside an inline literal, and markup inside a word, which starts nothing.
    assert_eq!(
        inline::rewrite("``a`b`` and x`_ :doc:`y`", &targets).0,
        "`` a`b `` and x`_ [y](y.rst)"
    );
}

#[test]
fn the_columns_of_fields_directives_and_toctree_entries_are_the_pages_own() {
    let text = ":Status: See :doc:`gone`\n\n.. note:: See :doc:`gone`\n\n.. toctree::\n\n   The guide <gone>\n";
    let page = translate(text, None);
    let at = |line: u32, col: u32| page.column_of(line, col);
    let lines: Vec<&str> = page.markdown.lines().collect();
    assert_eq!(lines[0], "Status: See [gone](gone.rst)");
    assert_eq!(at(1, 13), 14, "the field's role");
    assert_eq!(lines[2], "Note: See [gone](gone.rst)");
    assert_eq!(at(3, 11), 15, "the note's role");
    assert_eq!(lines[6], "- [The guide](gone.rst)");
    assert_eq!(at(7, 3), 4, "the entry");
}

#[test]
fn a_pep_style_header_gives_the_title_and_status_and_its_sections_go_one_level_down() {
    let text =
        "PEP: 9999\nTitle: Retire the old loader\nAuthor: A. Writer <a@example.org>,\n        \
                B. Writer\nStatus: Superseded\nCreated: 05-Jul-2001\n\n\nAbstract\n========\n\n\
                Why.\n\nDetails\n-------\n\nHow.\n";
    assert_eq!(
        line_for_line(text),
        "\n# Retire the old loader\n\n\nStatus: Superseded\nDate: 05-Jul-2001\n\n\n\
         ## Abstract\n\n\nWhy.\n\n### Details\n\n\nHow.\n"
    );
    // A first paragraph of `key: value` lines without a `Title` is text.
    let text = "Migration: from v1\nto v2.\n";
    assert_eq!(line_for_line(text), "Migration: from v1\nto v2.\n");
}

#[test]
fn a_ref_to_a_label_another_page_defines_links_that_page() {
    assert_eq!(
        inline::labels(".. _ADR-3:\n\nTitle\n=====\n\n.. _`Event Bus`:\n.. _site: https://x.org\n"),
        ["adr-3", "event bus"]
    );
    let layout = crate::kb::Layout {
        page_extensions: vec![".rst"],
        ..crate::kb::Layout::default()
    };
    let mut catalog = Catalog::new(layout, ["docs/decisions/0003-payload.rst".to_string()]);
    catalog.add_label("adr-3".into(), "docs/decisions/0003-payload.rst");
    let refs = inline::Refs {
        targets: HashMap::new(),
        catalog: Some(&catalog),
    };
    assert_eq!(
        inline::rewrite("Per :ref:`ADR-3` and :ref:`the bus <Event Bus>`.", &refs).0,
        "Per [ADR-3](/docs/decisions/0003-payload.rst) and the bus."
    );
}
