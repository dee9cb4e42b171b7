//! Placement: threads with their classes in, one PU per thread out (SAM-MPH,
//! Section 4, "mapping"). Pure and deterministic: the same request gives the
//! same placement.
//!
//! Two stages:
//!
//! 1. **Sockets.** Sharing applications come first, in the priority order the
//!    caller gives (see [`crate::decide`]). Each is given, in this order of
//!    preference, a socket that no application was given in this round and that
//!    holds all its threads; any socket that holds all of them; or else the
//!    fewest sockets, taking each time the socket that can hold most of what is
//!    left. Among equals the socket where most of its threads run now wins, then
//!    the one with most free PUs, then the lowest index. An application split
//!    over sockets is cut into blocks of neighbouring thread ids, one per socket:
//!    the mapper cannot see which threads share with which, and threads created
//!    one after the other tend to work on neighbouring data (the blocks of a
//!    static loop schedule, the partners of the paper's microbenchmarks); this
//!    is a guess that costs nothing where it is wrong. The remaining threads
//!    follow: memory-bound ones spread evenly over the sockets (at most
//!    ⌈m / sockets⌉ each), on the socket their memory is on where known, else
//!    where they run; the others stay where they run while there is room.
//! 2. **PUs**, socket by socket: pairs first, then solo threads, then the rest;
//!    a thread keeps its PU when its role allows, so a placement that is already
//!    right moves nothing.
//!
//! Roles (only with hyperthread awareness; without it every thread is plain):
//!
//! * **pair**: two threads of one application with very high SPC on the
//!   hyperthreads of one core. The mapper cannot see which threads of an
//!   application share with which; it pairs them in thread-id order, which
//!   matches programs that create partners one after the other.
//! * **solo**: a high-IPC thread, on a core shared with no other solo or pair
//!   (a plain thread may use the sibling PU). When one socket lacks the cores,
//!   other sockets are tried; only when no core is left anywhere does a solo
//!   thread become plain.
//! * **plain**: any free PU, on a core nobody uses first.
//!
//! With more threads than PUs, threads beyond the capacity go to the least
//! loaded socket and the least used PU; placement never fails.

use std::collections::HashMap;

use crate::model::MachineShape;

/// Where a PU is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Loc {
    pub(crate) socket: usize,
    /// The core's index within its socket.
    pub(crate) core: usize,
    /// The PU's index within its core.
    pub(crate) rank: usize,
}

/// PU numbers below this are looked up in a table, larger ones in a map.
const DENSE_PUS: usize = 1 << 16;

/// One socket: its cores (PU lists) and counts.
#[derive(Debug, Clone)]
struct Socket {
    cores: Vec<Vec<usize>>,
    pus: usize,
    /// Every core has two PUs or more, so pairs fit.
    pairs: bool,
}

/// An index over a [`MachineShape`]: which socket and core each PU is on. A PU
/// listed twice counts where it is listed first; empty cores are dropped.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    sockets: Vec<Socket>,
    dense: Vec<Option<Loc>>,
    sparse: HashMap<usize, Loc>,
}

impl Layout {
    pub(crate) fn new(shape: &MachineShape) -> Layout {
        let mut loc = HashMap::new();
        let mut sockets = Vec::with_capacity(shape.sockets.len());
        for (s, cores) in shape.sockets.iter().enumerate() {
            let mut kept: Vec<Vec<usize>> = Vec::with_capacity(cores.len());
            for core in cores {
                let mut pus = Vec::with_capacity(core.len());
                for &pu in core {
                    if let std::collections::hash_map::Entry::Vacant(e) = loc.entry(pu) {
                        e.insert(Loc {
                            socket: s,
                            core: kept.len(),
                            rank: pus.len(),
                        });
                        pus.push(pu);
                    }
                }
                if !pus.is_empty() {
                    kept.push(pus);
                }
            }
            let pus = kept.iter().map(Vec::len).sum();
            let pairs = !kept.is_empty() && kept.iter().all(|c| c.len() >= 2);
            sockets.push(Socket {
                cores: kept,
                pus,
                pairs,
            });
        }
        let top = loc
            .keys()
            .filter(|&&pu| pu < DENSE_PUS)
            .max()
            .map_or(0, |&m| m + 1);
        let mut dense = vec![None; top];
        let mut sparse = HashMap::new();
        for (pu, l) in loc {
            match dense.get_mut(pu) {
                Some(slot) => *slot = Some(l),
                None => {
                    sparse.insert(pu, l);
                }
            }
        }
        Layout {
            sockets,
            dense,
            sparse,
        }
    }

