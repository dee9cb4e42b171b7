//! [`PolicyFactory`]: how an engine gets its policy once it knows its workers.
//!
//! Both engines build the policy for their [`WorkerMap`] (the pool builder when it
//! starts the workers, the simulator for the simulated ones). A factory is that step as
//! a value, so a policy that is not a [`PolicyKind`] (a user's own, or a decorator such
//! as [`crate::Logged`]) runs in either engine.

use std::fmt;
use std::sync::Arc;

use crate::{Policy, PolicyKind, WorkerMap};

/// The function that builds a policy for an engine's workers.
type Build = dyn Fn(&WorkerMap) -> Arc<dyn Policy> + Send + Sync;

/// Builds a policy for an engine's workers; cheap to clone.
#[derive(Clone)]
pub struct PolicyFactory {
    name: String,
    build: Arc<Build>,
}

impl PolicyFactory {
    /// A factory named `name` (as reports spell the policy) that calls `build`.
    pub fn new(
        name: impl Into<String>,
        build: impl Fn(&WorkerMap) -> Arc<dyn Policy> + Send + Sync + 'static,
    ) -> PolicyFactory {
        PolicyFactory {
            name: name.into(),
            build: Arc::new(build),
        }
    }

    /// The policy's name, as reports spell it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The policy for the workers of `map`.
    pub fn build(&self, map: &WorkerMap) -> Arc<dyn Policy> {
        (self.build)(map)
    }
}

impl From<PolicyKind> for PolicyFactory {
    fn from(kind: PolicyKind) -> PolicyFactory {
        PolicyFactory::new(kind.to_string(), move |map| kind.build(map))
    }
}

impl fmt::Debug for PolicyFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PolicyFactory")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}
