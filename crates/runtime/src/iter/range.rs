//! Ranges as parallel iterators: `a..b` and `a..=b` of every primitive integer type and
//! of `char`.
//!
//! One generic impl per range kind, bounded by [`RangeValue`] on the element type, as
//! rayon's are: so `(0..10).into_par_iter()` with untyped literals leaves the compiler a
//! constraint on the integer type itself (`{integer}: RangeValue`), which its fallback
//! settles as `i32`, as it does for std's ranges. (Impls per concrete range type leave it
//! with several candidate impls and no fallback: "type annotations needed".)
//!
//! A range's values are counted in `u128`. Position `p` holds values `p * per ..
//! (p + 1) * per` (fewer in the last), where `per` is 1 whenever the count fits in a
//! `usize`: then item `i` is position `i` and the range is indexed. Only a range of more
//! than `usize::MAX` values (of `u128`, `i128`, or `0..=u64::MAX`) has `per > 1`; those
//! types' ranges are not indexed, as in rayon. `char` ranges skip the surrogates
//! (`U+D800..=U+DFFF`), as std's do.
//!
//! A leaf's values are std's range of the same kind, so a leaf runs as std's loop does.

use super::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use std::ops::{Range, RangeInclusive};

mod sealed {
    /// Only the types of this module are range values.
    pub trait Sealed {}
}

/// An element type of a parallel range: the primitive integers and `char`.
///
/// Sealed: implemented here for those types only.
pub trait RangeValue: Copy + PartialOrd + Send + Sync + sealed::Sealed + 'static {
    /// How many values lie in `start..end`: 0 when `end <= start`.
    fn distance(start: Self, end: Self) -> u128;

    /// The value `n` values after `start`; `n` must not go past the type's last value.
    fn advance(start: Self, n: u128) -> Self;
}

/// The range values whose exclusive ranges are indexed (every count fits in a `usize`).
pub trait IndexedRangeValue: RangeValue {}

/// The range values whose inclusive ranges are indexed (`MAX - MIN + 1` fits in a
/// `usize`).
pub trait IndexedInclusiveValue: RangeValue {}

macro_rules! integer_value {
    ($($t:ty: $unsigned:ty),*) => {$(
        impl sealed::Sealed for $t {}

        impl RangeValue for $t {
            #[inline]
            fn distance(start: $t, end: $t) -> u128 {
                if start < end {
                    // In the type's width the difference wraps to the true distance,
                    // which is at most `MAX - MIN` and so fits its unsigned twin.
                    end.wrapping_sub(start) as $unsigned as u128
                } else {
                    0
                }
            }

            #[inline]
            fn advance(start: $t, n: u128) -> $t {
                // The true value lies in the type: arithmetic modulo its width gives it.
                start.wrapping_add(n as $t)
            }
        }
    )*};
}

integer_value!(
    u8: u8, u16: u16, u32: u32, u64: u64, u128: u128, usize: usize,
    i8: u8, i16: u16, i32: u32, i64: u64, i128: u128, isize: usize
);

macro_rules! marker {
    ($marker:ident: $($t:ty),*) => {$(impl $marker for $t {})*};
}

marker!(IndexedRangeValue: u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, char);
marker!(IndexedInclusiveValue: u8, u16, u32, i8, i16, i32, char);

/// The first surrogate code point, and how many there are: `char` values skip them.
const SURROGATES: (u32, u32) = (0xD800, 0x800);

impl sealed::Sealed for char {}

impl RangeValue for char {
    fn distance(start: char, end: char) -> u128 {
        let (a, b) = (start as u32, end as u32);
        if a >= b {
            return 0;
        }
        let gap = if a < SURROGATES.0 && b > SURROGATES.0 {
            SURROGATES.1
        } else {
            0
        };
        u128::from(b - a - gap)
    }

    fn advance(start: char, n: u128) -> char {
        let a = start as u32;
        // `n` is at most the distance to a `char`, below 2^21.
        let mut x = a + n as u32;
        if a < SURROGATES.0 && x >= SURROGATES.0 {
            x += SURROGATES.1;
        }
        char::from_u32(x).expect("a char range's values are chars")
    }
}

