//! The zone document of `brief context --session`: the session's packages and error
//! patterns, as much as the agent's token zone allows, followed by the graph context of the
//! task, produced by the engine for exactly the budget that remains (so it is byte for byte
//! what `brief context TASK --budget REMAINING` prints).
//!
//! Counting is exact: the session part is counted whole under the request's encoding and
//! stepped down (error patterns first, then the lowest-ranked packages) until it fits; the
//! final document is counted again and, in the rare case the join of the two parts merges
//! tokens, the graph budget is lowered by the excess and the graph assembled again.
//!
//! A missing or unreadable store never blocks: the document keeps its zone line and the
//! graph context, says the packages are unavailable, and a one-line warning is returned.

use brief_engine::{Param, Said};
use serde::Serialize;

use super::config::DEFAULT_MODEL;
use super::packages::{package_list, ListRequest, Listing, Package};
use super::patterns::{injectable, Pattern};
use super::redact::Secrets;
use super::render::indent;
use super::zone::{usage, Usage, Zone};
use super::{agent_name, group_name, id_text, Location, Mode, Priority, SessionError, Store};
use brief_engine::Format;
use brief_engine::{ContextError, ContextRequest};
use brief_engine::{Engine, EngineError};
use brief_model::Detail;
use brief_project::{Project, DEFAULT_BUDGET};

/// The smallest budget a zone document gets even when the window is (nearly) full, so that
/// the checkpoint notice always fits.
pub(crate) const MIN_BUDGET: usize = 128;

/// The session part of `brief context --session`: who asks, in which session and window.
#[derive(Debug, Clone, Default)]
pub struct SessionPart {
    /// The session the agent works in.
    pub session: String,
    /// The agent type asking (sets the retrieval limit).
    pub agent: String,
    /// The agent's group: its packages and global ones are shown.
    pub group: Option<String>,
    /// A node id whose graph context follows the session part (Normal and Soft Warning).
    pub task: Option<String>,
    /// Model name for the window (see [`super::config::DEFAULT_WINDOWS`]).
    pub model: Option<String>,
    /// The window in tokens, instead of a model name.
    pub window: Option<usize>,
    /// Tokens of the agent's window already used.
    pub used_tokens: usize,
    /// Project whose error patterns are shown [default: `[session] project`, else all].
    pub project: Option<String>,
    /// Packages consumed in this iteration are left out [default: 1].
    pub iteration: Option<i64>,
    /// What the session part shows of secrets (redacted by default; the graph part is never
    /// altered).
    pub secrets: Secrets,
}

/// What `brief context --session` asks for.
#[derive(Debug, Clone, Default)]
pub struct ZoneRequest {
    /// Who asks, in which session and window.
    pub part: SessionPart,
    /// Budget, encoding, format, detail, depth, lens and identity for the graph part; its
    /// `target` is ignored (the part's task is used).
    pub context: ContextRequest,
}

/// An assembled zone document.
#[derive(Debug, Clone)]
pub struct ZoneOutput {
    /// Exactly what to print.
    pub text: String,
    /// The zone the agent's window is in, which decided what the document holds.
    pub zone: Zone,
    /// The exact token count of the document (for JSON, of the embedded document).
    pub used: usize,
    /// The budget the document was fitted to.
    pub budget: usize,
    /// One-line problems that did not stop assembly (store unavailable, graph left out).
    pub warnings: Vec<String>,
}

#[derive(Serialize)]
struct Audit<'a> {
    session: &'a str,
    agent: &'a str,
    group: Option<&'a str>,
    zone: Zone,
    usage: &'a Usage,
    encoding: &'static str,
    budget: BudgetJson,
    total_available: usize,
    packages: Vec<Package>,
    packages_left_out: usize,
    error_patterns: Vec<Pattern>,
    graph: Option<GraphJson<'a>>,
    warnings: &'a [String],
    document: &'a str,
}

#[derive(Serialize)]
struct BudgetJson {
    limit: usize,
    used: usize,
}

#[derive(Serialize)]
struct GraphJson<'a> {
    target: &'a str,
    budget: usize,
    used: usize,
    omitted: usize,
}