    /// Where `pu` is; `None` for a PU the machine does not have.
    pub(crate) fn loc(&self, pu: usize) -> Option<Loc> {
        match self.dense.get(pu) {
            Some(l) => *l,
            None => self.sparse.get(&pu).copied(),
        }
    }

    /// Sockets that have at least one PU.
    pub(crate) fn usable_sockets(&self) -> usize {
        self.sockets.iter().filter(|s| s.pus > 0).count()
    }

    pub(crate) fn num_sockets(&self) -> usize {
        self.sockets.len()
    }
}

/// How a thread must sit on its core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Pair,
    Solo,
    Plain,
}

/// One thread to place.
#[derive(Debug, Clone)]
pub(crate) struct Item {
    /// The PU it runs on now, if known and on this machine.
    pub(crate) current: Option<usize>,
    /// High IPC (held over the history): wants a core of its own.
    pub(crate) ipc_high: bool,
    /// Memory-bound, in an application without sharing: spread over sockets.
    pub(crate) memory: bool,
    /// The socket its memory is on, where known.
    pub(crate) home: Option<usize>,
}

/// One sharing application: its threads (indices into the items, in thread-id order).
#[derive(Debug, Clone)]
pub(crate) struct Group {
    pub(crate) items: Vec<usize>,
    /// Pair its (low-IPC) threads on hyperthreads.
    pub(crate) pair: bool,
}

/// What to place.
#[derive(Debug, Clone, Default)]
pub(crate) struct Request {
    pub(crate) items: Vec<Item>,
    /// Sharing applications, highest priority first.
    pub(crate) groups: Vec<Group>,
    /// Everything else, in any order (placed memory-bound first, then by index).
    pub(crate) rest: Vec<usize>,
    /// Roles other than plain are used.
    pub(crate) hyperthreads: bool,
}

/// Where one item goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Placed {
    pub(crate) socket: usize,
    pub(crate) pu: usize,
    pub(crate) role: Role,
}

/// What stage 1 has given a socket so far.
#[derive(Debug, Clone, Copy, Default)]
struct Load {
    threads: usize,
    solo: usize,
    pair_cores: usize,
    memory: usize,
    claimed: bool,
}

/// Counts of a demand: pair chunks (two threads each), solo and plain threads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Demand {
    chunks: usize,
    solo: usize,
    plain: usize,
}

impl Demand {
    fn total(self) -> usize {
        2 * self.chunks + self.solo + self.plain
    }
}

/// A unit of stage 1: one thread, or two to pair.
#[derive(Debug, Clone, Copy)]
enum Unit {
    Chunk(usize, usize),
    One(usize, Role),
}

/// Places every item; the result is indexed like `req.items`. Items not on
/// any usable socket do not exist: a machine without PUs gives an empty result.
pub(crate) fn place(layout: &Layout, req: &Request) -> Vec<Option<Placed>> {
    let mut out: Vec<Option<Placed>> = vec![None; req.items.len()];
    if layout.usable_sockets() == 0 {
        return out;
    }
    let now: Vec<Option<Loc>> = req
        .items
        .iter()
        .map(|it| it.current.and_then(|pu| layout.loc(pu)))
        .collect();
    let mut stage = Stage {
        layout,
        req,
        now: &now,
        loads: vec![Load::default(); layout.sockets.len()],
        units: vec![Vec::new(); layout.sockets.len()],
    };
    for group in &req.groups {
        stage.group(group);
    }
    stage.rest();
    for (s, units) in stage.units.iter().enumerate() {
        fill_socket(layout, &now, s, units, &mut out);
    }
    out
}

struct Stage<'a> {
    layout: &'a Layout,
    req: &'a Request,
    /// Where each item runs now.
    now: &'a [Option<Loc>],
    loads: Vec<Load>,
    /// What each socket was given, in order.
    units: Vec<Vec<Unit>>,
}

