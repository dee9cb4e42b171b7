//! The policies a command runs, as [`POLICIES`] lists them: the `all` of each engine,
//! the locality policies compared with `ws`, the help texts of `--policy`, a `--policy`
//! list resolved, and the `affinity` policy made from `--schedule FILE`, which reads a
//! schedule exactly as `locus profile` identifies the machine and the input, so that a
//! schedule loads only for the run it was made for.

use crate::given::{Given, Origin};
use anyhow::{anyhow, bail, ensure, Context, Result};
use locus_kernels::Params;
use locus_policy::{PolicyInfo, PolicyKind, POLICIES, SCHEDULE_PLACED, SCHEDULE_UNKNOWN};
use locus_profile::{schedule, MachineDesc};
use locus_topo::Topology;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::{Arc, LazyLock};

/// Which engine runs the policies of a list: its `all`, and what it refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Engine {
    /// Locus pools on this machine (`locus bench`).
    Runtime,
    /// The simulator (`locus sim` and its subcommands).
    Simulator,
}

impl Engine {
    /// Whether `row` belongs to this engine's `all`.
    fn in_all(self, row: &PolicyInfo) -> bool {
        match self {
            Engine::Runtime => row.in_all,
            Engine::Simulator => row.in_sim_all,
        }
    }

    /// Whether this engine runs `row` at all.
    fn runs(self, row: &PolicyInfo) -> bool {
        self == Engine::Runtime || row.not_simulated.is_none()
    }

    /// The policies of `--policy all`, in the table's order.
    pub(crate) fn all(self) -> Vec<PolicyKind> {
        POLICIES
            .iter()
            .filter(|row| self.in_all(row))
            .filter_map(PolicyInfo::plain)
            .collect()
    }
}

/// The locality policies, compared with `ws` by `locus sim matrix` and a sweep over rows
/// unless told otherwise.
pub(crate) fn locality() -> Vec<PolicyKind> {
    POLICIES
        .iter()
        .filter(|row| row.locality)
        .filter_map(PolicyInfo::plain)
        .collect()
}

/// [`locality`] as `--policy` writes it: `mts,cab,cats`.
pub(crate) fn locality_list() -> &'static str {
    static LIST: LazyLock<String> = LazyLock::new(|| {
        let names: Vec<String> = locality().iter().map(PolicyKind::to_string).collect();
        names.join(",")
    });
    &LIST
}

/// `names` as a sentence: `a, b and c`.
fn and_list(names: &[String]) -> String {
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// The help of `--policy` for `engine`: the list, what `all` runs, and what the others
/// need (the policies themselves are listed by [`section`]).
pub(crate) fn flag_help(engine: Engine) -> String {
    let all: Vec<String> = engine.all().iter().map(PolicyKind::to_string).collect();
    let (what, affinity, default) = match engine {
        Engine::Runtime => (
            "Policies to compare",
            "affinity follows --schedule FILE, with a single KERNEL",
            " [default: LOCUS_POLICY if set, else all]",
        ),
        Engine::Simulator => ("Policies", "affinity follows --schedule FILE", ""),
    };
    let end = if default.is_empty() { "" } else { "." };
    format!(
        "{what}: a comma-separated list of those below (with their forms), or `all`: {} (the \
         others run when named; {affinity}){end}{default}",
        and_list(&all)
    )
}

/// The policies `engine` runs, one per line with their forms, under `--help`.
pub(crate) fn section(engine: Engine) -> String {
    let mut out = String::from("Policies (P) and the forms they take:\n");
    for row in POLICIES.iter().filter(|row| engine.runs(row)) {
        let _ = writeln!(out, "  {:<11} {}", row.name, row.help);
        if !row.forms.is_empty() {
            let forms: Vec<String> = row
                .forms
                .iter()
                .zip(row.examples)
                .map(|(form, example)| format!("{form}, e.g. {example}"))
                .collect();
            let _ = writeln!(out, "  {:<11} [also {}]", "", forms.join("; "));
        }
    }
    out
}

/// `--policy` (or `LOCUS_POLICY`): a comma-separated list of policy names without
/// repeats, or `all` ([`Engine::all`]). `affinity` is the given policy, made from
/// `--schedule FILE` (an error without one); a policy the engine does not run is refused.
pub(crate) fn list(
    given: &Given<String>,
    engine: Engine,
    affinity: Option<&PolicyKind>,
) -> Result<Vec<PolicyKind>> {
    let Given {
        value: list,
        origin,
    } = given;
    if list.trim().eq_ignore_ascii_case("all") {
        return Ok(engine.all());
    }
    let mut out: Vec<PolicyKind> = Vec::new();
    for item in list.split(',') {
        let kind: PolicyKind = match affinity {
            Some(kind) if item.trim().eq_ignore_ascii_case("affinity") => kind.clone(),
            _ => item
                .parse()
                .with_context(|| format!("bad {}", origin.with(list)))?,
        };
        ensure!(
            !out.contains(&kind),
            "bad {}: {kind} is listed twice",
            origin.with(list)
        );
        out.push(kind);
    }
    if let Some(reason) = out
        .iter()
        .find(|kind| !engine.runs(kind.info()))
        .and_then(|kind| kind.info().not_simulated)
    {
        bail!("bad {}: {reason}", origin.with(list));
    }
    Ok(out)
}

/// A `--policy` flag's list (not `LOCUS_POLICY`'s).
pub(crate) fn flag(list: &str) -> Given<String> {
    Given {
        value: list.to_owned(),
        origin: Origin::Flag("--policy"),
    }
}

/// The schedule `--policy LIST` (or `LOCUS_POLICY`) needs: `--schedule FILE` when the
/// list names affinity (`None` when it does not). Refuses the one without the other.
pub(crate) fn schedule_flag<'a>(
    policies: &Given<String>,
    schedule: Option<&'a Path>,
) -> Result<Option<&'a Path>> {
    let list = &policies.value;
    let named = policies.origin.with(list);
    let affinity = list
        .split(',')
        .any(|item| item.trim().eq_ignore_ascii_case("affinity"));
    match (affinity, schedule) {
        (true, Some(path)) => Ok(Some(path)),
        (false, None) => Ok(None),
        (true, None) => bail!(
            "{named} names affinity, which follows a schedule file: give it with \
             --schedule FILE (`locus profile KERNEL --out DIR` writes DIR/schedule.json)"
        ),
        (false, Some(path)) => bail!(
            "--schedule {path:?} is only read by --policy affinity, which {named} does not \
             name: add it (e.g. --policy static,affinity) or leave --schedule out"
        ),
    }
}

