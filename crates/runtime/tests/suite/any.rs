//! `skip_any`, `take_any`, `skip_any_while`, `take_any_while` (`src/iter/any.rs`):
//! exact counts, items from the source, owned items dropped once, on indexed and
//! unindexed chains, under work stealing and a two-squad policy.

use crate::common::pool;
use crate::counted::Counted;
use locus::prelude::*;
use locus::PolicyKind;
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn distinct(items: &[u32]) -> bool {
    items.iter().collect::<HashSet<_>>().len() == items.len()
}

#[test]
fn counts_are_exact_and_items_come_from_the_source() {
    let pools = [
        pool(PolicyKind::Ws, 2, "this"),
        pool(PolicyKind::default(), 4, "2x2"),
    ];
    for pool in &pools {
        pool.install(|| {
            let n = 10_000u32;
            let skipped: Vec<u32> = (0..n).into_par_iter().skip_any(123).collect();
            assert_eq!(skipped.len(), (n - 123) as usize);
            assert!(distinct(&skipped) && skipped.iter().all(|x| *x < n));
            let taken: Vec<u32> = (0..n)
                .into_par_iter()
                .filter(|x| x % 3 == 0)
                .take_any(77)
                .collect();
            assert_eq!(taken.len(), 77);
            assert!(distinct(&taken) && taken.iter().all(|x| x % 3 == 0));
            assert_eq!((0..10u32).into_par_iter().take_any(50).count(), 10);
            assert_eq!((0..10u32).into_par_iter().skip_any(50).count(), 0);
            let below: Vec<u32> = (0..n)
                .into_par_iter()
                .take_any_while(|x| *x < 5_000)
                .collect();
            assert!(below.iter().all(|x| *x < 5_000) && distinct(&below));
            let rest: Vec<u32> = (0..n)
                .into_par_iter()
                .skip_any_while(|x| *x < 5_000)
                .collect();
            assert!(
                (5_000..n).all(|x| rest.contains(&x)),
                "items failing the predicate are never skipped"
            );
        });
    }
}

#[test]
fn owned_items_are_dropped_once_whether_taken_or_not() {
    let drops = Arc::new(AtomicUsize::new(0));
    let items: Vec<Counted> = (0..1000).map(|_| Counted(Arc::clone(&drops))).collect();
    assert_eq!(items.into_par_iter().take_any(3).count(), 3);
    assert_eq!(drops.load(Ordering::Relaxed), 1000);
    let items: Vec<Counted> = (0..1000).map(|_| Counted(Arc::clone(&drops))).collect();
    assert_eq!(items.into_par_iter().skip_any(990).count(), 10);
    assert_eq!(drops.load(Ordering::Relaxed), 2000);
}
