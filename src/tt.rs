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
//!
//! # Allocation
//!
//! The table is allocated fallibly and zeroed lazily: the words come from
//! `bytemuck`'s zeroed allocation, which the system satisfies with pages it
//! zeroes on first use, so a table of many gigabytes is ready at once and
//! costs memory only as the search fills it. [`TranspositionTable::try_new`]
//! refuses a size of 0 or beyond [`max_hash_mib`] (half the machine's
//! memory) and reports a failed allocation instead of aborting.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::OnceLock;

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
/// Words of a bucket: four slots of two words, `key ^ data` then `data`.
const WORDS: usize = 2 * SLOTS_PER_BUCKET;
/// Bytes of a bucket: one cache line, so a probe costs one memory access.
const BUCKET_BYTES: usize = WORDS * std::mem::size_of::<AtomicU64>();
const MIB: usize = 1 << 20;
/// Largest table when the machine's memory cannot be read.
const FALLBACK_MAX_MIB: usize = 65_536;

/// The largest hash table accepted, in MiB: half the memory of the machine
/// (or of the control group the process runs in), read once; 65536 where
/// it cannot be read.
pub fn max_hash_mib() -> usize {
    static MAX: OnceLock<usize> = OnceLock::new();
    *MAX.get_or_init(|| match memory_bytes() {
        Some(bytes) => ((bytes / 2) / MIB as u64).clamp(1, 1 << 30) as usize,
        None => FALLBACK_MAX_MIB,
    })
}

/// Memory available to this process: physical memory, or less when a
/// control group limits it (Linux; `None` elsewhere).
fn memory_bytes() -> Option<u64> {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    let total = read("/proc/meminfo").and_then(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.trim().strip_suffix("kB"))
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(|kib| kib.saturating_mul(1024))
    });
    let limits = [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ]
    .into_iter()
    .filter_map(|p| read(p).and_then(|s| s.trim().parse::<u64>().ok()));
    total.into_iter().chain(limits).min()
}

/// Checks a hash size in MiB: at least 1, at most [`max_hash_mib`]. The
/// message names the size.
pub fn check_hash_mib(mib: usize) -> Result<(), String> {
    let max = max_hash_mib();
    if mib == 0 {
        Err("a hash table of 0 MiB is too small (at least 1 MiB)".to_string())
    } else if mib > max {
        Err(format!(
            "a hash table of {mib} MiB is more than this machine allows (at most {max} MiB, half its memory)"
        ))
    } else {
        Ok(())
    }
}

/// The shared table: buckets of [`WORDS`] atomic words, the first one at
/// word `offset` of `words` (aligned to a cache line).
pub struct TranspositionTable {
    words: Box<[AtomicU64]>,
    offset: usize,
    buckets: usize,
    age: AtomicU8,
    /// Whether anything was stored since the table was made or cleared (a
    /// fresh table needs no clearing, and clearing it would make the system
    /// back every page of it).
    used: AtomicBool,
}

