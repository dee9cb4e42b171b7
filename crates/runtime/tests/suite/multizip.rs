//! Tuples zipped by `into_par_iter` (`src/iter/multizip.rs`) and `par_array_windows`:
//! rayon's answers, owned items dropped once.

use crate::counted::Counted;
use locus::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

#[test]
fn tuples_zip_their_members_up_to_the_shortest() {
    let a: Vec<u32> = (0..1000).collect();
    let b: Vec<u64> = (0..1000).map(|x| x * 2).collect();
    let c: Vec<u8> = (0..700).map(|x| (x % 256) as u8).collect();
    let zipped: Vec<(&u32, &u64, &u8)> = (&a, &b, &c).into_par_iter().collect();
    assert_eq!(zipped.len(), 700);
    assert!(zipped
        .iter()
        .enumerate()
        .all(|(i, &(x, y, z))| *x as usize == i && *y == 2 * *x as u64 && *z == (i % 256) as u8));
    assert_eq!((&a,).into_par_iter().len(), 1000);
    let sums: u64 = (a.par_iter(), 0..1000u64, b.par_iter().rev())
        .into_par_iter()
        .map(|(x, y, z)| *x as u64 + y + z)
        .sum();
    assert_eq!(
        sums,
        (0..1000u64).map(|i| i + i + 2 * (999 - i)).sum::<u64>()
    );
    let wide = (&a, &a, &a, &a, &a, &a, &a, &a, &a, &a, &a, &a);
    assert_eq!(wide.into_par_iter().filter(|t| *t.11 % 2 == 0).count(), 500);
    let mut target = vec![0u32; 1000];
    (&mut target, &a)
        .into_par_iter()
        .for_each(|(t, x)| *t = x + 1);
    assert!(target.iter().enumerate().all(|(i, t)| *t as usize == i + 1));
    let mut pair = (vec![1u8; 10], vec![2u8; 10]);
    (&mut pair)
        .into_par_iter()
        .for_each(|(x, y)| std::mem::swap(x, y));
    assert_eq!(pair, (vec![2u8; 10], vec![1u8; 10]));
}

#[test]
fn owned_members_are_dropped_once_beyond_the_shortest_too() {
    let drops = Arc::new(AtomicUsize::new(0));
    let make = |n: usize| {
        (0..n)
            .map(|_| Counted(Arc::clone(&drops)))
            .collect::<Vec<_>>()
    };
    let pairs = (make(100), make(60)).into_par_iter().count();
    assert_eq!(pairs, 60);
    assert_eq!(drops.load(Ordering::Relaxed), 160);
}

#[test]
fn array_windows_are_the_windows_as_arrays() {
    let v: Vec<u32> = (0..500).collect();
    let windows: Vec<&[u32; 3]> = v.par_array_windows::<3>().collect();
    assert_eq!(windows.len(), 498);
    assert!(windows
        .iter()
        .zip(v.windows(3))
        .all(|(a, w)| a.as_slice() == w));
    assert_eq!(v[..2].par_array_windows::<3>().count(), 0);
    assert_eq!(
        v.par_array_windows::<2>()
            .rev()
            .map(|[a, b]| a + b)
            .take(2)
            .collect::<Vec<_>>(),
        vec![997, 995]
    );
}

#[test]
#[should_panic(expected = "window size must not be zero")]
fn array_windows_of_zero_panic_as_rayons() {
    let v = [1, 2, 3];
    let _ = v.par_array_windows::<0>();
}
