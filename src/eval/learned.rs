//! The learned evaluation: patterns of board regions and a few whole-board
//! terms, weighted by logistic regression of game results (`kondavo
//! selfplay` makes the games, `kondavo train` fits the weights).
//!
//! # Features
//!
//! A *window* is a rectangle of the board whose men, read in base 3 (empty,
//! own man, enemy man; kings count as empty), index one weight of that
//! window. There are two sizes:
//!
//! - small windows of eight playable squares, 3^8 = 6561 weights each: 4x4
//!   on the diagonal boards (16 windows at files and ranks 0, 2, 4, 6 on
//!   10x10; 9 at 0, 2, 4 on 8x8), 4x2 on the Turkish board (files 0, 2, 4
//!   by ranks 0 to 6: 21 windows);
//! - big windows of twelve playable squares, 3^12 = 531,441 weights each:
//!   6x4 on the diagonal boards (files 0 and 4 by ranks 0, 3 and 6 on
//!   10x10; files 0 and 2 by ranks 0, 2 and 4 on 8x8), 4x3 on the Turkish
//!   board (files 0, 2 and 4 by ranks 1 and 4): 6 windows, which see whole
//!   wings and the centre where the small ones see corners of them.
//!
//! *King windows* (layout 3) read the kings the way the windows read the
//! men: the small windows' squares in base 3 (empty or a man, own king,
//! enemy king), 3^8 weights each. A king window with no king in it has no
//! weight (the trainer never sees that entry), so a position without kings
//! skips them and scores as in layout 2.
//!
//! Both sides are read the same way: Black's men are read on the board
//! turned half a turn with the colours swapped, so a position and its
//! mirror get exactly opposite scores by construction.
//!
//! The whole-board terms ([`Dense`]) count material, king mobility, runaway
//! men, kings on the long diagonal, tempo, the side to move and whether a
//! side has a king at all; layout 4 adds the left-right balance of the men
//! and the king moves onto squares an enemy man would capture on, two
//! things no window sees whole.
//!
//! Every feature has two weights, for the opening and the endgame, blended
//! by the phase (the share of men gone from the board). A variant whose big
//! windows are all zero (weights trained before they existed) skips them.
//!
//! # Weights file
//!
//! Little-endian: magic `KDVW`, format version (u32, now 4), feature layout
//! version (u32, now 4), the variant's name (u8 length + bytes), the small
//! window count, entries per small window, big window count, entries per
//! big window, king window count, entries per king window and dense term
//! count (u32 each), the sigmoid scale in
//! centi-men (f32), a description of how the weights were made (a u16
//! length, then UTF-8), then the (opening, endgame) pairs of i16 in units of
//! 1/[`UNIT`] centi-man in feature order (small windows, big windows, king
//! windows, dense terms), of which only the pairs that are not both zero are stored: their
//! count (u32), then for each the number of zero pairs before it since the
//! last one stored (LEB128) and the pair; last an FNV-1a checksum (u64) of
//! everything before it. Files of format 1 (layout 1: the small windows and
//! the first seven dense terms, every pair stored) and of format 2 (layout
//! 2: no king windows, the header without their two counts) and of format
//! 3 (layout 3: eight dense terms) still read, with the features they lack
//! at zero.

use std::sync::OnceLock;

use crate::geometry::{Bitboard, Bits, Geometry};
use crate::position::Position;
use crate::rules::{Color, Rules};

use super::{masks, Evaluate};

/// Version of the feature layout (2: big windows and the king term added;
/// 3: king windows added; 4: the balance and threatened king terms
/// added).
pub const LAYOUT_VERSION: u32 = 4;
/// Squares of a small window.
pub const WINDOW_SQUARES: usize = 8;
/// Weights per small window: 3^8.
pub const ENTRIES: usize = 6561;
/// Squares of a big window.
pub const BIG_SQUARES: usize = 12;
/// Weights per big window: 3^12.
pub const BIG_ENTRIES: usize = 531_441;
/// Weights are stored in 1/UNIT centi-men.
pub const UNIT: i32 = 8;
/// Version of the file format.
const FORMAT_VERSION: u32 = 4;
/// The dense terms of layout 1 (the first ones of [`Dense`]).
const DENSE_V1: usize = 7;
/// The dense terms of layouts 2 and 3.
const DENSE_V3: usize = 8;
const MAGIC: &[u8; 4] = b"KDVW";

/// The whole-board terms, White's count minus Black's unless said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dense {
    /// Men.
    Men,
    /// Kings.
    Kings,
    /// Empty squares the kings can move to.
    KingMobility,
    /// Men in the far half with no enemy piece in the cone ahead.
    Runaways,
    /// Kings on the long diagonal (diagonal boards).
    LongDiagonalKings,
    /// Sum of the men's ranks counted from their own back rank, over the
    /// board height.
    Tempo,
    /// +1 when White is to move, -1 when Black is.
    SideToMove,
    /// 1 when the side has at least one king (the first king is worth more
    /// than the next ones).
    HasKing,
    /// Left-right balance (layout 4): the absolute value of the sum, over
    /// the side's men, of their file's offset from the middle of the
    /// board (twice the file less the width less one).
    Balance,
    /// Moves of the side's kings onto squares where an enemy man would
    /// capture them (layout 4; [`super::man_threats`]).
    KingThreatened,
}

/// Number of dense terms.
pub const DENSE: usize = 10;
/// Names of the dense terms, in order, for reports.
pub const DENSE_NAMES: [&str; DENSE] = [
    "men",
    "kings",
    "king-mobility",
    "runaways",
    "long-diagonal-kings",
    "tempo",
    "side-to-move",
    "has-king",
    "balance",
    "king-threatened",
];