impl std::fmt::Debug for TranspositionTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TranspositionTable {{ buckets: {} }}", self.buckets)
    }
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
    /// A table of `mib` MiB, or an error naming the size: 0 or more than
    /// [`max_hash_mib`], or memory the system would not give. Nothing is
    /// written to the memory, so even a large table is ready at once.
    pub fn try_new(mib: usize) -> Result<Self, String> {
        check_hash_mib(mib)?;
        Self::with_buckets(mib * MIB / BUCKET_BYTES)
            .map_err(|()| format!("cannot allocate a hash table of {mib} MiB: out of memory"))
    }

    /// A table of about `mib` MiB (0 gives a single bucket).
    ///
    /// # Panics
    ///
    /// When the memory cannot be allocated; sizes chosen by a user go
    /// through [`TranspositionTable::try_new`].
    pub fn new(mib: usize) -> Self {
        Self::with_buckets(mib.saturating_mul(MIB) / BUCKET_BYTES)
            .unwrap_or_else(|()| panic!("cannot allocate a hash table of {mib} MiB"))
    }

    /// A zeroed table of `buckets` buckets (at least one), if the memory can
    /// be had.
    fn with_buckets(buckets: usize) -> Result<Self, ()> {
        let buckets = buckets.max(1);
        // One bucket's worth of words more, to start on a cache line.
        let len = buckets
            .checked_add(1)
            .and_then(|b| b.checked_mul(WORDS))
            .ok_or(())?;
        let words = bytemuck::allocation::try_zeroed_slice_box::<AtomicU64>(len)?;
        let misalign = words.as_ptr() as usize % BUCKET_BYTES;
        let offset = (BUCKET_BYTES - misalign) % BUCKET_BYTES / std::mem::size_of::<AtomicU64>();
        Ok(TranspositionTable {
            words,
            offset,
            buckets,
            age: AtomicU8::new(0),
            used: AtomicBool::new(false),
        })
    }

    /// Size in MiB.
    pub fn size_mib(&self) -> usize {
        self.buckets * BUCKET_BYTES / MIB
    }

    /// Empties the table (between games). A table nothing was stored in
    /// since it was made or cleared is left alone.
    pub fn clear(&self) {
        if !self.used.swap(false, Ordering::Relaxed) {
            return;
        }
        for w in &self.words[..] {
            w.store(0, Ordering::Relaxed);
        }
    }

    /// Starts a new search: older entries become preferred victims.
    pub fn new_search(&self) {
        let a = self.age.load(Ordering::Relaxed);
        self.age.store(a.wrapping_add(1) & 0x3F, Ordering::Relaxed);
    }

    #[inline(always)]
    fn bucket_at(&self, index: usize) -> &[AtomicU64; WORDS] {
        let start = self.offset + index * WORDS;
        self.words[start..start + WORDS]
            .try_into()
            .expect("a bucket is WORDS words")
    }

    #[inline(always)]
    fn bucket(&self, key: u64) -> &[AtomicU64; WORDS] {
        self.bucket_at(((key as u128 * self.buckets as u128) >> 64) as usize)
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
        if !self.used.load(Ordering::Relaxed) {
            self.used.store(true, Ordering::Relaxed);
        }
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
        let n = 1000.min(self.buckets);
        let used = (0..n)
            .map(|i| self.bucket_at(i))
            .flat_map(|b| (0..SLOTS_PER_BUCKET).map(move |s| b[2 * s + 1].load(Ordering::Relaxed)))
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

    #[test]
    fn buckets_start_on_cache_lines() {
        for mib in [0, 1, 3] {
            let tt = TranspositionTable::new(mib);
            assert_eq!(tt.bucket(0).as_ptr() as usize % BUCKET_BYTES, 0);
            assert_eq!(tt.bucket(u64::MAX).as_ptr() as usize % BUCKET_BYTES, 0);
            assert_eq!(tt.buckets, (mib * MIB / BUCKET_BYTES).max(1));
        }
    }

    #[test]
    fn sizes_are_checked_and_allocation_fails_softly() {
        let max = max_hash_mib();
        assert!(max >= 1);
        assert_eq!(TranspositionTable::try_new(1).unwrap().size_mib(), 1);
        let e = TranspositionTable::try_new(0).unwrap_err();
        assert!(e.contains("0 MiB"), "{e}");
        let e = TranspositionTable::try_new(max + 1).unwrap_err();
        assert!(e.contains(&format!("{} MiB", max + 1)), "{e}");
        assert!(TranspositionTable::try_new(usize::MAX).is_err());
        // More words than the address space: an error, not an abort.
        assert!(TranspositionTable::with_buckets(usize::MAX / WORDS).is_err());
        assert!(TranspositionTable::with_buckets(isize::MAX as usize / BUCKET_BYTES).is_err());
    }

    #[test]
    fn a_large_table_costs_nothing_until_used() {
        // Resident memory in MiB (Linux).
        let resident = || {
            let s = std::fs::read_to_string("/proc/self/statm").ok()?;
            let pages: usize = s.split_whitespace().nth(1)?.parse().ok()?;
            Some(pages * 4096 / MIB)
        };
        let mib = 1024.min(max_hash_mib());
        let before = resident();
        let tt = TranspositionTable::try_new(mib).unwrap();
        tt.clear();
        assert!(tt.probe(12345).is_none());
        tt.store(12345, 1, 1, Bound::Exact, None);
        let after = resident();
        if let (Some(b), Some(a)) = (before, after) {
            assert!(
                a < b + mib / 2,
                "a {mib} MiB table took {} MiB at once",
                a.saturating_sub(b)
            );
        }
    }
}
