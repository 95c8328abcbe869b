//! A GitHub Spec Kit repository: a constitution of seven principles and feature folders
//! `specs/NNN-topic-N/` with spec.md (5 stories, 12 requirements, 3 success criteria), plan.md,
//! research.md (4 decisions), data-model.md (3 entities) and tasks.md (50 tasks in phases,
//! `[P]` and `[USn]` markers, file paths). `total` counts tasks: `total / 50` features.

use std::fmt::Write as _;
use std::path::Path;

use super::{paragraph, write, Rng, Structure, TOPICS};

const TASKS_PER_FEATURE: usize = 50;

pub(crate) fn generate(
    out: &Path,
    total: usize,
    rng: &mut Rng,
) -> Result<(usize, Structure), String> {
    let features = (total / TASKS_PER_FEATURE).max(1);
    let mut nodes = 0;
    let mut constitution = String::from("# Generated Constitution\n\n## Core Principles\n\n");
    for (n, numeral) in ["I", "II", "III", "IV", "V", "VI", "VII"]
        .iter()
        .enumerate()
    {
        let hard = if n % 3 == 0 { " (NON-NEGOTIABLE)" } else { "" };
        let _ = write!(
            constitution,
            "### {numeral}. {} first{hard}\n\n{}\n\n**Rationale**: {}\n\n",
            TOPICS[n % TOPICS.len()],
            paragraph(rng, 2),
            paragraph(rng, 1)
        );
        nodes += 1;
    }
    constitution.push_str("## Governance\n\n**Version**: 1.0.0 | **Ratified**: 2025-01-01 | **Last Amended**: 2025-06-01\n");
    write(&out.join(".specify/memory/constitution.md"), &constitution)?;
    nodes += 1;
    for f in 0..features {
        let topic = TOPICS[f % TOPICS.len()];
        let dir = out.join(format!("specs/{:03}-{}-{f}", f + 1, topic.to_lowercase()));
        write(&dir.join("spec.md"), &spec(topic, rng))?;
        write(&dir.join("plan.md"), &plan(topic, rng))?;
        write(&dir.join("research.md"), &research(topic, rng))?;
        write(&dir.join("data-model.md"), &data_model(topic, rng))?;
        write(&dir.join("tasks.md"), &tasks(topic, f, rng))?;
        // The feature, 5 stories, 12 requirements, 3 criteria; the plan and its 3 sections;
        // research and 4 decisions; the data model and 3 entities; the tasks page and tasks.
        nodes += 1 + 5 + 12 + 3 + 4 + 5 + 4 + 1 + TASKS_PER_FEATURE;
    }
    Ok((nodes, Structure::Unlabelled))
}

fn spec(topic: &str, rng: &mut Rng) -> String {
    let mut text = format!(
        "# Feature Specification: {topic}\n\n**Created**: 2025-05-01\n**Status**: Draft\n\n## User Scenarios & Testing\n\n"
    );
    for s in 1..=5 {
        let _ = write!(
            text,
            "### User Story {s} - {topic} story {s} (Priority: P{})\n\n{}\n\n**Acceptance Scenarios**:\n\n1. **Given** a {topic} request, **When** it arrives, **Then** FR-{:03} holds.\n\n",
            (s + 1) / 2,
            paragraph(rng, 2),
            s * 2
        );
    }
    text.push_str("## Requirements\n\n### Functional Requirements\n\n");
    for r in 1..=12 {
        let _ = writeln!(text, "- **FR-{r:03}**: System MUST {}", paragraph(rng, 1));
    }
    text.push_str("\n## Success Criteria\n\n");
    for c in 1..=3 {
        let _ = writeln!(text, "- **SC-{c:03}**: {}", paragraph(rng, 1));
    }
    text
}

fn plan(topic: &str, rng: &mut Rng) -> String {
    format!(
        "# Implementation Plan: {topic}\n\n## Summary\n\n{} See research.md.\n\n## Technical Context\n\n{}\n\n## Constitution Check\n\n- Principle I: ✅\n- Principle IV: ✅\n",
        paragraph(rng, 2),
        paragraph(rng, 2)
    )
}

fn research(topic: &str, rng: &mut Rng) -> String {
    let mut text = format!("# Research: {topic}\n\n");
    for d in 1..=4 {
        let _ = write!(
            text,
            "### D-{d}. {topic} decision {d}\n\n- **Decision**: {}\n- **Rationale**: {}\n- **Alternatives considered**:\n  - Option A: {}\n  - Option B: {}\n\n",
            paragraph(rng, 1),
            paragraph(rng, 1),
            paragraph(rng, 1),
            paragraph(rng, 1)
        );
    }
    text
}

fn data_model(topic: &str, rng: &mut Rng) -> String {
    let mut text = format!("# Data Model: {topic}\n\n");
    for e in 1..=3 {
        let _ = write!(
            text,
            "## Entity: {topic}Record{e}\n\n{}\n\n",
            paragraph(rng, 1)
        );
    }
    text
}

fn tasks(topic: &str, f: usize, rng: &mut Rng) -> String {
    let module = topic.to_lowercase();
    let mut text = format!(
        "# Tasks: {topic}\n\n**Prerequisites**: plan.md, spec.md, research.md, data-model.md\n\n"
    );
    for t in 1..=TASKS_PER_FEATURE {
        if t % 10 == 1 {
            let story = (t / 10) + 1;
            let _ = write!(
                text,
                "\n## Phase {story}: User Story {} - {topic} story {}\n\n",
                story.min(5),
                story.min(5)
            );
        }
        let done = if rng.below(3) == 0 { "x" } else { " " };
        let parallel = if t % 3 == 0 { " [P]" } else { "" };
        let story = (t - 1) / 10 + 1;
        let _ = writeln!(
            text,
            "- [{done}] T{t:03}{parallel} [US{}] {} in src/{module}{f}/part{}.ts (FR-{:03})",
            story.min(5),
            paragraph(rng, 1).trim_end_matches('.'),
            t % 7,
            (t % 12) + 1
        );
    }
    text
}