/// How `count_minus_one + 1` values are laid on positions: `(per, positions)`.
fn layout(last: Option<u128>) -> (u128, usize) {
    match last {
        None => (1, 0),
        Some(last) => {
            // `per * usize::MAX > last`, so `positions <= usize::MAX`.
            let per = last / usize::MAX as u128 + 1;
            (per, (last / per + 1) as usize)
        }
    }
}

/// `into_par_iter()` of `a..b`: rayon's `range::Iter`.
#[derive(Debug, Clone)]
pub struct RangeIter<T> {
    range: Range<T>,
}

impl<T: RangeValue> RangeIter<T> {
    /// The offset of the last value, if any.
    fn last(&self) -> Option<u128> {
        T::distance(self.range.start, self.range.end).checked_sub(1)
    }
}

impl<T: RangeValue> IntoParallelIterator for Range<T>
where
    Range<T>: Iterator<Item = T>,
{
    type Iter = RangeIter<T>;
    type Item = T;

    fn into_par_iter(self) -> RangeIter<T> {
        RangeIter { range: self }
    }
}

impl<T: RangeValue> ParallelIterator for RangeIter<T>
where
    Range<T>: Iterator<Item = T>,
{
    type Item = T;
    type Seq<'a>
        = Range<T>
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        layout(self.last()).1
    }

    fn exact_len(&self) -> Option<usize> {
        match layout(self.last()) {
            (1, positions) => Some(positions),
            _ => None,
        }
    }

    unsafe fn seq(&self, range: Range<usize>) -> Range<T> {
        let count = T::distance(self.range.start, self.range.end);
        let (per, _) = layout(count.checked_sub(1));
        let lo = (range.start as u128).saturating_mul(per).min(count);
        let hi = (range.end as u128).saturating_mul(per).min(count);
        let start = self.range.start;
        T::advance(start, lo)..T::advance(start, hi)
    }
}

impl<T: IndexedRangeValue> IndexedParallelIterator for RangeIter<T> where
    Range<T>: Iterator<Item = T>
{
}

/// `into_par_iter()` of `a..=b`: rayon's `range_inclusive::Iter`.
#[derive(Debug, Clone)]
pub struct RangeInclusiveIter<T> {
    range: RangeInclusive<T>,
}

impl<T: RangeValue> RangeInclusiveIter<T>
where
    RangeInclusive<T>: Iterator<Item = T>,
{
    /// The offset of the last value, if any (`None` for an empty or exhausted range).
    fn last(&self) -> Option<u128> {
        if self.range.is_empty() {
            None
        } else {
            Some(T::distance(*self.range.start(), *self.range.end()))
        }
    }
}

impl<T: RangeValue> IntoParallelIterator for RangeInclusive<T>
where
    RangeInclusive<T>: Iterator<Item = T>,
{
    type Iter = RangeInclusiveIter<T>;
    type Item = T;

    fn into_par_iter(self) -> RangeInclusiveIter<T> {
        RangeInclusiveIter { range: self }
    }
}

impl<T: RangeValue> ParallelIterator for RangeInclusiveIter<T>
where
    RangeInclusive<T>: Iterator<Item = T>,
{
    type Item = T;
    type Seq<'a>
        = RangeInclusive<T>
    where
        Self: 'a;

    fn position_count(&self) -> usize {
        layout(self.last()).1
    }

    fn exact_len(&self) -> Option<usize> {
        match layout(self.last()) {
            (1, positions) => Some(positions),
            _ => None,
        }
    }

    unsafe fn seq(&self, range: Range<usize>) -> RangeInclusive<T> {
        let start = *self.range.start();
        let Some(last) = self.last().filter(|_| range.start < range.end) else {
            // An empty leaf: an exhausted range.
            let mut empty = start..=start;
            empty.next();
            return empty;
        };
        let (per, _) = layout(Some(last));
        let lo = (range.start as u128).saturating_mul(per).min(last);
        let hi = ((range.end as u128).saturating_mul(per) - 1).min(last);
        T::advance(start, lo)..=T::advance(start, hi)
    }
}

impl<T: IndexedInclusiveValue> IndexedParallelIterator for RangeInclusiveIter<T> where
    RangeInclusive<T>: Iterator<Item = T>
{
}