/// The windows of a geometry.
#[derive(Debug)]
pub struct Layout {
    /// Bits of each small window.
    pub windows: Vec<Bitboard>,
    /// For each small window, the window it becomes on the board turned
    /// half a turn.
    pub rotated: Vec<usize>,
    /// Bits of each big window.
    pub big: Vec<Bitboard>,
    /// For each big window, the big window it becomes on the turned board.
    pub big_rotated: Vec<usize>,
    /// Highest bit index of a square (for turning the board).
    top_bit: u32,
}

/// The rectangles `w` files wide and `h` ranks high at files `files` and
/// ranks `ranks` (rank by rank), each holding `squares` playable squares.
fn rectangles<G: Geometry>(
    (w, h): (usize, usize),
    files: &[usize],
    ranks: &[usize],
    squares: usize,
) -> Vec<Bitboard> {
    let mut out = Vec::new();
    for &r0 in ranks {
        for &f0 in files {
            let mut mask = 0;
            for s in 0..G::NUM_SQUARES {
                let (f, r) = G::coords(s);
                if (f0..f0 + w).contains(&f) && (r0..r0 + h).contains(&r) {
                    mask |= G::bit(s);
                }
            }
            assert_eq!(mask.count_ones() as usize, squares);
            out.push(mask);
        }
    }
    out
}

impl Layout {
    /// Builds the windows of geometry `G`.
    pub fn new<G: Geometry>() -> Layout {
        let steps = |from: usize, to: usize, step: usize| (from..=to).step_by(step).collect();
        let (small_size, rank_step) = if G::DIAGONAL {
            ((4, 4), 2)
        } else {
            ((4, 2), 1)
        };
        let small_files: Vec<usize> = steps(0, G::WIDTH - small_size.0, 2);
        let small_ranks: Vec<usize> = steps(0, G::HEIGHT - small_size.1, rank_step);
        let windows = rectangles::<G>(small_size, &small_files, &small_ranks, WINDOW_SQUARES);
        let (big_size, big_files, big_ranks): ((usize, usize), &[usize], &[usize]) =
            match (G::DIAGONAL, G::WIDTH) {
                (true, 10) => ((6, 4), &[0, 4], &[0, 3, 6]),
                (true, _) => ((6, 4), &[0, 2], &[0, 2, 4]),
                _ => ((4, 3), &[0, 2, 4], &[1, 4]),
            };
        let big = rectangles::<G>(big_size, big_files, big_ranks, BIG_SQUARES);
        let top_bit = 63 - G::bit(G::NUM_SQUARES - 1).leading_zeros();
        let mut layout = Layout {
            windows,
            rotated: Vec::new(),
            big,
            big_rotated: Vec::new(),
            top_bit,
        };
        layout.rotated = layout.rotations(&layout.windows);
        layout.big_rotated = layout.rotations(&layout.big);
        layout
    }

    /// For each of `masks`, the index of the one it becomes on the turned
    /// board.
    fn rotations(&self, masks: &[Bitboard]) -> Vec<usize> {
        masks
            .iter()
            .map(|&m| {
                let r = self.rotate(m);
                masks
                    .iter()
                    .position(|&x| x == r)
                    .expect("the windows are symmetric under a half turn")
            })
            .collect()
    }

    /// The board turned half a turn (square `s` goes to `N - 1 - s`).
    #[inline(always)]
    pub fn rotate(&self, b: Bitboard) -> Bitboard {
        b.reverse_bits() >> (63 - self.top_bit)
    }

    /// Number of features (small windows' entries, big windows' entries,
    /// king windows' entries, then dense terms).
    pub fn features(&self) -> usize {
        self.dense_base() + DENSE
    }

    /// Index of the first big window's first entry.
    pub fn big_base(&self) -> usize {
        self.windows.len() * ENTRIES
    }

    /// Index of the first king window's first entry (the king windows
    /// have the small windows' squares).
    pub fn king_base(&self) -> usize {
        self.big_base() + self.big.len() * BIG_ENTRIES
    }

    /// Index of the first dense feature.
    pub fn dense_base(&self) -> usize {
        self.king_base() + self.windows.len() * ENTRIES
    }
}

/// The layout of geometry `G`, built on first use.
pub fn layout<G: Geometry>() -> &'static Layout {
    static DIAG8: OnceLock<Layout> = OnceLock::new();
    static DIAG10: OnceLock<Layout> = OnceLock::new();
    static ORTHO8: OnceLock<Layout> = OnceLock::new();
    let cell = match (G::DIAGONAL, G::NUM_SQUARES) {
        (true, 50) => &DIAG10,
        (true, _) => &DIAG8,
        _ => &ORTHO8,
    };
    cell.get_or_init(Layout::new::<G>)
}

/// Base 3 value of each 8-bit set, one digit per bit.
static BASE3: [u32; 256] = base3_table(false);
/// The same with the bits read in reverse order.
static BASE3_REV: [u32; 256] = base3_table(true);
/// Base 3 value of each 12-bit set, one digit per bit.
static BASE3_12: [u32; 4096] = base3_table(false);
/// The same with the bits read in reverse order.
static BASE3_12_REV: [u32; 4096] = base3_table(true);

