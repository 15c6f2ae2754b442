//! Legal move generation and copy-make per variant, over a fixed set of
//! positions taken from deterministic pseudo-random playouts (so captures,
//! kings and promotions all occur).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kondavo::movegen::{generate, MoveList};
use kondavo::position::Position;
use kondavo::rules::Rules;
use kondavo::{with_rules, Variant};

/// Positions from playouts driven by a xorshift generator.
fn playout_positions<R: Rules>(games: usize) -> Vec<Position<R>> {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = Position::<R>::start();
        for _ in 0..120 {
            let mut list = MoveList::new();
            generate(&pos, &mut list);
            if list.is_empty() {
                break;
            }
            out.push(pos);
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            pos = pos.played(&list[(seed % list.len() as u64) as usize]);
        }
    }
    out
}

fn bench_variant<R: Rules>(c: &mut Criterion) {
    let positions = playout_positions::<R>(40);
    let mut g = c.benchmark_group(format!("movegen/{}", R::NAME));
    g.throughput(Throughput::Elements(positions.len() as u64));
    g.bench_function("generate", |b| {
        b.iter(|| {
            let mut n = 0;
            for p in &positions {
                let mut list = MoveList::new();
                generate(p, &mut list);
                n += list.len();
            }
            n
        })
    });
    g.bench_function("generate+play", |b| {
        b.iter(|| {
            let mut keys = 0u64;
            for p in &positions {
                let mut list = MoveList::new();
                generate(p, &mut list);
                for m in &list {
                    keys ^= p.played(m).key();
                }
            }
            keys
        })
    });
    g.finish();
}

fn movegen_benches(c: &mut Criterion) {
    for v in Variant::ALL {
        with_rules!(v, R => bench_variant::<R>(c));
    }
}

criterion_group!(benches, movegen_benches);
criterion_main!(benches);