/// The session part's content before fitting.
struct Material {
    listing: Option<Listing>,
    patterns: Vec<Pattern>,
    store_ok: bool,
}

/// Assembles the zone document. `engine` is needed only when the session part's `task` is set.
pub fn zone_context(
    project: &Project,
    engine: Option<&mut Engine>,
    request: &ZoneRequest,
    now: i64,
) -> Result<ZoneOutput, SessionError> {
    let asked = &request.part;
    let who = Who {
        session: id_text("session", &asked.session)?,
        agent: agent_name(&asked.agent)?,
        group: asked.group.as_deref().map(group_name).transpose()?,
    };
    let settings = settings(project, request)?;
    let mut warnings = Vec::new();
    let material = gather(
        project,
        asked,
        &who,
        settings.usage.zone,
        now,
        &mut warnings,
    )?;
    let view = View {
        session: &who.session,
        agent: &who.agent,
        group: who.group.as_deref(),
        usage: &settings.usage,
        style: settings.style,
        secrets: asked.secrets,
    };
    let fitted = fit_all(engine, request, &settings, &view, &material, &mut warnings)?;
    let text = if request.context.format == Format::Json {
        audit(&who, &settings, &material, &fitted, asked, &warnings)
    } else {
        fitted.document.clone()
    };
    Ok(ZoneOutput {
        text,
        zone: settings.usage.zone,
        used: fitted.used,
        budget: settings.budget,
        warnings,
    })
}

/// Who asks, checked.
struct Who {
    session: String,
    agent: String,
    group: Option<String>,
}

/// What the request and the project settle before anything is read.
struct Settings {
    usage: Usage,
    encoding: brief_count::Encoding,
    budget: usize,
    style: Style,
    /// The graph part's detail, when the zone has one.
    graph_detail: Option<Detail>,
}

/// The window, the zone, the budget and the graph part's detail.
fn settings(project: &Project, request: &ZoneRequest) -> Result<Settings, SessionError> {
    let config = &project.session;
    let asked = &request.part;
    let (model, window) = match (asked.window, &asked.model) {
        (Some(0), _) => {
            return Err(SessionError::Usage(
                Said::new()
                    .param(Param::Window)
                    .text(" must be at least 1 token"),
            ))
        }
        (Some(w), _) => ("window".to_string(), w),
        (None, model) => {
            let name = model
                .clone()
                .or_else(|| config.model.clone())
                .unwrap_or_else(|| DEFAULT_MODEL.to_string());
            let w = config.window_for(&name).ok_or_else(|| {
                SessionError::Usage(
                    Said::new()
                        .text(format!(
                            "unknown model `{name}`: use one of {} (a longer name such as claude-sonnet-4-5 matches its prefix), add it under [session.windows] in brief.toml, or pass ",
                            config.known_models().join(", ")
                        ))
                        .param(Param::Window)
                        .text(" TOKENS"),
                )
            })?;
            (name, w)
        }
    };
    let usage = usage(&model, window, config.margin_bp(), asked.used_tokens);
    let defaults = &project.defaults;
    let requested = request
        .context
        .budget
        .or(defaults.budget)
        .unwrap_or(DEFAULT_BUDGET);
    let detail = request.context.detail.or(defaults.detail);
    Ok(Settings {
        encoding: request
            .context
            .encoding
            .or(defaults.encoding)
            .unwrap_or_default(),
        budget: requested.min(usage.remaining().max(MIN_BUDGET)),
        style: match request.context.format {
            Format::Text => Style::Text,
            _ => Style::Markdown,
        },
        graph_detail: match usage.zone {
            Zone::Normal => Some(detail.unwrap_or(Detail::Full)),
            Zone::SoftWarning => Some(Detail::Summary.min_with(detail)),
            _ => None,
        },
        usage,
    })
}

