//! The line each rank reports: who it is, where it may run, its pool, and whether its
//! part of the answer verified. Rank 0 prints every rank's line in rank order; the
//! tests parse them back ([`RankReport::parse`]).
//!
//! The format is one line of `key=value` fields, then ` | ` and a sentence:
//!
//! ```text
//! rank=1 ranks=2 host=vm threading=MPI_THREAD_FUNNELED policy=ws binding=1 squads=1 squad_cpus=1 pool=1 worker_cpus=1 inside=yes kernel=heat verified=yes ms=3.1 | heat 66x32 after 10 sweeps, rows 33..65: bitwise equal to the serial reference
//! ```
//!
//! A CPU set is written as ranges (`0-3,8`); a list of sets (one per squad, one per
//! worker) separates them with `/`; an empty set is `none`.

use std::fmt::Write as _;

/// One rank's report.
#[derive(Debug, Clone, PartialEq)]
pub struct RankReport {
    /// The rank in `MPI_COMM_WORLD`.
    pub rank: usize,
    /// The number of ranks.
    pub ranks: usize,
    /// The processor name MPI gives (the host).
    pub host: String,
    /// The threading level the MPI library provides (`MPI_THREAD_FUNNELED`, ...).
    pub threading: String,
    /// The pool's policy.
    pub policy: String,
    /// The rank's affinity mask, read before its pool started.
    pub binding: Vec<usize>,
    /// The CPUs of each of the pool's squads.
    pub squads: Vec<Vec<usize>>,
    /// The CPUs each worker's thread may run on, read by the worker.
    pub workers: Vec<Vec<usize>>,
    /// The program (`heat` or `spmv`).
    pub kernel: String,
    /// Whether the rank's part of the answer equals the serial kernel's.
    pub verified: bool,
    /// Wall time of the rank's sweeps or products, communication included, in
    /// milliseconds.
    pub ms: f64,
    /// What was compared, or the first difference.
    pub detail: String,
}

impl RankReport {
    /// The workers whose threads may run outside the binding (see
    /// [`crate::placement::outside`]).
    pub fn outside(&self) -> Vec<usize> {
        crate::placement::outside(&self.binding, &self.workers)
    }

    /// Whether every worker stays inside the binding.
    pub fn inside(&self) -> bool {
        self.outside().is_empty()
    }

    /// Whether the rank did its part: verified, and every worker inside its binding.
    pub fn ok(&self) -> bool {
        self.verified && self.inside()
    }

    /// The report as one line (see the [module](self) for the format).
    pub fn to_line(&self) -> String {
        let mut line = String::new();
        let _ = write!(
            line,
            "rank={} ranks={} host={} threading={} policy={} binding={} squads={} \
             squad_cpus={} pool={} worker_cpus={} inside={} kernel={} verified={} ms={:.3} | {}",
            self.rank,
            self.ranks,
            token(&self.host),
            self.threading,
            token(&self.policy),
            cpu_set(&self.binding),
            self.squads.len(),
            cpu_sets(&self.squads),
            self.workers.len(),
            cpu_sets(&self.workers),
            yes_no(self.inside()),
            self.kernel,
            yes_no(self.verified),
            self.ms,
            self.detail.replace('\n', " "),
        );
        line
    }

    /// Reads a line written by [`RankReport::to_line`]. The error names the line and
    /// the field that is missing or malformed.
    pub fn parse(line: &str) -> Result<RankReport, String> {
        let bad = |what: String| format!("rank report {line:?}: {what}");
        let (fields, detail) = line
            .split_once(" | ")
            .ok_or_else(|| bad("no ' | ' before the detail".to_owned()))?;
        let pairs: Vec<(&str, &str)> = fields
            .split_whitespace()
            .map(|f| {
                f.split_once('=')
                    .ok_or_else(|| bad(format!("field {f:?} has no '='")))
            })
            .collect::<Result<_, _>>()?;
        let get = |key: &str| {
            pairs
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| *v)
                .ok_or_else(|| bad(format!("no field {key}")))
        };
        let number = |key: &str| -> Result<usize, String> {
            get(key)?
                .parse()
                .map_err(|_| bad(format!("{key} is not a whole number")))
        };
        let flag = |key: &str| match get(key)? {
            "yes" => Ok(true),
            "no" => Ok(false),
            other => Err(bad(format!("{key}={other} is neither yes nor no"))),
        };
        let sets = |key: &str| parse_cpu_sets(get(key)?).map_err(|e| bad(format!("{key}: {e}")));
        let report = RankReport {
            rank: number("rank")?,
            ranks: number("ranks")?,
            host: get("host")?.to_owned(),
            threading: get("threading")?.to_owned(),
            policy: get("policy")?.to_owned(),
            binding: parse_cpu_set(get("binding")?).map_err(|e| bad(format!("binding: {e}")))?,
            squads: sets("squad_cpus")?,
            workers: sets("worker_cpus")?,
            kernel: get("kernel")?.to_owned(),
            verified: flag("verified")?,
            ms: get("ms")?
                .parse()
                .map_err(|_| bad("ms is not a number".to_owned()))?,
            detail: detail.to_owned(),
        };
        if number("squads")? != report.squads.len() || number("pool")? != report.workers.len() {
            return Err(bad("squads or pool disagrees with the CPU lists".to_owned()));
        }
        if flag("inside")? != report.inside() {
            return Err(bad(
                "inside disagrees with the binding and the workers' CPUs".to_owned(),
            ));
        }
        Ok(report)
    }
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// A value with no blanks, so that the line splits on them.
fn token(s: &str) -> String {
    let t: String = s
        .chars()
        .map(|c| {
            if c.is_whitespace() || c == '|' {
                '_'
            } else {
                c
            }
        })
        .collect();
    if t.is_empty() {
        "?".to_owned()
    } else {
        t
    }
}

