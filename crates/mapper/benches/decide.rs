//! Guards the cost of one decision round of the mapper (`Mapper::decide`) at the
//! scale of the paper's larger machine: 80 hardware threads (`xeon-e7-4820v3`,
//! 4 sockets x 10 cores x 2 PUs) running 80 application threads (4 applications x
//! 20: HuBench, LuBench, MemBench and the phased application of locus-mapper's
//! workloads). The history is warm (30 rounds first), and every measured round
//! gets the samples of a fresh simulated interval with the previous round's moves
//! applied, as the daemon would; simulating the interval is not timed. The target:
//! under 50 µs per round (the paper's interval is 100 ms).

use std::cell::RefCell;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use locus_mapper::workload::{linux_placement, AppKind, MixSpec, World};
use locus_mapper::{Config, MachineShape, Mapper, Move};
use locus_topo::Topology;

const MIX: MixSpec = MixSpec {
    name: "bench-4x20",
    description: "HuBench, LuBench, MemBench and the phased application, 20 threads each",
    apps: &[
        (AppKind::HuBench, 20),
        (AppKind::LuBench, 20),
        (AppKind::MemBench, 20),
        (AppKind::Phased, 20),
    ],
};

fn decide(c: &mut Criterion) {
    let topology = Topology::preset("xeon-e7-4820v3").expect("preset");
    let shape = MachineShape::from_topology(&topology);
    let placement = linux_placement(&shape, MIX.threads());
    let mut world = World::new(&MIX, &topology, 1, &placement).expect("the mix fits");
    let mut mapper = Mapper::new(shape, Config::default());
    for _ in 0..30 {
        let samples = world.step();
        let moves = mapper.decide(&samples);
        world.apply(&moves);
    }
    let world = RefCell::new(world);
    let pending: RefCell<Vec<Move>> = RefCell::new(Vec::new());
    c.bench_function("decide 80 threads on 80 PUs (warm)", |b| {
        b.iter_batched(
            || {
                let mut w = world.borrow_mut();
                w.apply(&pending.borrow());
                let samples = w.step();
                assert_eq!(samples.len(), 80);
                samples
            },
            |samples| *pending.borrow_mut() = mapper.decide(black_box(&samples)),
            BatchSize::PerIteration,
        )
    });
}

criterion_group!(benches, decide);
criterion_main!(benches);
