//! The executors: `join` returns both results, `for_range` covers the range exactly
//! once in chunks of at most `grain`, `install` runs inside the pool.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use locus_kernels::{Executor, Rayon, Serial};

fn check_for_range<E: Executor>(ex: &E) {
    for (range, grain) in [
        (0..0, 1),
        (0..1, 1),
        (3..103, 7),
        (10..20, 10),
        (0..1000, 1),
        (5..6, 100),
    ] {
        let hits: Vec<AtomicUsize> = (0..range.end).map(|_| AtomicUsize::new(0)).collect();
        let chunks = Mutex::new(Vec::<Range<usize>>::new());
        ex.install(|| {
            ex.for_range(range.clone(), grain, |r| {
                assert!(
                    !r.is_empty() && r.len() <= grain,
                    "chunk {r:?} grain {grain}"
                );
                for i in r.clone() {
                    hits[i].fetch_add(1, Ordering::Relaxed);
                }
                chunks.lock().unwrap().push(r);
            })
        });
        for (i, h) in hits.iter().enumerate() {
            let want = usize::from(range.contains(&i));
            assert_eq!(
                h.load(Ordering::Relaxed),
                want,
                "{} index {i} of {range:?}",
                ex.name()
            );
        }
        assert_eq!(
            chunks.into_inner().unwrap().len(),
            range.len().div_ceil(grain)
        );
    }
}

#[test]
fn serial_executor() {
    assert_eq!(Serial.name(), "serial");
    let order = Mutex::new(Vec::new());
    let (a, b) = Serial.join(
        || {
            order.lock().unwrap().push('a');
            1
        },
        || {
            order.lock().unwrap().push('b');
            "two"
        },
    );
    assert_eq!((a, b), (1, "two"));
    assert_eq!(*order.lock().unwrap(), ['a', 'b']);
    let chunks = Mutex::new(Vec::new());
    Serial.for_range(0..10, 4, |r| chunks.lock().unwrap().push(r));
    assert_eq!(chunks.into_inner().unwrap(), [0..4, 4..8, 8..10]);
    check_for_range(&Serial);
}

#[test]
fn rayon_executor() {
    for threads in [1, 2, 4] {
        let ex = Rayon::new(threads).unwrap();
        assert_eq!(ex.name(), "rayon");
        assert_eq!(ex.threads(), threads);
        let inside = ex.install(|| rayon::current_thread_index().is_some());
        assert!(inside, "install runs on a pool thread");
        let (a, b) = ex.install(|| ex.join(|| 40 + 2, || vec![1, 2]));
        assert_eq!((a, b), (42, vec![1, 2]));
        check_for_range(&ex);
    }
}

#[test]
#[should_panic(expected = "grain")]
fn zero_grain_panics() {
    Serial.for_range(0..10, 0, |_| {});
}
