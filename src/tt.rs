//! The transposition table: one table shared by every search thread.
//!
//! # Concurrency contract
//!
//! The table is an array of cache-line buckets of atomic 64-bit words,
//! read and written with relaxed atomics and no locks. Threads race freely:
//! two threads may write the same slot at once, and a reader may see one
//! thread's key word with
//! another's data word. Each slot therefore stores `key ^ data` next to
//! `data`; a probe accepts an entry only when `stored ^ data == key`, so a
//! torn entry is simply a miss (Hyatt's lockless hashing). A 64-bit key can
//! still collide with another position's key, so **a move taken from the
//! table is checked against the legal moves of the position before it is
//! played** (see [`TtMove::find`]). Scores from the table are only ever
//! search hints; a wrong one can cost strength, never legality or safety.
//! There is no `unsafe` code here ([`TranspositionTable::prefetch`] uses
//! `safe_arch`'s safe wrapper of the prefetch instruction).

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use crate::movegen::{Move, MoveList};

/// Kind of bound a stored score is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true score is at least this (a fail-high).
    Lower = 1,
    /// The true score is at most this (a fail-low).
    Upper = 2,
    /// The exact score.
    Exact = 3,
}

/// A move as the table keeps it: its index in the generated move list and
/// its from and to squares, so that it can be verified.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TtMove {
    /// Index in the legal move list of the position.
    pub index: u8,
    /// Bit index of the origin.
    pub from: u8,
    /// Bit index of the destination.
    pub to: u8,
}

impl TtMove {
    /// Packs move `list[index]`.
    pub fn new(list: &MoveList, index: usize) -> Self {
        let m = &list[index];
        TtMove {
            index: index.min(255) as u8,
            from: m.from,
            to: m.to,
        }
    }

    /// Finds this move in the legal move list of the position it was stored
    /// for: the index must be in range and the squares must agree.
    pub fn find(&self, list: &MoveList) -> Option<usize> {
        let i = self.index as usize;
        match list.get(i) {
            Some(m) if m.from == self.from && m.to == self.to => Some(i),
            _ => None,
        }
    }

    /// The move itself, if it is legal in `list`.
    pub fn to_move(&self, list: &MoveList) -> Option<Move> {
        self.find(list).map(|i| list[i])
    }
}

/// What a probe returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Score (relative to the side to move; win scores are stored relative to
    /// the node, see the search).
    pub score: i32,
    /// Depth of the search that produced it.
    pub depth: i32,
    /// Bound kind.
    pub bound: Bound,
    /// Best move, if one was found.
    pub mv: Option<TtMove>,
}

const SLOTS_PER_BUCKET: usize = 4;

/// Four slots of two words: `key ^ data`, then `data`. Aligned so that a
/// bucket is exactly one cache line and a probe costs one memory access.
#[derive(Debug)]
#[repr(align(64))]
struct Bucket([AtomicU64; 2 * SLOTS_PER_BUCKET]);

impl Bucket {
    fn new() -> Self {
        Bucket(std::array::from_fn(|_| AtomicU64::new(0)))
    }
}

/// The shared table.
#[derive(Debug)]
pub struct TranspositionTable {
    buckets: Vec<Bucket>,
    age: AtomicU8,
}

fn pack(score: i32, depth: i32, bound: Bound, age: u8, mv: Option<TtMove>) -> u64 {
    let score = (score.clamp(i16::MIN as i32, i16::MAX as i32) as i16) as u16 as u64;
    let depth = depth.clamp(0, 255) as u64;
    let (has, idx, from, to) = match mv {
        Some(m) => (1u64, m.index as u64, m.from as u64, m.to as u64),
        None => (0, 0, 0, 0),
    };
    score
        | depth << 16
        | (bound as u64) << 24
        | ((age & 0x3F) as u64) << 26
        | has << 32
        | idx << 33
        | from << 41
        | to << 47
}

fn unpack(data: u64) -> (Entry, u8) {
    let score = (data & 0xFFFF) as u16 as i16 as i32;
    let depth = ((data >> 16) & 0xFF) as i32;
    let bound = match (data >> 24) & 3 {
        1 => Bound::Lower,
        2 => Bound::Upper,
        _ => Bound::Exact,
    };
    let age = ((data >> 26) & 0x3F) as u8;
    let mv = if (data >> 32) & 1 == 1 {
        Some(TtMove {
            index: ((data >> 33) & 0xFF) as u8,
            from: ((data >> 41) & 0x3F) as u8,
            to: ((data >> 47) & 0x3F) as u8,
        })
    } else {
        None
    };
    (
        Entry {
            score,
            depth,
            bound,
            mv,
        },
        age,
    )
}

impl TranspositionTable {
    /// A table of about `mib` mebibytes (at least one bucket).
    pub fn new(mib: usize) -> Self {
        let bytes = mib.max(1) * 1024 * 1024;
        let n = (bytes / std::mem::size_of::<Bucket>()).max(1);
        TranspositionTable {
            buckets: (0..n).map(|_| Bucket::new()).collect(),
            age: AtomicU8::new(0),
        }
    }

