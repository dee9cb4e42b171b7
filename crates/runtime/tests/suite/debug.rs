//! Every adapter is `Debug` whatever its closures, as rayon's are (rayon's own debug
//! tests check the same list).

use locus::prelude::*;
use std::fmt::Debug;

fn shown(value: impl Debug) -> String {
    format!("{value:?}")
}

#[test]
fn adapters_holding_closures_are_debug_and_show_their_base() {
    let v: Vec<u32> = (0..10).collect();
    let chain = v
        .par_iter()
        .map(|x| x + 1)
        .filter(|x| x % 2 == 0)
        .inspect(|_| ());
    let text = shown(chain);
    assert!(
        text.starts_with("Inspect { base: Filter { base: Map { base: Iter"),
        "{text}"
    );
    let all = [
        shown(v.par_iter().filter_map(Some)),
        shown(v.par_iter().flat_map(Some)),
        shown(v.par_iter().flat_map_iter(Some)),
        shown(v.par_iter().fold(|| 0, |x, _| x)),
        shown(v.par_iter().fold_with(7u8, |x, _| x)),
        shown(v.par_iter().fold_chunks(3, || 0, |x, _| x)),
        shown(v.par_iter().fold_chunks_with(3, 0, |x, _| x)),
        shown(v.par_iter().try_fold(|| 0, |x, _| Some(x))),
        shown(v.par_iter().try_fold_with(0, |x, _| Some(x))),
        shown(v.par_iter().copied().update(|_| ())),
        shown(v.par_iter().map_with(0, |_, x| x)),
        shown(v.par_iter().map_init(|| 0, |_, x| x)),
        shown(v.par_iter().positions(|_| true)),
        shown(v.par_split(|x| *x == 3)),
        shown(locus::iter::split(0..10, |r| (r, None))),
        shown(locus::iter::walk_tree_prefix(1u32, |_| Vec::new())),
    ];
    assert!(all.iter().all(|t| !t.is_empty()));
    assert!(all[4].contains("init: 7"), "{}", all[4]);
    assert!(all[5].contains("size: 3"), "{}", all[5]);
}
