//! Perft speed per variant from the start position (bulk counting at the
//! last ply, one thread). Throughput is reported in leaves.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kondavo::movegen::perft::perft;
use kondavo::position::Position;
use kondavo::rules::Rules;
use kondavo::{with_rules, Variant};

/// Depth per variant: a few million leaves each.
fn depth(v: Variant) -> u32 {
    match v {
        Variant::International => 7,
        Variant::Turkish => 6,
        _ => 8,
    }
}

fn bench_variant<R: Rules>(c: &mut Criterion, d: u32) {
    let pos = Position::<R>::start();
    let leaves = perft::<R, false>(&pos, d);
    let mut g = c.benchmark_group(format!("perft/{}", R::NAME));
    g.throughput(Throughput::Elements(leaves));
    g.sample_size(10);
    g.bench_function(format!("start/d{d}"), |b| {
        b.iter(|| perft::<R, false>(&pos, d))
    });
    g.finish();
}

fn perft_benches(c: &mut Criterion) {
    for v in Variant::ALL {
        with_rules!(v, R => bench_variant::<R>(c, depth(v)));
    }
}

criterion_group!(benches, perft_benches);
criterion_main!(benches);