/// `cpus` (ascending) as ranges: `0-3,8`; `none` when empty.
pub fn cpu_set(cpus: &[usize]) -> String {
    if cpus.is_empty() {
        return "none".to_owned();
    }
    let mut out = String::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        if !out.is_empty() {
            out.push(',');
        }
        if j == i {
            let _ = write!(out, "{}", cpus[i]);
        } else {
            let _ = write!(out, "{}-{}", cpus[i], cpus[j]);
        }
        i = j + 1;
    }
    out
}

fn cpu_sets(sets: &[Vec<usize>]) -> String {
    sets.iter()
        .map(|s| cpu_set(s))
        .collect::<Vec<_>>()
        .join("/")
}

/// Reads a set written by [`cpu_set`].
pub fn parse_cpu_set(s: &str) -> Result<Vec<usize>, String> {
    if s == "none" {
        return Ok(Vec::new());
    }
    let mut cpus = Vec::new();
    for part in s.split(',') {
        let cpu = |t: &str| {
            t.parse::<usize>()
                .map_err(|_| format!("{t:?} in {s:?} is not a CPU number"))
        };
        match part.split_once('-') {
            Some((lo, hi)) => {
                let (lo, hi) = (cpu(lo)?, cpu(hi)?);
                if lo > hi {
                    return Err(format!("range {part:?} in {s:?} is backwards"));
                }
                cpus.extend(lo..=hi);
            }
            None => cpus.push(cpu(part)?),
        }
    }
    Ok(cpus)
}

fn parse_cpu_sets(s: &str) -> Result<Vec<Vec<usize>>, String> {
    s.split('/').map(parse_cpu_set).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> RankReport {
        RankReport {
            rank: 1,
            ranks: 2,
            host: "node 7".to_owned(),
            threading: "MPI_THREAD_FUNNELED".to_owned(),
            policy: "ws:near".to_owned(),
            binding: vec![0, 1, 2, 3, 8],
            squads: vec![vec![0, 1], vec![2, 3, 8]],
            workers: vec![vec![0], vec![1], vec![2], vec![3], vec![8]],
            kernel: "heat".to_owned(),
            verified: true,
            ms: 1.5,
            detail: "heat 10x10 | fine".to_owned(),
        }
    }

    #[test]
    fn a_line_reads_back() {
        let r = sample();
        let line = r.to_line();
        assert!(line.contains("binding=0-3,8 squads=2 squad_cpus=0-1/2-3,8 pool=5"));
        let back = RankReport::parse(&line).unwrap();
        assert_eq!(
            back,
            RankReport {
                host: "node_7".to_owned(),
                ..r
            }
        );
    }

    #[test]
    fn a_worker_outside_is_seen() {
        let mut r = sample();
        r.workers[4] = vec![9];
        assert_eq!(r.outside(), [4]);
        assert!(r.to_line().contains("inside=no"));
        assert!(!RankReport::parse(&r.to_line()).unwrap().ok());
    }

    #[test]
    fn bad_lines_are_refused_by_name() {
        let line = sample().to_line();
        let e = RankReport::parse(&line.replace("pool=5", "pool=x")).unwrap_err();
        assert!(e.contains("pool is not a whole number"), "{e}");
        let e = RankReport::parse(&line.replace("inside=yes", "inside=no")).unwrap_err();
        assert!(e.contains("inside disagrees"), "{e}");
        let e = RankReport::parse("rank=0").unwrap_err();
        assert!(e.contains("no ' | '"), "{e}");
        assert!(parse_cpu_set("3-1").is_err());
        assert!(parse_cpu_set("a").is_err());
    }
}
