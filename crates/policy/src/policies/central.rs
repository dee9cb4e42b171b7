//! `central` (Qthreads CQ): one LIFO queue shared by every worker. Depth-first order
//! close to the serial one, which suits a shared cache; contention grows with the
//! number of workers.

use crate::{Layout, Place, Policy, Probe, TaskInfo, WorkerId};

/// One central LIFO queue.
#[derive(Debug, Default)]
pub struct Central;

impl Policy for Central {
    fn name(&self) -> &'static str {
        "central"
    }

    fn layout(&self) -> Layout {
        Layout {
            central: true,
            always_local: false,
            ..Layout::deques()
        }
    }

    fn place(&self, _spawner: WorkerId, _parent: &TaskInfo, _task: &TaskInfo) -> Place {
        Place::Central
    }

    fn search(&self, _worker: WorkerId, plan: &mut Vec<Probe>) {
        plan.push(Probe::Central);
    }
}