impl Stage<'_> {
    fn socket_of(&self, item: usize) -> Option<usize> {
        self.now[item].map(|l| l.socket)
    }

    /// How much of `want` socket `s` can take now.
    fn take(&self, s: usize, want: Demand) -> Demand {
        let sock = &self.layout.sockets[s];
        let load = &self.loads[s];
        let mut free_cores = sock.cores.len().saturating_sub(load.pair_cores + load.solo);
        let mut free_pus = sock.pus.saturating_sub(load.threads);
        let chunks = if sock.pairs {
            want.chunks.min(free_cores).min(free_pus / 2)
        } else {
            want.chunks.min(free_pus / 2)
        };
        if sock.pairs {
            free_cores -= chunks;
        }
        free_pus -= 2 * chunks;
        let solo = want.solo.min(free_cores).min(free_pus);
        free_pus -= solo;
        let plain = want.plain.min(free_pus);
        Demand {
            chunks,
            solo,
            plain,
        }
    }

    fn free_pus(&self, s: usize) -> usize {
        self.layout.sockets[s]
            .pus
            .saturating_sub(self.loads[s].threads)
    }

    fn give(&mut self, s: usize, unit: Unit) {
        let pairs = self.layout.sockets[s].pairs;
        let load = &mut self.loads[s];
        match unit {
            Unit::Chunk(..) => {
                load.threads += 2;
                if pairs {
                    load.pair_cores += 1;
                }
            }
            Unit::One(item, role) => {
                load.threads += 1;
                if role == Role::Solo {
                    load.solo += 1;
                }
                if self.req.items[item].memory {
                    load.memory += 1;
                }
            }
        }
        self.units[s].push(unit);
    }

    /// The socket with the lowest load relative to its PUs (for overflow).
    fn least_loaded(&self) -> usize {
        (0..self.loads.len())
            .filter(|&s| self.layout.sockets[s].pus > 0)
            .min_by(|&a, &b| {
                let la = self.loads[a].threads * self.layout.sockets[b].pus;
                let lb = self.loads[b].threads * self.layout.sockets[a].pus;
                la.cmp(&lb).then(a.cmp(&b))
            })
            .unwrap_or(0)
    }

    fn group(&mut self, group: &Group) {
        // Roles.
        let mut chunks: Vec<(usize, usize)> = Vec::new();
        let mut solo: Vec<usize> = Vec::new();
        let mut plain: Vec<usize> = Vec::new();
        let mut pending: Option<usize> = None;
        for &i in &group.items {
            let item = &self.req.items[i];
            if self.req.hyperthreads && item.ipc_high {
                solo.push(i);
            } else if self.req.hyperthreads && group.pair {
                match pending.take() {
                    Some(first) => chunks.push((first, i)),
                    None => pending = Some(i),
                }
            } else {
                plain.push(i);
            }
        }
        plain.extend(pending);
        let want = Demand {
            chunks: chunks.len(),
            solo: solo.len(),
            plain: plain.len(),
        };
        let mut here = vec![0usize; self.loads.len()];
        for &i in &group.items {
            if let Some(s) = self.socket_of(i) {
                here[s] += 1;
            }
        }
        // One socket, unclaimed first.
        let whole = |stage: &Stage<'_>, unclaimed: bool| {
            (0..stage.loads.len())
                .filter(|&s| !unclaimed || !stage.loads[s].claimed)
                .filter(|&s| stage.layout.sockets[s].pus > 0 && stage.take(s, want) == want)
                .max_by(|&a, &b| {
                    (here[a], stage.free_pus(a))
                        .cmp(&(here[b], stage.free_pus(b)))
                        .then(b.cmp(&a))
                })
        };
        if let Some(s) = whole(self, true).or_else(|| whole(self, false)) {
            self.loads[s].claimed = true;
            for (a, b) in chunks {
                self.give(s, Unit::Chunk(a, b));
            }
            for i in solo {
                self.give(s, Unit::One(i, Role::Solo));
            }
            for i in plain {
                self.give(s, Unit::One(i, Role::Plain));
            }
            return;
        }
        // The fewest sockets: each time the one that takes most of what is left.
        let mut left = want;
        let mut degraded = false;
        while left.total() > 0 {
            let best = (0..self.loads.len())
                .map(|s| (s, self.take(s, left)))
                .filter(|(_, d)| d.total() > 0)
                .max_by(|(a, da), (b, db)| {
                    (da.total(), here[*a], self.free_pus(*a))
                        .cmp(&(db.total(), here[*b], self.free_pus(*b)))
                        .then(b.cmp(a))
                });
            match best {
                Some((s, d)) => {
                    self.loads[s].claimed = true;
                    // Blocks of neighbouring thread ids stay together.
                    for (a, b) in chunks.drain(..d.chunks).collect::<Vec<_>>() {
                        self.give(s, Unit::Chunk(a, b));
                    }
                    for i in solo.drain(..d.solo).collect::<Vec<_>>() {
                        self.give(s, Unit::One(i, Role::Solo));
                    }
                    for i in plain.drain(..d.plain).collect::<Vec<_>>() {
                        self.give(s, Unit::One(i, Role::Plain));
                    }
                    left = Demand {
                        chunks: chunks.len(),
                        solo: solo.len(),
                        plain: plain.len(),
                    };
                }
                None if !degraded => {
                    // No core left for pairs or solos anywhere: plain threads then.
                    degraded = true;
                    plain.extend(chunks.drain(..).flat_map(|(a, b)| [a, b]));
                    plain.append(&mut solo);
                    plain.sort_unstable();
                    left = Demand {
                        chunks: 0,
                        solo: 0,
                        plain: plain.len(),
                    };
                }
                None => {
                    // More threads than PUs: overflow onto the least loaded sockets.
                    for i in std::mem::take(&mut plain) {
                        let s = self.least_loaded();
                        self.give(s, Unit::One(i, Role::Plain));
                    }
                    left = Demand::default();
                }
            }
        }
    }

    fn rest(&mut self) {
        let mut rest = self.req.rest.clone();
        rest.sort_by_key(|&i| (!self.req.items[i].memory, i));
        let memory = rest.iter().filter(|&&i| self.req.items[i].memory).count();
        let usable = self.layout.usable_sockets().max(1);
        let target = memory.div_ceil(usable);
        for i in rest {
            let item = &self.req.items[i];
            let role = if self.req.hyperthreads && item.ipc_high {
                Role::Solo
            } else {
                Role::Plain
            };
            let s = self
                .choose(i, role, target)
                .map(|s| (s, role))
                .or_else(|| {
                    (role == Role::Solo)
                        .then(|| self.choose(i, Role::Plain, target))
                        .flatten()
                        .map(|s| (s, Role::Plain))
                })
                .unwrap_or((self.least_loaded(), Role::Plain));
            self.give(s.0, Unit::One(i, s.1));
        }
    }

    /// A socket for one remaining thread in `role`, or `None` when none has room.
    fn choose(&self, i: usize, role: Role, target: usize) -> Option<usize> {
        let item = &self.req.items[i];
        let one = match role {
            Role::Solo => Demand {
                solo: 1,
                ..Demand::default()
            },
            _ => Demand {
                plain: 1,
                ..Demand::default()
            },
        };
        let room = |s: usize| self.take(s, one) == one;
        let current = self.socket_of(i);
        if item.memory {
            let under = |s: usize| self.loads[s].memory < target;
            for s in [item.home, current].into_iter().flatten() {
                if s < self.loads.len() && under(s) && room(s) {
                    return Some(s);
                }
            }
            return (0..self.loads.len()).filter(|&s| room(s)).min_by(|&a, &b| {
                (self.loads[a].memory, std::cmp::Reverse(self.free_pus(a)), a).cmp(&(
                    self.loads[b].memory,
                    std::cmp::Reverse(self.free_pus(b)),
                    b,
                ))
            });
        }
        if let Some(s) = current.filter(|&s| room(s)) {
            return Some(s);
        }
        (0..self.loads.len())
            .filter(|&s| room(s))
            .max_by(|&a, &b| self.free_pus(a).cmp(&self.free_pus(b)).then(b.cmp(&a)))
    }
}