/// Gathers what the zone allows from the store, degrading around an unusable one (a
/// warning, and `store_ok` false).
fn gather(
    project: &Project,
    asked: &SessionPart,
    who: &Who,
    zone: Zone,
    now: i64,
    warnings: &mut Vec<String>,
) -> Result<Material, SessionError> {
    let mut material = Material {
        listing: None,
        patterns: Vec::new(),
        store_ok: true,
    };
    if zone == Zone::Emergency {
        return Ok(material);
    }
    let config = &project.session;
    let gathered = (|| -> Result<(Listing, Vec<Pattern>), SessionError> {
        let mut store = Store::connect(&Location::for_project(&project.root, config)?, Mode::Read)?;
        let listing = package_list(
            &mut store,
            &ListRequest {
                session: who.session.clone(),
                agent: who.agent.clone(),
                group: who.group.clone(),
                limit: None,
                iteration: asked.iteration,
                min_priority: (zone == Zone::Conservative).then_some(Priority::Critical),
            },
            config,
            now,
        )?;
        let patterns = if zone == Zone::Normal {
            let project_filter = asked.project.clone().or_else(|| config.project.clone());
            injectable(
                &mut store,
                project_filter.as_deref(),
                config.error_limit.unwrap_or(3),
                now,
            )?
        } else {
            Vec::new()
        };
        Ok((listing, patterns))
    })();
    match gathered {
        Ok((listing, patterns)) => {
            material.listing = Some(listing);
            material.patterns = patterns;
        }
        Err(e) if e.is_store_problem() => {
            material.store_ok = false;
            warnings.push(format!(
                "session store unavailable, context packages and error patterns left out: {e}"
            ));
        }
        Err(e) => return Err(e),
    }
    Ok(material)
}

/// The document: the session part fitted, then the graph part for what remains.
struct Fitted {
    document: String,
    /// Its exact token count.
    used: usize,
    plan: Plan,
    /// How many packages the listing offered before fitting.
    shown_packages: usize,
    /// The graph part: its budget, its count and what it left out.
    graph: Option<(usize, usize, usize)>,
}

/// Fits the session part (half the budget when a graph part follows) and the graph part
/// for exactly what remains; when the graph cannot fit, the session part takes it all.
fn fit_all(
    engine: Option<&mut Engine>,
    request: &ZoneRequest,
    settings: &Settings,
    view: &View<'_>,
    material: &Material,
    warnings: &mut Vec<String>,
) -> Result<Fitted, SessionError> {
    let (budget, encoding) = (settings.budget, settings.encoding);
    let shown_packages = material.listing.as_ref().map_or(0, |l| l.packages.len());
    let mut plan = Plan {
        packages: shown_packages,
        patterns: material.patterns.len(),
        note: None,
    };
    // With a task, the session part gets at most half the budget, so packages never crowd
    // the task's own context out; without one it may use all of it.
    let task = request
        .part
        .task
        .as_ref()
        .filter(|_| settings.graph_detail.is_some());
    let part_budget = if task.is_some() { budget / 2 } else { budget };
    let (mut part, mut part_tokens) =
        match fit_part(view, material, &mut plan, part_budget, encoding) {
            Ok(fitted) => fitted,
            // Not even the header fits in half: let it take what it needs.
            Err(_) if task.is_some() => fit_part(view, material, &mut plan, budget, encoding)?,
            Err(e) => return Err(e),
        };
    let mut graph = None;
    if let (Some(task), Some(detail)) = (task, settings.graph_detail) {
        let engine = engine.ok_or_else(|| {
            SessionError::Usage(
                Said::new()
                    .param(Param::Task)
                    .text(" needs a project with sources (no graph was opened)"),
            )
        })?;
        match graph_part(
            engine,
            request,
            settings,
            detail,
            task,
            &part,
            budget - part_tokens,
        )? {
            GraphPart::Fitted(text, room, used, omitted) => {
                graph = Some((text, room, used, omitted))
            }
            GraphPart::TooSmall(note) => {
                warnings.push(note.clone());
                plan.note = Some(note);
                // No graph after all: the session part may use the whole budget.
                plan.packages = shown_packages;
                plan.patterns = material.patterns.len();
                // The note is best effort: keep it only if it still fits.
                match fit_part(view, material, &mut plan, budget, encoding) {
                    Ok((p, t)) => {
                        part = p;
                        part_tokens = t;
                    }
                    Err(_) => plan.note = None,
                }
            }
        }
    }
    let (document, used) = match &graph {
        Some((text, ..)) => {
            let document = format!("{part}{text}");
            let used = encoding.count(&document);
            (document, used)
        }
        None => (part, part_tokens),
    };
    debug_assert_eq!(used, encoding.count(&document));
    debug_assert!(used <= budget);
    Ok(Fitted {
        document,
        used,
        plan,
        shown_packages,
        graph: graph.map(|(_, room, used, omitted)| (room, used, omitted)),
    })
}

