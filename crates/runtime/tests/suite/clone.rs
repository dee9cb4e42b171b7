//! Iterators rayon makes `Clone` are `Clone` here too, and a clone gives the same items.

use locus::prelude::*;

/// The items of a clone of `iter`, and of `iter`, agree.
fn same_as_clone<'a, I>(iter: I)
where
    I: ParallelIterator<Item = &'a [u32]> + Clone,
{
    let clone: Vec<Vec<u32>> = iter.clone().map(<[u32]>::to_vec).collect();
    assert_eq!(clone, iter.map(<[u32]>::to_vec).collect::<Vec<_>>());
}

#[test]
fn chunk_iterators_and_while_some_clone() {
    let v: Vec<u32> = (0..100).collect();
    same_as_clone(v.par_chunks(7));
    same_as_clone(v.par_chunks_exact(7));
    same_as_clone(v.par_rchunks(7));
    same_as_clone(v.par_rchunks_exact(7));
    // Without a `None`, the clone and the original give every item.
    let options: Vec<Option<u32>> = (0..10).map(Some).collect();
    let some = options.par_iter().cloned().while_some();
    assert_eq!(
        some.clone().collect::<Vec<u32>>(),
        (0..10).collect::<Vec<_>>()
    );
    assert_eq!(some.collect::<Vec<u32>>(), (0..10).collect::<Vec<_>>());
}