/// Stage 2: PUs of socket `s` for the units it was given.
fn fill_socket(
    layout: &Layout,
    now: &[Option<Loc>],
    s: usize,
    units: &[Unit],
    out: &mut [Option<Placed>],
) {
    let sock = &layout.sockets[s];
    if sock.pus == 0 {
        return;
    }
    let cores = &sock.cores;
    // Occupancy per core and PU (rank within the core), and who runs where now.
    let mut occ: Vec<Vec<usize>> = cores.iter().map(|c| vec![0; c.len()]).collect();
    let mut exclusive = vec![false; cores.len()];
    let mut now_on_core = vec![0usize; cores.len()];
    let here = |item: usize| -> Option<(usize, usize)> {
        now[item]
            .filter(|l| l.socket == s)
            .map(|l| (l.core, l.rank))
    };
    let mut chunks = Vec::new();
    let mut solos = Vec::new();
    let mut plains = Vec::new();
    for unit in units {
        match *unit {
            Unit::Chunk(a, b) => chunks.push((a, b)),
            Unit::One(i, Role::Solo) => solos.push(i),
            Unit::One(i, _) => plains.push(i),
        }
    }
    for item in units.iter().flat_map(|u| match *u {
        Unit::Chunk(a, b) => [Some(a), Some(b)],
        Unit::One(i, _) => [Some(i), None],
    }) {
        if let Some((core, _)) = item.and_then(here) {
            now_on_core[core] += 1;
        }
    }
    let mut put = |occ: &mut Vec<Vec<usize>>, item: usize, core: usize, rank: usize, role: Role| {
        occ[core][rank] += 1;
        out[item] = Some(Placed {
            socket: s,
            pu: cores[core][rank],
            role,
        });
    };
    // A free PU of `core` for `item`: its own if it is there and free, else the first free.
    let rank_in = |occ: &Vec<Vec<usize>>, item: usize, core: usize| -> Option<usize> {
        if let Some((c, r)) = here(item) {
            if c == core && occ[core][r] == 0 {
                return Some(r);
            }
        }
        occ[core].iter().position(|&n| n == 0)
    };
    let empty = |occ: &Vec<Vec<usize>>, core: usize| occ[core].iter().all(|&n| n == 0);
    // Whoever runs somewhere now comes first, so that it can stay.
    chunks.sort_by_key(|&(a, b)| here(a).is_none() && here(b).is_none());
    solos.sort_by_key(|&i| here(i).is_none());
    plains.sort_by_key(|&i| here(i).is_none());

    for (a, b) in chunks {
        let own = [a, b]
            .into_iter()
            .filter_map(here)
            .map(|(c, _)| c)
            .find(|&c| empty(&occ, c) && !exclusive[c]);
        let core = own.or_else(|| {
            (0..cores.len())
                .filter(|&c| empty(&occ, c) && cores[c].len() >= 2)
                .min_by_key(|&c| (now_on_core[c], c))
        });
        match core {
            Some(c) => {
                exclusive[c] = true;
                // The member already on this core first, so that it keeps its PU.
                let order = if here(b).is_some_and(|(hc, _)| hc == c) {
                    [b, a]
                } else {
                    [a, b]
                };
                for item in order {
                    if let Some(r) = rank_in(&occ, item, c) {
                        put(&mut occ, item, c, r, Role::Pair);
                    } else {
                        plains.push(item);
                    }
                }
            }
            None => {
                plains.push(a);
                plains.push(b);
            }
        }
    }
    for i in solos {
        let own = here(i)
            .map(|(c, _)| c)
            .filter(|&c| !exclusive[c] && occ[c].contains(&0));
        let core = own
            .or_else(|| {
                (0..cores.len())
                    .filter(|&c| empty(&occ, c))
                    .min_by_key(|&c| (now_on_core[c], c))
            })
            .or_else(|| (0..cores.len()).find(|&c| !exclusive[c] && occ[c].contains(&0)));
        match core.and_then(|c| rank_in(&occ, i, c).map(|r| (c, r))) {
            Some((c, r)) => {
                exclusive[c] = true;
                put(&mut occ, i, c, r, Role::Solo);
            }
            None => plains.push(i),
        }
    }
    for i in plains {
        if let Some((c, r)) = here(i).filter(|&(c, r)| occ[c][r] == 0) {
            put(&mut occ, i, c, r, Role::Plain);
            continue;
        }
        // A free PU on an unused core first, then any free PU, then the least used.
        let mut best: Option<(usize, usize)> = None;
        let mut best_key = (usize::MAX, usize::MAX, usize::MAX, usize::MAX, usize::MAX);
        for (c, pus) in occ.iter().enumerate() {
            let used = pus.iter().filter(|&&n| n > 0).count();
            for (r, &n) in pus.iter().enumerate() {
                let key = (n, used, now_on_core[c], r, c);
                if key < best_key {
                    best_key = key;
                    best = Some((c, r));
                }
            }
        }
        if let Some((c, r)) = best {
            put(&mut occ, i, c, r, Role::Plain);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `s` sockets of `c` cores of `t` PUs, numbered like Linux on Intel: the first
    /// PU of every core first, socket by socket, then the siblings.
    fn shape(s: usize, c: usize, t: usize) -> MachineShape {
        MachineShape {
            sockets: (0..s)
                .map(|si| {
                    (0..c)
                        .map(|ci| (0..t).map(|ti| ti * s * c + si * c + ci).collect())
                        .collect()
                })
                .collect(),
        }
    }

    fn item(current: Option<usize>) -> Item {
        Item {
            current,
            ipc_high: false,
            memory: false,
            home: None,
        }
    }

    #[test]
    fn two_groups_get_a_socket_each() {
        let layout = Layout::new(&shape(2, 4, 2));
        // Group 0 on PUs 0, 4, 1, 5 (both sockets), group 1 on 2, 6, 3, 7.
        let now = [0, 4, 1, 5, 2, 6, 3, 7];
        let req = Request {
            items: now.iter().map(|&p| item(Some(p))).collect(),
            groups: vec![
                Group {
                    items: vec![0, 1, 2, 3],
                    pair: false,
                },
                Group {
                    items: vec![4, 5, 6, 7],
                    pair: false,
                },
            ],
            rest: vec![],
            hyperthreads: true,
        };
        let out = place(&layout, &req);
        let sockets: Vec<usize> = out.iter().map(|p| p.unwrap().socket).collect();
        assert_eq!(sockets, [0, 0, 0, 0, 1, 1, 1, 1]);
        // Threads already on their socket keep their PU.
        assert_eq!(out[0].unwrap().pu, 0);
        assert_eq!(out[5].unwrap().pu, 6);
        // Plain threads take one PU per core before siblings.
        let mut pus: Vec<usize> = out[..4].iter().map(|p| p.unwrap().pu).collect();
        pus.sort_unstable();
        assert_eq!(pus, [0, 1, 2, 3]);
    }

    #[test]
    fn pairs_share_a_core_and_solos_do_not() {
        let layout = Layout::new(&shape(1, 4, 2));
        let mut items: Vec<Item> = (0..6).map(|_| item(None)).collect();
        for it in &mut items[4..] {
            it.ipc_high = true;
        }
        let req = Request {
            items,
            groups: vec![
                Group {
                    items: vec![0, 1, 2, 3],
                    pair: true,
                },
                Group {
                    items: vec![4, 5],
                    pair: false,
                },
            ],
            rest: vec![],
            hyperthreads: true,
        };
        let out = place(&layout, &req);
        let core = |i: usize| layout.loc(out[i].unwrap().pu).unwrap().core;
        assert_eq!(core(0), core(1));
        assert_eq!(core(2), core(3));
        assert_ne!(core(0), core(2));
        assert_ne!(core(4), core(5));
        for i in 0..4 {
            assert_ne!(core(i), core(4));
            assert_ne!(core(i), core(5));
        }
    }

    #[test]
    fn more_threads_than_pus_still_places_everyone() {
        let layout = Layout::new(&shape(2, 1, 1));
        let req = Request {
            items: (0..5).map(|_| item(None)).collect(),
            groups: vec![Group {
                items: vec![0, 1, 2],
                pair: true,
            }],
            rest: vec![3, 4],
            hyperthreads: true,
        };
        let out = place(&layout, &req);
        assert!(out.iter().all(|p| p.is_some_and(|p| p.pu < 2)));
    }

    #[test]
    fn an_empty_machine_places_nothing() {
        let layout = Layout::new(&MachineShape { sockets: vec![] });
        let req = Request {
            items: vec![item(Some(3))],
            groups: vec![],
            rest: vec![0],
            hyperthreads: false,
        };
        assert_eq!(place(&layout, &req), vec![None]);
    }
}