/// The base 3 value of every set of `log2(N)` bits, one digit per bit
/// (lowest bit first, or highest first when `reverse`).
const fn base3_table<const N: usize>(reverse: bool) -> [u32; N] {
    let bits = N.trailing_zeros() as usize;
    let mut t = [0u32; N];
    let mut x = 0;
    while x < N {
        let (mut v, mut p, mut k) = (0u32, 1u32, 0);
        while k < bits {
            let bit = if reverse { bits - 1 - k } else { k };
            if x >> bit & 1 == 1 {
                v += p;
            }
            p *= 3;
            k += 1;
        }
        t[x] = v;
        x += 1;
    }
    t
}

/// The bits of `b` selected by `mask`, packed to the low end (BMI2 `pext`
/// where the build has it).
#[inline(always)]
fn extract(b: Bitboard, mask: Bitboard) -> usize {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        safe_arch::population_extract_u64(b, mask) as usize
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        let mut r = 0;
        for (k, bit) in Bits(mask).enumerate() {
            if b & bit != 0 {
                r |= 1 << k;
            }
        }
        r
    }
}

/// The two window entries a window's contents select: White's reading
/// (`own` men are White's) and Black's reading on the turned board.
#[inline(always)]
fn entries(white8: usize, black8: usize) -> (usize, usize) {
    (
        white_entry(white8, black8),
        BASE3_REV[black8] as usize + 2 * BASE3_REV[white8] as usize,
    )
}

/// The same for a big window's contents.
#[inline(always)]
fn big_entries(white12: usize, black12: usize) -> (usize, usize) {
    (
        white_big_entry(white12, black12),
        BASE3_12_REV[black12] as usize + 2 * BASE3_12_REV[white12] as usize,
    )
}

/// Adds to `sum` the (opening, endgame) weights of windows `masks` of
/// `table` (`SIZE` entries a window) for White's men `wm` and Black's
/// `bm`: White's reading of each window, less Black's reading of it on the
/// turned board, which is window `rotated[w]` there; `index` gives both.
#[inline(always)]
fn window_sum<const SIZE: usize>(
    wm: Bitboard,
    bm: Bitboard,
    masks: &[Bitboard],
    rotated: &[usize],
    table: &[[i16; 2]],
    index: fn(usize, usize) -> (usize, usize),
    sum: &mut [i32; 2],
) {
    for (w, (&mask, &rot)) in masks.iter().zip(rotated).enumerate() {
        let (iw, ib) = index(extract(wm, mask), extract(bm, mask));
        let a = table[w * SIZE + iw];
        let b = table[rot * SIZE + ib];
        sum[0] += a[0] as i32 - b[0] as i32;
        sum[1] += a[1] as i32 - b[1] as i32;
    }
}

/// Adds to `sum` the fused weights of windows `masks` (see
/// [`Learned::fused`]): one entry a window, White's reading less Black's,
/// selected by White's reading `index`.
#[inline(always)]
fn fused_sum<const SIZE: usize>(
    wm: Bitboard,
    bm: Bitboard,
    masks: &[Bitboard],
    table: &[[i16; 2]],
    index: fn(usize, usize) -> usize,
    sum: &mut [i32; 2],
) {
    for (w, &mask) in masks.iter().enumerate() {
        let a = table[w * SIZE + index(extract(wm, mask), extract(bm, mask))];
        sum[0] += a[0] as i32;
        sum[1] += a[1] as i32;
    }
}

/// White's reading of a small window's contents (the first half of
/// [`entries`]).
#[inline(always)]
fn white_entry(white8: usize, black8: usize) -> usize {
    BASE3[white8] as usize + 2 * BASE3[black8] as usize
}

/// White's reading of a big window's contents.
#[inline(always)]
fn white_big_entry(white12: usize, black12: usize) -> usize {
    BASE3_12[white12] as usize + 2 * BASE3_12[black12] as usize
}

/// For each reading of `digits` squares (base 3, lowest square first:
/// 0 empty, 1 own man, 2 enemy man), the reading of the same squares in
/// the reverse order with the colours swapped: how the other side reads
/// them on the turned board.
fn turned_readings(digits: u32) -> Vec<usize> {
    (0..3usize.pow(digits))
        .map(|mut e| {
            let mut r = 0;
            for _ in 0..digits {
                r = 3 * r + [0, 2, 1][e % 3];
                e /= 3;
            }
            r
        })
        .collect()
}

/// The fused tables of weights `windows` (see [`Learned::fused`]), or
/// `None` where a difference does not fit 16 bits.
fn fuse(windows: &[[i16; 2]], layout: &Layout) -> Option<Vec<[i16; 2]>> {
    let mut fused = vec![[0i16; 2]; windows.len()];
    // (first entry, squares a window, the windows' turns)
    let groups: [(usize, u32, &[usize]); 3] = [
        (0, WINDOW_SQUARES as u32, &layout.rotated),
        (layout.big_base(), BIG_SQUARES as u32, &layout.big_rotated),
        (layout.king_base(), WINDOW_SQUARES as u32, &layout.rotated),
    ];
    for (base, squares, rotated) in groups {
        // A reading splits into its low and high halves, `e = lo + n * hi`;
        // the other side's reading of the same contents is then
        // `turned[hi] + n * turned[lo]`. Walked in tiles of 16 `lo` by 16
        // `hi = turned[k]` (`turned` undoes itself), each tile reads 16
        // runs of 16 neighbouring entries from either table, where a plain
        // walk would jump across both tables at every step.
        let n = 3usize.pow(squares / 2);
        let turned = turned_readings(squares / 2);
        let size = n * n;
        const TILE: usize = 16;
        for (w, &rot) in rotated.iter().enumerate() {
            let own = base + w * size;
            let other = base + rot * size;
            for lo0 in (0..n).step_by(TILE) {
                for k0 in (0..n).step_by(TILE) {
                    for k in k0..(k0 + TILE).min(n) {
                        let hi = turned[k];
                        for lo in lo0..(lo0 + TILE).min(n) {
                            let a = windows[own + lo + n * hi];
                            let b = windows[other + k + n * turned[lo]];
                            let mut pair = [0i16; 2];
                            for j in 0..2 {
                                pair[j] = i16::try_from(a[j] as i32 - b[j] as i32).ok()?;
                            }
                            fused[own + lo + n * hi] = pair;
                        }
                    }
                }
            }
        }
    }
    Some(fused)
}

