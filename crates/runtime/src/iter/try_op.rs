//! [`Try`]: what `try_fold`, `try_reduce` and `try_for_each` accept, `Option`, `Result`
//! and `ControlFlow`, as std's unstable `Try` trait would (rayon has its own for the same
//! reason).

use std::convert::Infallible;
use std::ops::ControlFlow;

/// A value that either goes on with an `Output` or stops with a `Residual`.
pub trait Try {
    /// What a success carries.
    type Output;
    /// What a failure carries, to rebuild the failure from.
    type Residual;

    /// A success.
    fn from_output(output: Self::Output) -> Self;

    /// A failure.
    fn from_residual(residual: Self::Residual) -> Self;

    /// Splits the value into going on (`Continue`) or stopping (`Break`).
    fn branch(self) -> ControlFlow<Self::Residual, Self::Output>;
}

impl<T> Try for Option<T> {
    type Output = T;
    type Residual = Option<Infallible>;

    fn from_output(output: T) -> Self {
        Some(output)
    }

    fn from_residual(_: Option<Infallible>) -> Self {
        None
    }

    fn branch(self) -> ControlFlow<Option<Infallible>, T> {
        match self {
            Some(x) => ControlFlow::Continue(x),
            None => ControlFlow::Break(None),
        }
    }
}

impl<T, E> Try for Result<T, E> {
    type Output = T;
    type Residual = Result<Infallible, E>;

    fn from_output(output: T) -> Self {
        Ok(output)
    }

    fn from_residual(residual: Result<Infallible, E>) -> Self {
        match residual {
            Err(e) => Err(e),
            Ok(never) => match never {},
        }
    }

    fn branch(self) -> ControlFlow<Result<Infallible, E>, T> {
        match self {
            Ok(x) => ControlFlow::Continue(x),
            Err(e) => ControlFlow::Break(Err(e)),
        }
    }
}

impl<B, C> Try for ControlFlow<B, C> {
    type Output = C;
    type Residual = ControlFlow<B, Infallible>;

    fn from_output(output: C) -> Self {
        ControlFlow::Continue(output)
    }

    fn from_residual(residual: ControlFlow<B, Infallible>) -> Self {
        match residual {
            ControlFlow::Break(b) => ControlFlow::Break(b),
            ControlFlow::Continue(never) => match never {},
        }
    }

    fn branch(self) -> ControlFlow<ControlFlow<B, Infallible>, C> {
        match self {
            ControlFlow::Continue(c) => ControlFlow::Continue(c),
            ControlFlow::Break(b) => ControlFlow::Break(ControlFlow::Break(b)),
        }
    }
}

/// Folds `items` into `acc` by `op` until a step fails;
/// a failure is returned as it is.
pub(super) fn try_fold_items<T, R, X>(
    mut acc: T,
    items: impl Iterator<Item = X>,
    op: impl Fn(T, X) -> R,
) -> R
where
    R: Try<Output = T>,
{
    for x in items {
        match op(acc, x).branch() {
            ControlFlow::Continue(next) => acc = next,
            ControlFlow::Break(r) => return R::from_residual(r),
        }
    }
    R::from_output(acc)
}