/// The warning for a run under `policy` whose schedule placed none of the tasks it was
/// asked about, all of which then ran under work stealing (which the table alone does
/// not show). Task ids come from call sites (file, line and column), so the likely cause
/// is a schedule made by another build of the program.
pub(crate) fn unmatched_schedule(policy: &str, stats: &[(String, u64)]) -> Option<String> {
    let stat = |name: &str| stats.iter().find(|(n, _)| n == name).map_or(0, |(_, v)| *v);
    let unknown = stat(SCHEDULE_UNKNOWN);
    (stat(SCHEDULE_PLACED) == 0 && unknown > 0).then(|| {
        format!(
            "warning: {policy}: the schedule placed none of the {unknown} tasks it was asked \
             about, so work stealing ran them all; task ids come from call sites (file, \
             line, column), and a schedule made by another build of the program knows none \
             of them: re-run locus profile with this build"
        )
    })
}

/// The `affinity` policy following the schedule file at `path`, which must have been
/// made for the input of `params` and `workers` workers on `topology`: the machine and
/// input identity are computed as `locus profile` computes them.
pub(crate) fn load_affinity(
    path: &Path,
    params: &Params,
    topology: &Topology,
    workers: usize,
) -> Result<PolicyKind> {
    let machine = MachineDesc::new(topology, workers)?;
    let input = input_identity(params)?;
    let loaded = schedule::load(path, &machine, &input)
        .and_then(|s| s.task_schedule())
        .map_err(|e| anyhow!(chain(&e)))
        // The error names the file already ("schedule PATH: ...").
        .context("bad --schedule")?;
    Ok(PolicyKind::Affinity(Arc::new(loaded)))
}

/// An error's message followed by those of its causes, each left out where the message
/// before already includes it (a schedule error's message includes its kind's).
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = cause.source();
    }
    out
}

/// The identity of the input of `params`, as schedules record it.
pub(crate) fn input_identity(params: &Params) -> Result<String> {
    locus_profile::input_identity(
        params.kernel().name(),
        &params.to_string(),
        &params.input_files(),
    )
    .context("cannot identify the input")
}

/// The policies `--policy` names besides `ws`, which a matrix compares with `ws`: an
/// error naming the flag when none is left.
pub(crate) fn rivals_of_ws(flag_text: &str, engine: Engine) -> Result<Vec<PolicyKind>> {
    let policies: Vec<PolicyKind> = list(&flag(flag_text), engine, None)?
        .into_iter()
        .filter(|p| *p != PolicyKind::Ws)
        .collect();
    ensure!(
        !policies.is_empty(),
        "bad --policy {flag_text:?}: name at least one policy to compare with ws"
    );
    Ok(policies)
}

#[cfg(test)]
mod tests {
    use super::*;
    use locus_policy::CabInputs;

    fn policies(list: &str, engine: Engine) -> Result<Vec<PolicyKind>> {
        super::list(&flag(list), engine, None)
    }