/// Phase of `pos`: 0 with all men on the board, 256 with none.
#[inline(always)]
pub fn phase<R: Rules>(pos: &Position<R>) -> i32 {
    let men = pos.men(Color::White).count_ones() + pos.men(Color::Black).count_ones();
    256 - (256 * men / (2 * R::MEN_PER_SIDE).max(1)).min(256) as i32
}

/// The dense terms of `pos`, White minus Black.
#[inline]
pub fn dense_terms<R: Rules>(pos: &Position<R>) -> [i32; DENSE] {
    dense_terms_of(pos, true, true)
}

/// The dense terms of `pos`, with layout 4's balance and threatened king
/// terms left at zero unless `balance` and `threats` ask for them (the
/// evaluation skips a term whose weights are zero).
#[inline(always)]
fn dense_terms_of<R: Rules>(pos: &Position<R>, balance: bool, threats: bool) -> [i32; DENSE] {
    let m = masks::<R::Geo>();
    let mut d = [0; DENSE];
    let empty = pos.empty();
    for (c, sign) in [(Color::White, 1), (Color::Black, -1)] {
        let men = pos.men(c);
        let kings = pos.kings_of(c);
        d[Dense::Men as usize] += sign * men.count_ones() as i32;
        d[Dense::Kings as usize] += sign * kings.count_ones() as i32;
        d[Dense::HasKing as usize] += sign * (kings != 0) as i32;
        if kings != 0 {
            let them = c.flip();
            let denied = if threats {
                super::man_threats::<R>(pos.men(them), empty, them)
            } else {
                0
            };
            let (moves, threatened) = super::king_moves_into::<R>(kings, empty, denied);
            d[Dense::KingMobility as usize] += sign * moves;
            d[Dense::KingThreatened as usize] += sign * threatened;
            d[Dense::LongDiagonalKings as usize] +=
                sign * (kings & m.long_diagonal).count_ones() as i32;
        }
        // Only men in the far half can be runaways.
        let them = pos.pieces(c.flip());
        let mut runaways = 0;
        for b in Bits(men & m.far_half[c.index()]) {
            if m.cone[c.index()][b.trailing_zeros() as usize] & them == 0 {
                runaways += 1;
            }
        }
        d[Dense::Runaways as usize] += sign * runaways;
        d[Dense::Tempo as usize] += sign * plane_sum(men, &m.rank_bits[c.index()]);
        if balance {
            let skew = 2 * plane_sum(men, &m.file_bits)
                - (R::Geo::WIDTH as i32 - 1) * men.count_ones() as i32;
            d[Dense::Balance as usize] += sign * skew.abs();
        }
    }
    d[Dense::SideToMove as usize] = match pos.side() {
        Color::White => 1,
        Color::Black => -1,
    };
    d
}

/// Sum over `men` of a number given by its bit planes (the relative rank,
/// [`super::Masks::rank_bits`], or the file, [`super::Masks::file_bits`]).
#[inline(always)]
fn plane_sum(men: Bitboard, planes: &[Bitboard; 4]) -> i32 {
    planes
        .iter()
        .enumerate()
        .map(|(k, &p)| ((men & p).count_ones() as i32) << k)
        .sum()
}

/// Scale of the tempo term: ranks are summed, so the weight is per
/// (rank x man); the sum is divided by the board height to keep the weight
/// in the range of the others.
fn tempo_value(sum: i32, height: usize) -> f32 {
    sum as f32 / height as f32
}

/// The sparse features of `pos` from White's point of view: (feature
/// index, value) pairs, windows then dense terms. The score is the sum of
/// value x (opening weight x (256 - phase) + endgame weight x phase) / 256.
pub fn features<R: Rules>(pos: &Position<R>, out: &mut Vec<(u32, f32)>) {
    out.clear();
    let layout = layout::<R::Geo>();
    let wm = pos.men(Color::White);
    let bm = pos.men(Color::Black);
    for (w, &mask) in layout.windows.iter().enumerate() {
        let (iw, ib) = entries(extract(wm, mask), extract(bm, mask));
        out.push(((w * ENTRIES + iw) as u32, 1.0));
        out.push(((layout.rotated[w] * ENTRIES + ib) as u32, -1.0));
    }
    let big = layout.big_base();
    for (w, &mask) in layout.big.iter().enumerate() {
        let (iw, ib) = big_entries(extract(wm, mask), extract(bm, mask));
        out.push(((big + w * BIG_ENTRIES + iw) as u32, 1.0));
        out.push((
            (big + layout.big_rotated[w] * BIG_ENTRIES + ib) as u32,
            -1.0,
        ));
    }
    let wk = pos.kings_of(Color::White);
    let bk = pos.kings_of(Color::Black);
    if wk | bk != 0 {
        let kings = layout.king_base();
        for (w, &mask) in layout.windows.iter().enumerate() {
            // A window with no king has no weight.
            let (iw, ib) = entries(extract(wk, mask), extract(bk, mask));
            if iw != 0 {
                out.push(((kings + w * ENTRIES + iw) as u32, 1.0));
                out.push(((kings + layout.rotated[w] * ENTRIES + ib) as u32, -1.0));
            }
        }
    }
    let base = layout.dense_base();
    for (k, &v) in dense_terms(pos).iter().enumerate() {
        if v != 0 {
            let value = if k == Dense::Tempo as usize {
                tempo_value(v, R::Geo::HEIGHT)
            } else {
                v as f32
            };
            out.push(((base + k) as u32, value));
        }
    }
}