    /// Size in MiB.
    pub fn size_mib(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>() / (1024 * 1024)
    }

    /// Empties the table (between games).
    pub fn clear(&self) {
        for b in &self.buckets {
            for w in &b.0 {
                w.store(0, Ordering::Relaxed);
            }
        }
    }

    /// Starts a new search: older entries become preferred victims.
    pub fn new_search(&self) {
        let a = self.age.load(Ordering::Relaxed);
        self.age.store(a.wrapping_add(1) & 0x3F, Ordering::Relaxed);
    }

    fn bucket(&self, key: u64) -> &[AtomicU64; 2 * SLOTS_PER_BUCKET] {
        &self.buckets[((key as u128 * self.buckets.len() as u128) >> 64) as usize].0
    }

    /// Asks the processor to start loading the bucket of `key`, so that a
    /// probe soon after finds it in cache instead of waiting on memory.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
        safe_arch::prefetch_t0(self.bucket(key));
        #[cfg(not(all(target_arch = "x86_64", target_feature = "sse")))]
        let _ = key;
    }

    /// Looks a position up.
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let b = self.bucket(key);
        for s in 0..SLOTS_PER_BUCKET {
            let check = b[2 * s].load(Ordering::Relaxed);
            let data = b[2 * s + 1].load(Ordering::Relaxed);
            if data != 0 && check ^ data == key {
                return Some(unpack(data).0);
            }
        }
        None
    }

    /// Stores a search result. An entry for the same key is replaced (its
    /// move kept if the new result has none); otherwise the slot with the
    /// shallowest, oldest entry.
    pub fn store(&self, key: u64, score: i32, depth: i32, bound: Bound, mv: Option<TtMove>) {
        let age = self.age.load(Ordering::Relaxed);
        let b = self.bucket(key);
        let mut victim = 0;
        let mut victim_worth = i32::MAX;
        for s in 0..SLOTS_PER_BUCKET {
            let i = 2 * s;
            let check = b[i].load(Ordering::Relaxed);
            let data = b[i + 1].load(Ordering::Relaxed);
            if data == 0 {
                if victim_worth > i32::MIN {
                    victim = i;
                    victim_worth = i32::MIN;
                }
                continue;
            }
            if check ^ data == key {
                let (old, _) = unpack(data);
                let mv = mv.or(old.mv);
                if bound == Bound::Exact || depth + 2 >= old.depth {
                    let d = pack(score, depth, bound, age, mv);
                    b[i].store(key ^ d, Ordering::Relaxed);
                    b[i + 1].store(d, Ordering::Relaxed);
                }
                return;
            }
            let (e, a) = unpack(data);
            let stale = (age.wrapping_sub(a) & 0x3F) as i32;
            let worth = e.depth - 8 * stale;
            if worth < victim_worth {
                victim_worth = worth;
                victim = i;
            }
        }
        let d = pack(score, depth, bound, age, mv);
        b[victim].store(key ^ d, Ordering::Relaxed);
        b[victim + 1].store(d, Ordering::Relaxed);
    }

    /// Permille of sampled slots used by the current search.
    pub fn hashfull(&self) -> u32 {
        let age = self.age.load(Ordering::Relaxed);
        let n = 1000.min(self.buckets.len());
        let used = self.buckets[..n]
            .iter()
            .flat_map(|b| {
                (0..SLOTS_PER_BUCKET).map(move |s| b.0[2 * s + 1].load(Ordering::Relaxed))
            })
            .filter(|&data| data != 0 && unpack(data).1 == age)
            .count();
        (used * 1000 / (n * SLOTS_PER_BUCKET).max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_round_trip() {
        let mv = TtMove {
            index: 200,
            from: 63,
            to: 5,
        };
        for (score, depth, bound) in [
            (-31000, 0, Bound::Upper),
            (123, 64, Bound::Exact),
            (31000, 255, Bound::Lower),
        ] {
            let (e, age) = unpack(pack(score, depth, bound, 17, Some(mv)));
            assert_eq!(
                e,
                Entry {
                    score,
                    depth,
                    bound,
                    mv: Some(mv)
                }
            );
            assert_eq!(age, 17);
        }
        assert_eq!(unpack(pack(5, 3, Bound::Lower, 0, None)).0.mv, None);
    }

    #[test]
    fn store_and_probe() {
        let tt = TranspositionTable::new(1);
        tt.store(0xDEAD_BEEF, 42, 7, Bound::Exact, None);
        let e = tt.probe(0xDEAD_BEEF).unwrap();
        assert_eq!((e.score, e.depth, e.bound), (42, 7, Bound::Exact));
        assert!(tt.probe(0xDEAD_BEEE).is_none());
        tt.clear();
        assert!(tt.probe(0xDEAD_BEEF).is_none());
    }
}
