//! Iterators rayon makes `Clone` are `Clone` here too, and a clone gives the same items.

use locus::prelude::*;

#[test]
fn chunk_iterators_and_while_some_clone() {
    let v: Vec<u32> = (0..100).collect();
    let same = |a: Vec<Vec<u32>>, b: Vec<Vec<u32>>| assert_eq!(a, b);
    let chunks = v.par_chunks(7);
    same(
        chunks.clone().map(<[u32]>::to_vec).collect(),
        chunks.map(<[u32]>::to_vec).collect(),
    );
    let exact = v.par_chunks_exact(7);
    same(
        exact.clone().map(<[u32]>::to_vec).collect(),
        exact.map(<[u32]>::to_vec).collect(),
    );
    let rchunks = v.par_rchunks(7);
    same(
        rchunks.clone().map(<[u32]>::to_vec).collect(),
        rchunks.map(<[u32]>::to_vec).collect(),
    );
    let rexact = v.par_rchunks_exact(7);
    same(
        rexact.clone().map(<[u32]>::to_vec).collect(),
        rexact.map(<[u32]>::to_vec).collect(),
    );
    // Without a `None`, the clone and the original give every item.
    let options: Vec<Option<u32>> = (0..10).map(Some).collect();
    let some = options.par_iter().cloned().while_some();
    assert_eq!(
        some.clone().collect::<Vec<u32>>(),
        (0..10).collect::<Vec<_>>()
    );
    assert_eq!(some.collect::<Vec<u32>>(), (0..10).collect::<Vec<_>>());
}