/// Fitted weights of one variant.
#[derive(Clone, Debug)]
pub struct Learned {
    /// (opening, endgame) weight of each window entry, window by window
    /// (the small windows, the big ones, then the king windows), in
    /// 1/UNIT centi-men.
    windows: Vec<[i16; 2]>,
    /// The same tables fused for the evaluation: the entry of White's
    /// reading of a window holds its weight less the weight of Black's
    /// reading of the same contents (on the turned board, in the window
    /// it turns into), so a window costs one table access instead of
    /// two. `None` when a difference does not fit 16 bits; the
    /// evaluation then reads `windows` (the same sums either way).
    fused: Option<Vec<[i16; 2]>>,
    /// Whether any big window entry is not zero (else they are skipped).
    big_active: bool,
    /// Whether any king window entry is not zero (else they are skipped).
    king_active: bool,
    /// Small and big window counts of the layout.
    shape: (usize, usize),
    /// (opening, endgame) weights of the dense terms.
    dense: [[i16; 2]; DENSE],
    /// The sigmoid scale the weights were fitted with, in centi-men.
    pub scale: f32,
    /// How the weights were made.
    pub description: String,
    /// Name of the variant.
    pub variant: String,
}

impl Learned {
    /// Weights from floating-point centi-men, one (opening, endgame) pair
    /// per feature in [`features`] order.
    pub fn from_float<G: Geometry>(
        variant: &str,
        weights: &[[f32; 2]],
        scale: f32,
        description: &str,
    ) -> Result<Learned, String> {
        let layout = layout::<G>();
        if weights.len() != layout.features() {
            return Err(format!(
                "{} weights given, the layout has {} features",
                weights.len(),
                layout.features()
            ));
        }
        let q = |x: f32| (x * UNIT as f32).round().clamp(-32767.0, 32767.0) as i16;
        let windows: Vec<[i16; 2]> = weights[..layout.dense_base()]
            .iter()
            .map(|p| [q(p[0]), q(p[1])])
            .collect();
        let mut dense = [[0; 2]; DENSE];
        for (d, p) in dense.iter_mut().zip(&weights[layout.dense_base()..]) {
            *d = [q(p[0]), q(p[1])];
        }
        Ok(Learned::assemble(
            layout,
            windows,
            dense,
            scale,
            description.to_string(),
            variant.to_string(),
        ))
    }

    /// Weights from their window tables (in the layout's order) and dense
    /// terms: each king window's empty entry is set to zero, and what the
    /// evaluation derives from the tables (which parts are active, the
    /// fused tables) is made here, once.
    fn assemble(
        layout: &Layout,
        mut windows: Vec<[i16; 2]>,
        dense: [[i16; 2]; DENSE],
        scale: f32,
        description: String,
        variant: String,
    ) -> Learned {
        clear_kingless(&mut windows, layout);
        Learned {
            big_active: big_active(&windows, layout),
            king_active: king_active(&windows, layout),
            shape: (layout.windows.len(), layout.big.len()),
            fused: fuse(&windows, layout),
            windows,
            dense,
            scale,
            description,
            variant,
        }
    }

    /// The weights as floating-point centi-men, in [`features`] order.
    pub fn to_float(&self) -> Vec<[f32; 2]> {
        let u = UNIT as f32;
        self.windows
            .iter()
            .chain(self.dense.iter())
            .map(|p| [p[0] as f32 / u, p[1] as f32 / u])
            .collect()
    }

    /// Whether the evaluation reads the fused tables (every difference of
    /// a window's two readings fits 16 bits), or the weights as stored.
    pub fn reads_fused(&self) -> bool {
        self.fused.is_some()
    }

    /// The score of `pos` in centi-men from White's point of view.
    #[inline]
    pub fn white_score<R: Rules>(&self, pos: &Position<R>) -> i32 {
        let layout = layout::<R::Geo>();
        let wm = pos.men(Color::White);
        let bm = pos.men(Color::Black);
        let mut sum = [0i32; 2];
        let (wk, bk) = (pos.kings_of(Color::White), pos.kings_of(Color::Black));
        // With no king on the board every king window reads its empty
        // entry, whose weight is zero.
        let kings_on = self.king_active && wk | bk != 0;
        if let Some(fused) = &self.fused {
            let (small, rest) = fused.split_at(layout.big_base());
            let (big, kings) = rest.split_at(layout.king_base() - layout.big_base());
            fused_sum::<ENTRIES>(wm, bm, &layout.windows, small, white_entry, &mut sum);
            if self.big_active {
                fused_sum::<BIG_ENTRIES>(wm, bm, &layout.big, big, white_big_entry, &mut sum);
            }
            if kings_on {
                fused_sum::<ENTRIES>(wk, bk, &layout.windows, kings, white_entry, &mut sum);
            }
        } else {
            let (small, rest) = self.windows.split_at(layout.big_base());
            let (big, kings) = rest.split_at(layout.king_base() - layout.big_base());
            let (windows, rotated) = (&layout.windows, &layout.rotated);
            window_sum::<ENTRIES>(wm, bm, windows, rotated, small, entries, &mut sum);
            if self.big_active {
                let (masks, rotated) = (&layout.big, &layout.big_rotated);
                window_sum::<BIG_ENTRIES>(wm, bm, masks, rotated, big, big_entries, &mut sum);
            }
            if kings_on {
                window_sum::<ENTRIES>(wk, bk, windows, rotated, kings, entries, &mut sum);
            }
        }
        let [mut open, mut end] = sum;
        // A term whose weights are zero is not computed.
        let weighted = |t: Dense| self.dense[t as usize] != [0, 0];
        let d = dense_terms_of(
            pos,
            weighted(Dense::Balance),
            weighted(Dense::KingThreatened),
        );
        for (k, (&v, w)) in d.iter().zip(&self.dense).enumerate() {
            if k == Dense::Tempo as usize {
                let h = R::Geo::HEIGHT as i32;
                open += v * w[0] as i32 / h;
                end += v * w[1] as i32 / h;
            } else {
                open += v * w[0] as i32;
                end += v * w[1] as i32;
            }
        }
        let p = phase(pos);
        (open * (256 - p) + end * p) / (256 * UNIT)
    }