/// The graph part of a zone document, or why it was left out.
enum GraphPart {
    /// Text, the budget it had, its count and what it left out.
    Fitted(String, usize, usize, usize),
    /// The note saying it did not fit.
    TooSmall(String),
}

/// The graph context of `task` for `room` tokens after `part`, lowered by the excess in the
/// rare case the join of the two parts merges tokens.
fn graph_part(
    engine: &mut Engine,
    request: &ZoneRequest,
    settings: &Settings,
    detail: Detail,
    task: &str,
    part: &str,
    mut room: usize,
) -> Result<GraphPart, SessionError> {
    let mut graph_request = request.context.clone();
    graph_request.target = task.to_string();
    graph_request.detail = Some(detail);
    graph_request.encoding = Some(settings.encoding);
    // The zone document is Markdown or text; any other style is asked as Markdown.
    graph_request.format = if settings.style == Style::Text {
        Format::Text
    } else {
        Format::Markdown
    };
    let mut fitted = None;
    for _ in 0..4 {
        graph_request.budget = Some(room);
        match engine.context(&graph_request) {
            Ok(out) => {
                let total = settings.encoding.count(&format!("{part}{}", out.text));
                if total <= settings.budget {
                    fitted = Some(GraphPart::Fitted(out.text, room, out.used, out.omitted));
                    break;
                }
                room = room.saturating_sub(total - settings.budget);
            }
            Err(EngineError::Context(ContextError::TooSmall(small))) => {
                return Ok(GraphPart::TooSmall(format!(
                    "Graph context for {task} left out: it needs at least {} tokens and {room} were left.",
                    small.minimum
                )))
            }
            Err(other) => return Err(other.into()),
        }
    }
    // Four tries that each lowered the room and still merged tokens: no graph part.
    Ok(fitted.unwrap_or_else(|| {
        GraphPart::TooSmall(format!(
            "Graph context for {task} left out: it did not fit the {room} tokens left."
        ))
    }))
}