    #[test]
    fn policy_lists_resolve() {
        let policies = |list| policies(list, Engine::Runtime);
        assert_eq!(policies("all").unwrap(), PolicyKind::ALL.to_vec());
        assert_eq!(
            policies("ws, mts:4").unwrap(),
            vec![PolicyKind::Ws, PolicyKind::Mts { batch: Some(4) }]
        );
        let e = format!("{:#}", policies("ws,wss").unwrap_err());
        assert!(e.contains("'wss'"), "{e}");
        let e = format!("{:#}", policies("ws,ws").unwrap_err());
        assert!(e.contains("twice"), "{e}");
        assert!(policies("ws,").is_err());
        assert_eq!(policies("ws-unpinned").unwrap(), [PolicyKind::WsUnpinned]);
    }

    #[test]
    fn policies_of_the_simulator() {
        let policies = |list| policies(list, Engine::Simulator);
        assert_eq!(policies("all").unwrap().len(), 10);
        let e = format!("{:#}", policies("ws-unpinned").unwrap_err());
        assert!(
            e.starts_with("bad --policy \"ws-unpinned\": ws-unpinned differs"),
            "{e}"
        );
        assert!(policies("ws,ws").is_err());
        assert_eq!(policies("static,ws").unwrap()[0], PolicyKind::Static);
        let e = format!("{:#}", policies("ws,affinity").unwrap_err());
        assert!(e.contains("--schedule FILE"), "{e}");
        assert_eq!(
            policies("cab:bl=3,mts:2").unwrap(),
            vec![
                PolicyKind::Cab(CabInputs::Level(3)),
                PolicyKind::Mts { batch: Some(2) }
            ]
        );
    }

    #[test]
    fn the_lists_come_from_the_table() {
        assert_eq!(locality_list(), "mts,cab,cats");
        let help = flag_help(Engine::Simulator);
        assert!(
            help.contains("`all`: ws, central, rr-fifo, rr-lifo, mts, mts-paper, cab, cab-paper, cats and cats-paper (the"),
            "{help}"
        );
        let help = flag_help(Engine::Runtime);
        assert!(
            help.contains("`all`: ws, ws-unpinned, central, rr-fifo, rr-lifo and mts (the"),
            "{help}"
        );
        for engine in [Engine::Runtime, Engine::Simulator] {
            let help = flag_help(engine);
            assert!(!help.contains("  ") && !help.contains('\n'), "{help}");
        }
        let sim = section(Engine::Simulator);
        let bench = section(Engine::Runtime);
        for row in POLICIES {
            let line = format!("\n  {:<11} {}\n", row.name, row.help);
            assert!(bench.contains(&line), "{bench}");
            assert_eq!(sim.contains(&line), row.not_simulated.is_none(), "{sim}");
            for example in row.examples {
                assert!(bench.contains(&format!(", e.g. {example}")), "{bench}");
            }
        }
        let mts = bench.find("\n  mts ").expect("mts is listed");
        assert!(
            bench[mts + 1..]
                .lines()
                .nth(1)
                .is_some_and(|l| l == "              [also mts:BATCH, e.g. mts:3]"),
            "{bench}"
        );
    }

    #[test]
    fn a_schedule_that_placed_nothing_is_warned_of() {
        let stats = |placed: u64, unknown: u64| {
            vec![
                (SCHEDULE_PLACED.to_owned(), placed),
                (SCHEDULE_UNKNOWN.to_owned(), unknown),
            ]
        };
        let warning = unmatched_schedule("affinity", &stats(0, 440)).unwrap();
        assert!(
            warning.contains("placed none of the 440 tasks") && warning.contains("re-run"),
            "{warning}"
        );
        assert_eq!(unmatched_schedule("affinity", &stats(400, 40)), None);
        assert_eq!(unmatched_schedule("affinity", &stats(0, 0)), None);
        assert_eq!(unmatched_schedule("ws", &[]), None);
    }

    #[test]
    fn affinity_and_schedule_go_together() {
        let file = Path::new("s.json");
        let flag = |list: &str| Given {
            value: list.to_owned(),
            origin: Origin::Flag("--policy"),
        };
        assert_eq!(schedule_flag(&flag("ws,static"), None).unwrap(), None);
        assert_eq!(
            schedule_flag(&flag("static, Affinity"), Some(file)).unwrap(),
            Some(file)
        );
        let e = schedule_flag(&flag("ws,affinity"), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("--schedule FILE"), "{e}");
        let e = schedule_flag(&flag("all"), Some(file))
            .unwrap_err()
            .to_string();
        assert!(e.contains("only read by --policy affinity"), "{e}");
        let env = Given {
            value: "affinity".to_owned(),
            origin: Origin::Env("LOCUS_POLICY"),
        };
        let e = schedule_flag(&env, None).unwrap_err().to_string();
        assert!(
            e.starts_with("LOCUS_POLICY=\"affinity\" names affinity"),
            "{e}"
        );
    }
}