    /// The weights file's bytes (format 4: only the pairs that are not
    /// zero are stored).
    pub fn to_bytes(&self) -> Vec<u8> {
        let (small, big) = self.shape;
        let mut b = Vec::with_capacity(1 << 16);
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        b.extend_from_slice(&LAYOUT_VERSION.to_le_bytes());
        b.push(self.variant.len() as u8);
        b.extend_from_slice(self.variant.as_bytes());
        for n in [small, ENTRIES, big, BIG_ENTRIES, small, ENTRIES, DENSE] {
            b.extend_from_slice(&(n as u32).to_le_bytes());
        }
        b.extend_from_slice(&self.scale.to_le_bytes());
        let desc = &self.description.as_bytes()[..self.description.len().min(u16::MAX as usize)];
        b.extend_from_slice(&(desc.len() as u16).to_le_bytes());
        b.extend_from_slice(desc);
        let all = || self.windows.iter().chain(self.dense.iter());
        let stored = all().filter(|p| **p != [0, 0]).count();
        b.extend_from_slice(&(stored as u32).to_le_bytes());
        let mut gap = 0u64;
        for p in all() {
            if *p == [0, 0] {
                gap += 1;
                continue;
            }
            push_gap(&mut b, gap);
            gap = 0;
            b.extend_from_slice(&p[0].to_le_bytes());
            b.extend_from_slice(&p[1].to_le_bytes());
        }
        let sum = fnv1a(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        b
    }

    /// Reads a weights file for variant `R`; any mismatch (magic, versions,
    /// variant, sizes, length, checksum) is an error saying which. A file
    /// of format 1 (layout 1) reads into this layout with the big windows,
    /// the king windows and the later dense terms at zero; one of format 2
    /// (layout 2) with the king windows and layout 4's dense terms at zero;
    /// one of format 3 (layout 3) with layout 4's dense terms at zero.
    pub fn from_bytes<R: Rules>(bytes: &[u8]) -> Result<Learned, String> {
        let layout = layout::<R::Geo>();
        if bytes.len() < 8 {
            return Err("weights file: too short".into());
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        let mut r = Reader { b: body, at: 0 };
        if r.take(4)? != MAGIC {
            return Err("weights file: not a kondavo weights file (bad magic)".into());
        }
        let format = r.u32()?;
        if !(1..=FORMAT_VERSION).contains(&format) {
            return Err(format!(
                "weights file: format version {format}, this build reads 1 to {FORMAT_VERSION}"
            ));
        }
        let lv = r.u32()?;
        if lv != format {
            return Err(format!(
                "weights file: feature layout version {lv} in a file of format {format}, \
                 which holds layout {format}"
            ));
        }
        let n = r.take(1)?[0] as usize;
        let variant = String::from_utf8_lossy(r.take(n)?).into_owned();
        if variant != R::NAME {
            return Err(format!(
                "weights file: made for {variant:?}, not {}",
                R::NAME
            ));
        }
        let (small, big, kingw, dense) = if format == 1 {
            let (windows, entries, dense) =
                (r.u32()? as usize, r.u32()? as usize, r.u32()? as usize);
            if windows != layout.windows.len() || entries != ENTRIES || dense != DENSE_V1 {
                return Err(format!(
                    "weights file: {windows} windows x {entries} entries + {dense} terms, \
                     layout 1 has {} x {ENTRIES} + {DENSE_V1}",
                    layout.windows.len()
                ));
            }
            (windows, 0, 0, dense)
        } else {
            // Format 2 has no king windows: its header lacks their counts.
            let n = if format == 2 { 5 } else { 7 };
            let mut sizes = Vec::with_capacity(n);
            for _ in 0..n {
                sizes.push(r.u32()? as usize);
            }
            let mut ours = vec![
                layout.windows.len(),
                ENTRIES,
                layout.big.len(),
                BIG_ENTRIES,
                layout.windows.len(),
                ENTRIES,
                if format < 4 { DENSE_V3 } else { DENSE },
            ];
            if format == 2 {
                ours.drain(4..6);
            }
            if sizes != ours {
                let show = |v: &[usize]| {
                    let mut t =
                        format!("{} small windows x {}, {} big x {}", v[0], v[1], v[2], v[3]);
                    if v.len() == 7 {
                        t += &format!(", {} king windows x {}", v[4], v[5]);
                    }
                    t + &format!(" + {} terms", v[v.len() - 1])
                };
                return Err(format!(
                    "weights file: {}; this build reads {}",
                    show(&sizes),
                    show(&ours)
                ));
            }
            let kingw = if format == 2 { 0 } else { sizes[4] };
            (sizes[0], sizes[2], kingw, sizes[n - 1])
        };
        let scale = f32::from_le_bytes(r.take(4)?.try_into().expect("4 bytes"));
        let dl = u16::from_le_bytes(r.take(2)?.try_into().expect("2 bytes")) as usize;
        let description = String::from_utf8_lossy(r.take(dl)?).into_owned();
        // The pairs in the file's own feature order.
        let count = small * ENTRIES + big * BIG_ENTRIES + kingw * ENTRIES + dense;
        let mut pairs = vec![[0i16; 2]; count];
        let pair = |c: &[u8]| {
            [
                i16::from_le_bytes([c[0], c[1]]),
                i16::from_le_bytes([c[2], c[3]]),
            ]
        };
        if format == 1 {
            for (p, c) in pairs.iter_mut().zip(r.take(4 * count)?.chunks_exact(4)) {
                *p = pair(c);
            }
        } else {
            let stored = r.u32()? as usize;
            let mut at = 0usize;
            for _ in 0..stored {
                let mut gap = 0usize;
                let mut shift = 0;
                loop {
                    let byte = r.take(1)?[0];
                    gap |= ((byte & 0x7f) as usize) << shift;
                    shift += 7;
                    if byte & 0x80 == 0 {
                        break;
                    }
                    if shift > 28 {
                        return Err("weights file: bad gap".into());
                    }
                }
                at += gap;
                if at >= count {
                    return Err("weights file: more weights than the layout holds".into());
                }
                pairs[at] = pair(r.take(4)?);
                at += 1;
            }
        }
        if r.at != body.len() {
            return Err(format!(
                "weights file: {} bytes after the weights",
                body.len() - r.at
            ));
        }
        if fnv1a(body).to_le_bytes() != sum {
            return Err("weights file: checksum mismatch (corrupt file)".into());
        }
        if !(scale.is_finite() && scale > 0.0) {
            return Err(format!("weights file: bad scale {scale}"));
        }
        let mut windows = vec![[0i16; 2]; layout.dense_base()];
        let window_pairs = small * ENTRIES + big * BIG_ENTRIES + kingw * ENTRIES;
        windows[..window_pairs].copy_from_slice(&pairs[..window_pairs]);
        let mut d = [[0; 2]; DENSE];
        d[..dense].copy_from_slice(&pairs[window_pairs..]);
        Ok(Learned::assemble(
            layout,
            windows,
            d,
            scale,
            description,
            variant,
        ))
    }
}

/// Whether any big window entry of `windows` is not zero.
fn big_active(windows: &[[i16; 2]], layout: &Layout) -> bool {
    windows[layout.big_base()..layout.king_base()]
        .iter()
        .any(|p| *p != [0, 0])
}

/// Whether any king window entry of `windows` is not zero.
fn king_active(windows: &[[i16; 2]], layout: &Layout) -> bool {
    windows[layout.king_base()..].iter().any(|p| *p != [0, 0])
}

/// Sets the weight of each king window's empty entry (no king in the
/// window) to zero: the trainer never sees it, and the evaluation skips
/// the king windows of a position without kings.
fn clear_kingless(windows: &mut [[i16; 2]], layout: &Layout) {
    for w in 0..layout.windows.len() {
        windows[layout.king_base() + w * ENTRIES] = [0, 0];
    }
}

/// The sigmoid scale of a fresh start, in centi-men: the trainer's own
/// when it has no search scores to fit one to.
pub const START_SCALE: f32 = 100.0;

/// A variant's generation 0 in centi-men, from which [`starting`] builds
/// weights in the learned layout.
#[derive(Clone, Copy, Debug)]
pub struct Start {
    /// Value of a man.
    pub man: i32,
    /// Value of a king.
    pub king: i32,
    /// Bonus per man by relative rank (0 = own back rank), in the opening.
    pub advance_open: [i32; 10],
    /// The same in the endgame.
    pub advance_end: [i32; 10],
    /// Per man on a central square ([`super::Masks::centre`]).
    pub centre: i32,
    /// Per runaway man ([`Dense::Runaways`]).
    pub runaway: i32,
    /// Per square a king can move to ([`Dense::KingMobility`]).
    pub king_mobility: i32,
}

/// Generation 0 of variant `R` in the learned layout: material, runaways
/// and king mobility as dense terms; each man's square value (advancement
/// by relative rank, blended by phase, plus the centre bonus) in the
/// windows. A square's value is shared equally by the windows covering it,
/// and each window entry holds the shares of the squares it reads as "own
/// man", so the windows together count every man's value once. Black reads
/// the turned board with the same tables, so its men get the values of
/// their own relative ranks.
pub fn starting<R: Rules>(start: &Start) -> Learned {
    let layout = layout::<R::Geo>();
    let centre = masks::<R::Geo>().centre;
    let cover = |b: Bitboard| layout.windows.iter().filter(|&&w| w & b != 0).count() as f32;
    let mut w = vec![[0f32; 2]; layout.features()];
    for (table, &mask) in w.chunks_exact_mut(ENTRIES).zip(&layout.windows) {
        // The window's squares in digit order (lowest bit first), each with
        // its (opening, endgame) share.
        let shares: Vec<[f32; 2]> = Bits(mask)
            .map(|b| {
                let rank = R::Geo::coords(R::Geo::square(b)).1;
                let c = if b & centre != 0 { start.centre } else { 0 };
                let n = cover(b);
                [
                    (start.advance_open[rank] + c) as f32 / n,
                    (start.advance_end[rank] + c) as f32 / n,
                ]
            })
            .collect();
        for (e, entry) in table.iter_mut().enumerate() {
            let mut digits = e;
            for share in &shares {
                if digits % 3 == 1 {
                    entry[0] += share[0];
                    entry[1] += share[1];
                }
                digits /= 3;
            }
        }
    }
    let base = layout.dense_base();
    for (term, value) in [
        (Dense::Men, start.man),
        (Dense::Kings, start.king),
        (Dense::KingMobility, start.king_mobility),
        (Dense::Runaways, start.runaway),
    ] {
        w[base + term as usize] = [value as f32; 2];
    }
    Learned::from_float::<R::Geo>(
        R::NAME,
        &w,
        START_SCALE,
        "generation 0: material, advancement by rank, centre, runaways, king mobility",
    )
    .expect("weights of the layout's own size")
}

/// A cursor over a weights file.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.b.len() - self.at < n {
            return Err("weights file: truncated".into());
        }
        let s = &self.b[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }

    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
}

