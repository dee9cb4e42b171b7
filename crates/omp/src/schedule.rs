//! A worksharing loop's schedule: its kind and chunk, and the grammar of
//! `OMP_SCHEDULE` (run-sched-var, `env.rs`; dealing is `loops.rs`'s).

/// How a loop is dealt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Fixed chunks per member.
    Static,
    /// First come, fixed chunks.
    Dynamic,
    /// First come, shrinking chunks.
    Guided,
}

/// A schedule: a kind and a chunk size (0: the kind's default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Schedule {
    pub(crate) kind: Kind,
    pub(crate) chunk: u64,
}

impl Schedule {
    /// libgomp's run-sched-var when `OMP_SCHEDULE` is unset.
    pub(crate) fn default_runtime() -> Schedule {
        Schedule {
            kind: Kind::Dynamic,
            chunk: 1,
        }
    }

    /// Reads `OMP_SCHEDULE`: `[monotonic:|nonmonotonic:]kind[,chunk]`, kind one of
    /// static, dynamic, guided, auto (taken as static).
    pub(crate) fn parse(text: &str) -> Result<Schedule, String> {
        let t = text.trim().to_ascii_lowercase();
        let t = t
            .strip_prefix("monotonic:")
            .or_else(|| t.strip_prefix("nonmonotonic:"))
            .unwrap_or(&t);
        let (kind, chunk) = match t.split_once(',') {
            Some((k, c)) => (k.trim(), Some(c.trim())),
            None => (t.trim(), None),
        };
        let kind = match kind {
            "static" | "auto" => Kind::Static,
            "dynamic" => Kind::Dynamic,
            "guided" => Kind::Guided,
            _ => return Err("expected static, dynamic, guided or auto, then ,CHUNK".into()),
        };
        let chunk = match chunk {
            None => 0,
            Some(c) => match c.parse::<u64>() {
                Ok(n) if n > 0 => n,
                _ => return Err(format!("{c:?} is no chunk size (a positive number)")),
            },
        };
        Ok(Schedule { kind, chunk })
    }
}
