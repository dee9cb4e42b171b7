//! Tuples of indexed parallel iterators zipped into one: rayon's `MultiZip`, what
//! `(a, b, c).into_par_iter()` (and `(&a, &b).into_par_iter()`, `(&mut a, ..)`) gives,
//! for tuples of one to twelve. Position `i` is item `i` of every member, as in
//! [`super::Zip`]; the length is the shortest member's.

use super::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use super::{IntoParallelRefIterator, IntoParallelRefMutIterator};
use std::ops::Range;

/// The members of a tuple zipped: the iterator of a tuple's `into_par_iter()`.
#[derive(Debug, Clone)]
pub struct MultiZip<T> {
    tuple: T,
}

/// A leaf of a [`MultiZip`]: the members' leaves, advanced together.
#[derive(Debug)]
pub struct MultiZipSeq<T>(T);

/// The impls for one tuple length: `$T` the members' types, `$i` their fields.
macro_rules! multizip {
    ($($T:ident $i:tt),+) => {
        impl<$($T: IndexedParallelIterator),+> ParallelIterator for MultiZip<($($T,)+)> {
            type Item = ($($T::Item,)+);
            type Seq<'a>
                = MultiZipSeq<($($T::Seq<'a>,)+)>
            where
                Self: 'a;

            fn position_count(&self) -> usize {
                usize::MAX $(.min(self.tuple.$i.position_count()))+
            }

            fn exact_len(&self) -> Option<usize> {
                Some(self.position_count())
            }

            fn leaf_bounds(&self) -> (usize, usize) {
                let bounds = [$(self.tuple.$i.leaf_bounds()),+];
                bounds.iter().fold((1, usize::MAX), |(lo, hi), &(min, max)| (lo.max(min), hi.min(max)))
            }

            fn driven(&mut self, positions: usize) {
                $(self.tuple.$i.driven(positions);)+
            }

            unsafe fn seq(&self, range: Range<usize>) -> Self::Seq<'_> {
                // SAFETY: forwarded from the caller; every member is indexed and the
                // range is below each one's positions.
                MultiZipSeq(($(unsafe { self.tuple.$i.seq(range.clone()) },)+))
            }
        }

        impl<$($T: IndexedParallelIterator),+> IndexedParallelIterator for MultiZip<($($T,)+)> {}

        impl<$($T: Iterator),+> Iterator for MultiZipSeq<($($T,)+)> {
            type Item = ($($T::Item,)+);

            fn next(&mut self) -> Option<Self::Item> {
                Some(($(self.0.$i.next()?,)+))
            }
        }

        impl<$($T),+> IntoParallelIterator for ($($T,)+)
        where
            $($T: IntoParallelIterator, $T::Iter: IndexedParallelIterator,)+
        {
            type Iter = MultiZip<($($T::Iter,)+)>;
            type Item = ($($T::Item,)+);

            fn into_par_iter(self) -> Self::Iter {
                MultiZip { tuple: ($(self.$i.into_par_iter(),)+) }
            }
        }

        impl<'a, $($T),+> IntoParallelIterator for &'a ($($T,)+)
        where
            $($T: IntoParallelRefIterator<'a>, $T::Iter: IndexedParallelIterator,)+
        {
            type Iter = MultiZip<($($T::Iter,)+)>;
            type Item = ($($T::Item,)+);

            fn into_par_iter(self) -> Self::Iter {
                MultiZip { tuple: ($(self.$i.par_iter(),)+) }
            }
        }

        impl<'a, $($T),+> IntoParallelIterator for &'a mut ($($T,)+)
        where
            $($T: IntoParallelRefMutIterator<'a>, $T::Iter: IndexedParallelIterator,)+
        {
            type Iter = MultiZip<($($T::Iter,)+)>;
            type Item = ($($T::Item,)+);

            fn into_par_iter(self) -> Self::Iter {
                MultiZip { tuple: ($(self.$i.par_iter_mut(),)+) }
            }
        }
    };
}

multizip!(A 0);
multizip!(A 0, B 1);
multizip!(A 0, B 1, C 2);
multizip!(A 0, B 1, C 2, D 3);
multizip!(A 0, B 1, C 2, D 3, E 4);
multizip!(A 0, B 1, C 2, D 3, E 4, F 5);
multizip!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
multizip!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
multizip!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
multizip!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
multizip!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
multizip!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);