/// Appends `gap`, the count of zero pairs before a stored pair, as a
/// weights file stores it (LEB128: seven bits a byte, low bits first).
pub fn push_gap(b: &mut Vec<u8>, mut gap: u64) {
    loop {
        let byte = (gap & 0x7f) as u8;
        gap >>= 7;
        if gap == 0 {
            b.push(byte);
            return;
        }
        b.push(byte | 0x80);
    }
}

/// 64-bit FNV-1a.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Where a variant's weights come from: the file given at start-up, or the
/// one embedded in the binary, or, when the build embeds none, the
/// variant's starting vector ([`starting`]).
#[derive(Debug)]
pub struct Slot(OnceLock<Learned>);

impl Slot {
    /// An empty slot.
    pub const fn new() -> Slot {
        Slot(OnceLock::new())
    }

    /// The weights, loading the embedded ones (or building the starting
    /// vector) on first use.
    #[inline(always)]
    pub fn get<R: Evaluate>(&self) -> &Learned {
        self.0
            .get_or_init(|| embedded::<R>().unwrap_or_else(|| starting::<R>(&R::START)))
    }

    /// Installs weights before first use; an error once the slot is in use.
    pub fn set(&self, weights: Learned) -> Result<(), String> {
        self.0
            .set(weights)
            .map_err(|_| "weights are already in use; set them before any search".to_string())
    }
}