/// The JSON audit of a zone document (package and pattern text redacted like the document).
fn audit(
    who: &Who,
    settings: &Settings,
    material: &Material,
    fitted: &Fitted,
    asked: &SessionPart,
    warnings: &[String],
) -> String {
    let scrub = |s: &str| asked.secrets.apply(s);
    let listing = material.listing.as_ref();
    let audit = Audit {
        session: &who.session,
        agent: &who.agent,
        group: who.group.as_deref(),
        zone: settings.usage.zone,
        usage: &settings.usage,
        encoding: settings.encoding.name(),
        budget: BudgetJson {
            limit: settings.budget,
            used: fitted.used,
        },
        total_available: listing.map_or(0, |l| l.total_available),
        packages: listing.map_or(Vec::new(), |l| {
            l.packages
                .iter()
                .take(fitted.plan.packages)
                .map(|p| Package {
                    summary: scrub(&p.summary),
                    file_path: scrub(&p.file_path),
                    ..p.clone()
                })
                .collect()
        }),
        packages_left_out: fitted.shown_packages - fitted.plan.packages,
        error_patterns: material
            .patterns
            .iter()
            .take(fitted.plan.patterns)
            .map(|p| Pattern {
                signature: scrub(&p.signature),
                solution: scrub(&p.solution),
                ..p.clone()
            })
            .collect(),
        graph: match (&fitted.graph, &asked.task) {
            (Some((b, u, o)), Some(task)) => Some(GraphJson {
                target: task,
                budget: *b,
                used: *u,
                omitted: *o,
            }),
            _ => None,
        },
        warnings,
        document: &fitted.document,
    };
    let mut s = serde_json::to_string_pretty(&audit).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

trait MinWith {
    fn min_with(self, other: Option<Detail>) -> Detail;
}

impl MinWith for Detail {
    /// The lesser of two detail levels (meta < summary < full).
    fn min_with(self, other: Option<Detail>) -> Detail {
        match other {
            Some(Detail::Meta) => Detail::Meta,
            _ => self,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    Markdown,
    Text,
}

struct View<'a> {
    session: &'a str,
    agent: &'a str,
    group: Option<&'a str>,
    usage: &'a Usage,
    style: Style,
    secrets: Secrets,
}

/// How much of the material the session part shows.
struct Plan {
    packages: usize,
    patterns: usize,
    note: Option<String>,
}

/// Renders the session part and steps it down until it fits `budget`: error patterns go
/// first (lowest first), then the note, then packages (lowest-ranked first).
fn fit_part(
    view: &View<'_>,
    material: &Material,
    plan: &mut Plan,
    budget: usize,
    encoding: brief_count::Encoding,
) -> Result<(String, usize), SessionError> {
    loop {
        let part = render_part(view, material, plan);
        let tokens = encoding.count(&part);
        if tokens <= budget {
            return Ok((part, tokens));
        }
        // The note only repeats a warning the caller also gets: it goes before packages.
        if plan.patterns > 0 {
            plan.patterns -= 1;
        } else if plan.note.is_some() {
            plan.note = None;
        } else if plan.packages > 0 {
            plan.packages -= 1;
        } else {
            return Err(SessionError::Usage(
                Said::new()
                    .text(format!(
                        "a budget of {budget} tokens cannot hold the session header ({tokens} tokens): use "
                    ))
                    .param(Param::Budget)
                    .text(format!(" {tokens} or more")),
            ));
        }
    }
}

/// Cuts `text` to at most `max` characters at a word boundary, marking the cut with `…`.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max).collect();
    let at = cut.rfind(' ').filter(|&i| i > max / 2).unwrap_or(cut.len());
    format!("{}…", cut[..at].trim_end())
}

fn render_part(view: &View<'_>, material: &Material, plan: &Plan) -> String {
    let md = view.style == Style::Markdown;
    let u = view.usage;
    let mut out = String::new();
    if md {
        out.push_str(&format!("# Session context for {}\n\n", view.agent));
    } else {
        out.push_str(&format!("=== SESSION CONTEXT: {} ===\n", view.agent));
    }
    let window = if u.model == "window" {
        format!("{} tokens", u.window)
    } else {
        format!("{} tokens for {}", u.window, u.model)
    };
    let zone_line = format!(
        "Zone: {} ({} of the effective window used: {} of {}; window {}).",
        u.zone.name(),
        u.percent(),
        u.used_tokens,
        u.effective,
        window
    );
    let scope = format!(
        "Session {}{}.",
        view.session,
        view.group
            .map(|g| format!(", group {g}"))
            .unwrap_or_default()
    );
    out.push_str(&format!("{scope}\n{zone_line}\n"));
    if md {
        out.push('\n');
    }
    match u.zone {
        Zone::Emergency => {
            out.push_str("Checkpoint now: the context window is nearly full, so no context was assembled. Finish the current step, record a handoff (`brief session package add --type handoff ...`) and continue in a fresh session.\n");
        }
        Zone::WrapUp => {
            out.push_str("Wrap up: finish the current operation with what you already have; no packages are offered in this zone.\n");
            if let Some(l) = &material.listing {
                if l.total_available > 0 {
                    out.push_str(&format!(
                        "{} waiting for after a checkpoint.\n",
                        plural_packages(l.total_available)
                    ));
                }
            }
        }
        _ if !material.store_ok => {
            out.push_str("Context packages unavailable: the session store could not be read. Proceed with the task context below.\n");
        }
        _ => {
            render_packages(&mut out, view, material, plan);
            render_patterns(&mut out, view, material, plan);
        }
    }
    if let Some(note) = &plan.note {
        out.push_str(note);
        out.push('\n');
        if md {
            out.push('\n');
        }
    }
    if !md || !out.ends_with("\n\n") {
        out.push('\n');
    }
    out
}

/// A section's title line.
fn section(out: &mut String, view: &View<'_>, title: String) {
    if view.style == Style::Markdown {
        out.push_str(&format!("## {title}\n\n"));
    } else {
        out.push_str(&format!("=== {} ===\n", title.to_uppercase()));
    }
}

/// `s`, redacted unless the request said not to.
fn scrubbed(view: &View<'_>, s: &str) -> String {
    view.secrets.apply(s)
}

/// The packages section: the ranked packages the plan keeps, and what was left out.
fn render_packages(out: &mut String, view: &View<'_>, material: &Material, plan: &Plan) {
    let md = view.style == Style::Markdown;
    let listing = material.listing.as_ref();
    let total = listing.map_or(0, |l| l.total_available);
    let shown = plan.packages;
    let (title, max_summary) = match view.usage.zone {
        Zone::Normal => ("Context packages", None),
        Zone::SoftWarning => ("Context packages (summaries)", Some(200)),
        _ => ("Critical packages only", Some(100)),
    };
    section(out, view, format!("{title} ({shown} of {total})"));
    match listing.map_or(0, |l| l.consumed) {
        _ if total > 0 => {}
        0 => out.push_str("No context packages for this agent in this session yet.\n"),
        n => out.push_str(&format!(
            "All {} for {} {} consumed in iteration {} (`--iteration {}` offers {} again).\n",
            plural_packages(n),
            view.agent,
            if n == 1 { "was" } else { "were" },
            listing.map_or(1, |l| l.iteration),
            listing.map_or(1, |l| l.iteration) + 1,
            if n == 1 { "it" } else { "them" }
        )),
    }
    for p in listing.map_or(&[][..], |l| &l.packages[..shown]) {
        let summary = scrubbed(view, &p.summary);
        let summary = match max_summary {
            Some(max) => shorten(&summary, max),
            None => summary,
        };
        let (head, tail) = if md {
            ("- **[", format!("\n  {}\n", indent(&summary, "  ")))
        } else {
            ("[", format!(": {}\n", indent(&summary, "    ")))
        };
        let file = scrubbed(view, &p.file_path);
        out.push_str(&format!(
            "{head}{}{} #{} {} {} from {}{tail}",
            p.priority.to_ascii_uppercase(),
            if md { "]**" } else { "]" },
            p.id,
            p.kind,
            if md { format!("`{file}`") } else { file },
            p.producer,
        ));
    }
    if total > shown {
        let more = total - shown;
        out.push_str(&format!(
            "{}+{more} more package{}: brief session package list --session {} --agent {}{} --limit {}\n",
            if md && shown > 0 { "\n" } else { "" },
            if more == 1 { "" } else { "s" },
            view.session,
            view.agent,
            view.group
                .map(|g| format!(" --group {g}"))
                .unwrap_or_default(),
            total
        ));
    }
    if md {
        out.push('\n');
    }
}

/// The error patterns section, when the plan keeps any.
fn render_patterns(out: &mut String, view: &View<'_>, material: &Material, plan: &Plan) {
    if plan.patterns == 0 {
        return;
    }
    let md = view.style == Style::Markdown;
    section(
        out,
        view,
        format!("Known error patterns ({})", plan.patterns),
    );
    for p in &material.patterns[..plan.patterns] {
        out.push_str(&format!(
            "{}`{}` (hash {}, confidence {:.2}, seen {}x)\n{}Solution: {}\n",
            if md { "- " } else { "" },
            scrubbed(view, &p.signature).replace('`', "'"),
            p.hash,
            p.confidence,
            p.occurrences,
            if md { "  " } else { "    " },
            scrubbed(view, &p.solution)
        ));
    }
    if md {
        out.push('\n');
    }
}

fn plural_packages(n: usize) -> String {
    format!("{n} package{}", if n == 1 { "" } else { "s" })
}