impl Default for Slot {
    fn default() -> Self {
        Slot::new()
    }
}

mod files {
    include!(concat!(env!("OUT_DIR"), "/weights.rs"));
}

/// The embedded weights file of variant `name`, if the build has one.
pub fn embedded_bytes(name: &str) -> Option<&'static [u8]> {
    files::EMBEDDED
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, b)| *b)
}

/// The embedded weights of `R`. A file that does not read is a build
/// defect: the tests read every embedded file, so this panics with the
/// reason rather than evaluate wrongly.
fn embedded<R: Rules>() -> Option<Learned> {
    embedded_bytes(R::NAME).map(|b| {
        Learned::from_bytes::<R>(b).unwrap_or_else(|e| panic!("embedded {} weights: {e}", R::NAME))
    })
}

/// The variants whose weights [`install_file`] installed, in order.
static INSTALLED: std::sync::Mutex<Vec<crate::Variant>> = std::sync::Mutex::new(Vec::new());

/// The variants whose weights were installed by [`install_file`] (the
/// command line's `--weights`), so that a command searching another
/// variant can say so.
pub fn installed() -> Vec<crate::Variant> {
    INSTALLED.lock().map(|v| v.clone()).unwrap_or_default()
}

/// Installs the weights file at `path` for the variant it names (before
/// any search); returns that variant. `start:<variant>` installs that
/// variant's starting vector (generation 0, [`starting`]). A file that
/// does not start with the magic `KDVW` is "not a kondavo weights file"
/// before anything else is read from it; what an error quotes from the
/// file is escaped.
pub fn install_file(path: &str) -> Result<crate::Variant, String> {
    let variant = install(path)?;
    if let Ok(mut v) = INSTALLED.lock() {
        v.push(variant);
    }
    Ok(variant)
}

fn install(path: &str) -> Result<crate::Variant, String> {
    if let Some(v) = path.strip_prefix("start:") {
        let variant: crate::Variant = v.parse()?;
        crate::with_rules!(variant, R => R::slot().set(starting::<R>(&R::START))?);
        return Ok(variant);
    }
    let bytes = std::fs::read(path).map_err(|e| format!("weights file {path}: {e}"))?;
    if !bytes.starts_with(MAGIC) {
        return Err(format!(
            "weights file {path}: not a kondavo weights file (it does not start with {:?})",
            std::str::from_utf8(MAGIC).unwrap_or_default()
        ));
    }
    let name = bytes
        .get(12)
        .and_then(|&n| bytes.get(13..13 + n as usize))
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .ok_or_else(|| format!("weights file {path}: truncated"))?;
    let variant: crate::Variant = name
        .parse()
        .map_err(|_| format!("weights file {path}: unknown variant {name:?}"))?;
    crate::with_rules!(variant, R => {
        let l = Learned::from_bytes::<R>(&bytes).map_err(|e| format!("{path}: {e}"))?;
        R::slot().set(l)?;
    });
    Ok(variant)
}
