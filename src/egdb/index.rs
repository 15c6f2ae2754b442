//! The dense index of the positions of one material signature.
//!
//! Every stored position has White to move (a position with Black to move
//! is looked up as its colour-flipped twin, see [`super::flip`]). A
//! signature counts White's men and kings and Black's men and kings. The
//! positions of a signature are numbered by combinatorial ranking of each
//! group of pieces over the squares still free for it, in this order:
//!
//! 1. White's men: `j` of them on White's back rank (the bottom row, where
//!    Black's men cannot stand) and the rest on the middle rows (neither
//!    promotion row). Positions are grouped into one block per `j`.
//! 2. Black's men, over the squares off the bottom row not taken by White's
//!    men (the block fixes how many that is).
//! 3. White's kings over the squares left, then Black's kings over the rest.
//!
//! A group of `k` pieces on a domain of `n` squares is ranked in
//! colexicographic order: with its squares' positions in the domain
//! `c_1 < ... < c_k`, its rank is `sum C(c_i, i)`. No index is wasted: every
//! number below [`Layout::size`] is one legal placement (no man on its own
//! promotion row), and every placement has one number.

use std::marker::PhantomData;

use crate::geometry::{Bitboard, Bits, Geometry};
use crate::position::Position;
use crate::rules::{Color, Rules};

/// The largest number of pieces a signature may have (the index's tables
/// and the in-memory table of signatures are sized for it).
pub const MAX_PIECES: u32 = 8;

/// Material of a position with White to move: men and kings of each side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Signature {
    /// White's men.
    pub wm: u8,
    /// White's kings.
    pub wk: u8,
    /// Black's men.
    pub bm: u8,
    /// Black's kings.
    pub bk: u8,
}

impl Signature {
    /// The signature of a position's pieces as they stand (no flip).
    pub fn of<R: Rules>(pos: &Position<R>) -> Signature {
        Signature {
            wm: pos.men(Color::White).count_ones() as u8,
            wk: pos.kings_of(Color::White).count_ones() as u8,
            bm: pos.men(Color::Black).count_ones() as u8,
            bk: pos.kings_of(Color::Black).count_ones() as u8,
        }
    }

    /// All pieces.
    pub fn pieces(&self) -> u32 {
        (self.wm + self.wk + self.bm + self.bk) as u32
    }

    /// All men.
    pub fn men(&self) -> u32 {
        (self.wm + self.bm) as u32
    }

    /// The signature with the colours exchanged.
    pub fn flipped(&self) -> Signature {
        Signature {
            wm: self.bm,
            wk: self.bk,
            bm: self.wm,
            bk: self.wk,
        }
    }

    /// A number below [`Signature::CODES`], for tables of signatures.
    pub fn code(&self) -> usize {
        let n = MAX_PIECES as usize + 1;
        ((self.wm as usize * n + self.wk as usize) * n + self.bm as usize) * n + self.bk as usize
    }

    /// The number of distinct codes.
    pub const CODES: usize = (MAX_PIECES as usize + 1).pow(4);

    /// Four digits: White's men and kings, Black's men and kings (the name
    /// of the signature's file).
    pub fn name(&self) -> String {
        format!("{}{}{}{}", self.wm, self.wk, self.bm, self.bk)
    }

    /// Every signature with 2 to `max_pieces` pieces and at least one piece
    /// a side, in an order where each comes after every signature its
    /// positions' captures and promotions lead to: by pieces, then by men.
    pub fn all(max_pieces: u32) -> Vec<Signature> {
        let mut out = Vec::new();
        for n in 2..=max_pieces.min(MAX_PIECES) {
            for men in 0..=n {
                for wm in 0..=men {
                    let bm = men - wm;
                    for wk in 0..=(n - men) {
                        let bk = n - men - wk;
                        if wm + wk == 0 || bm + bk == 0 {
                            continue;
                        }
                        out.push(Signature {
                            wm: wm as u8,
                            wk: wk as u8,
                            bm: bm as u8,
                            bk: bk as u8,
                        });
                    }
                }
            }
        }
        out
    }
}

impl std::fmt::Display for Signature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

impl std::str::FromStr for Signature {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let d: Vec<u8> = s
            .bytes()
            .map(|c| c.wrapping_sub(b'0'))
            .filter(|&c| c <= 9)
            .collect();
        if d.len() != 4 || s.len() != 4 {
            return Err(format!(
                "signature '{s}' must be four digits: white men, white kings, black men, black kings"
            ));
        }
        let sig = Signature {
            wm: d[0],
            wk: d[1],
            bm: d[2],
            bk: d[3],
        };
        if sig.pieces() > MAX_PIECES || sig.wm + sig.wk == 0 || sig.bm + sig.bk == 0 {
            return Err(format!(
                "signature '{s}' needs at least one piece a side and at most {MAX_PIECES} in all"
            ));
        }
        Ok(sig)
    }
}

const fn binomials() -> [[u64; 9]; 65] {
    let mut t = [[0u64; 9]; 65];
    let mut n = 0;
    while n <= 64 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= 8 && k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
}

static BINOM: [[u64; 9]; 65] = binomials();

/// `C(n, k)`, 0 when `k > n`.
#[inline(always)]
pub fn binom(n: usize, k: usize) -> u64 {
    BINOM[n][k]
}

/// Colexicographic rank of the squares `p` (a subset of `domain`) among the
/// subsets of `domain` of the same size.
#[inline(always)]
fn rank_in(domain: Bitboard, p: Bitboard) -> u64 {
    let mut r = 0;
    for (i, b) in Bits(p).enumerate() {
        let c = (domain & (b - 1)).count_ones() as usize;
        r += binom(c, i + 1);
    }
    r
}

/// The `k` squares of `domain` (of `n` squares) with rank `r`.
#[inline(always)]
fn unrank_in(domain: Bitboard, n: usize, k: usize, mut r: u64) -> Bitboard {
    let mut out = 0;
    let mut c = n;
    let mut i = k;
    while i > 2 {
        c -= 1;
        while binom(c, i) > r {
            c -= 1;
        }
        r -= binom(c, i);
        out |= select(domain, c);
        i -= 1;
    }
    if i == 2 {
        // The largest c with c (c - 1) / 2 <= r, from the square root,
        // then made exact.
        let mut c = ((1.0 + (1.0 + 8.0 * r as f64).sqrt()) / 2.0) as usize;
        while binom(c, 2) > r {
            c -= 1;
        }
        while binom(c + 1, 2) <= r {
            c += 1;
        }
        r -= binom(c, 2);
        out |= select(domain, c);
        i = 1;
    }
    if i == 1 {
        // C(c, 1) = c.
        out |= select(domain, r as usize);
    }
    out
}

/// For each byte and each `i` below its number of bits, the place of its
/// `i`-th bit (from 0, lowest first).
const fn select_table() -> [[u8; 8]; 256] {
    let mut t = [[0u8; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut i = 0;
        let mut bit = 0;
        while bit < 8 {
            if b & (1 << bit) != 0 {
                t[b][i] = bit as u8;
                i += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    t
}

static SELECT8: [[u8; 8]; 256] = select_table();

/// The `c`-th square (from 0, lowest bit first) of `d`, which has more than
/// `c`, as a one-bit board: halves, quarters and eighths of the word are
/// skipped by their bit counts, then a table finds the bit in its byte.
#[inline(always)]
fn select(d: Bitboard, c: usize) -> Bitboard {
    let mut c = c as u32;
    let mut shift = 0u32;
    let mut w = d;
    for half in [32u32, 16, 8] {
        let low = (w & ((1u64 << half) - 1)).count_ones();
        let skip = (c >= low) as u32;
        c -= low * skip;
        shift += half * skip;
        w >>= half * skip;
    }
    1u64 << (shift + SELECT8[(w & 0xFF) as usize][c as usize & 7] as u32)
}

/// The numbering of the positions of one signature with White to move.
#[derive(Clone, Debug)]
pub struct Layout<R: Rules> {
    sig: Signature,
    /// First index of block `j` (`j` white men on the bottom row); entry
    /// `wm + 1` is the size.
    offsets: [u64; 10],
    /// `C(F, wk) * C(F - wk, bk)`, the placements of the kings.
    kings: u64,
    rules: PhantomData<R>,
}

impl<R: Rules> Layout<R> {
    const N: usize = R::Geo::NUM_SQUARES;

    /// Squares where neither side's men are promoted.
    fn middle() -> Bitboard {
        R::Geo::SQUARES & !R::Geo::TOP_ROW & !R::Geo::BOTTOM_ROW
    }

    fn row() -> usize {
        R::Geo::BOTTOM_ROW.count_ones() as usize
    }

    /// The layout of `sig`, which must have at most [`MAX_PIECES`] pieces.
    pub fn new(sig: Signature) -> Self {
        let (wm, wk, bm, bk) = (
            sig.wm as usize,
            sig.wk as usize,
            sig.bm as usize,
            sig.bk as usize,
        );
        let n = Self::N;
        let h = Self::row();
        let m = Self::middle().count_ones() as usize;
        let f = n.saturating_sub(wm + bm);
        let kings = if wk + bk <= f {
            binom(f, wk) * binom(f - wk, bk)
        } else {
            0
        };
        let mut offsets = [0u64; 10];
        for j in 0..=wm {
            let mid = wm - j;
            let size = if j <= h && mid <= m && n - h >= mid {
                binom(h, j) * binom(m, mid) * binom(n - h - mid, bm) * kings
            } else {
                0
            };
            offsets[j + 1] = offsets[j] + size;
        }
        Layout {
            sig,
            offsets,
            kings,
            rules: PhantomData,
        }
    }

    /// The signature.
    pub fn signature(&self) -> Signature {
        self.sig
    }

    /// Number of positions.
    pub fn size(&self) -> u64 {
        self.offsets[self.sig.wm as usize + 1]
    }

    /// The index of `pos`, which must have White to move, this layout's
    /// signature and no man on its promotion row.
    #[inline]
    pub fn index(&self, pos: &Position<R>) -> u64 {
        let (wm, wk, bm, bk) = (
            self.sig.wm as usize,
            self.sig.wk as usize,
            self.sig.bm as usize,
            self.sig.bk as usize,
        );
        let wmen = pos.men(Color::White);
        let bmen = pos.men(Color::Black);
        let back = wmen & R::Geo::BOTTOM_ROW;
        let mid = wmen & !R::Geo::BOTTOM_ROW;
        let j = back.count_ones() as usize;
        let nb = Self::N - Self::row() - (wm - j);
        let men = (rank_in(R::Geo::BOTTOM_ROW, back)
            * binom(Self::middle().count_ones() as usize, wm - j)
            + rank_in(Self::middle(), mid))
            * binom(nb, bm)
            + rank_in(R::Geo::SQUARES & !R::Geo::BOTTOM_ROW & !wmen, bmen);
        let free = R::Geo::SQUARES & !(wmen | bmen);
        let wkings = pos.kings_of(Color::White);
        let f = Self::N - wm - bm;
        let kings = rank_in(free, wkings) * binom(f - wk, bk)
            + rank_in(free & !wkings, pos.kings_of(Color::Black));
        self.offsets[j] + men * self.kings + kings
    }

    /// The position (White to move) with index `idx`, below [`Self::size`].
    pub fn position(&self, idx: u64) -> Position<R> {
        let (wm, wk, bm, bk) = (
            self.sig.wm as usize,
            self.sig.wk as usize,
            self.sig.bm as usize,
            self.sig.bk as usize,
        );
        let mut j = 0;
        while self.offsets[j + 1] <= idx {
            j += 1;
        }
        let r = idx - self.offsets[j];
        let (men, kings) = (r / self.kings, r % self.kings);
        let h = Self::row();
        let mcount = Self::middle().count_ones() as usize;
        let nb = Self::N - h - (wm - j);
        let (wmen_r, r_bm) = (men / binom(nb, bm), men % binom(nb, bm));
        let per_mid = binom(mcount, wm - j);
        let (r_back, r_mid) = (wmen_r / per_mid, wmen_r % per_mid);
        let wmen = unrank_in(R::Geo::BOTTOM_ROW, h, j, r_back)
            | unrank_in(Self::middle(), mcount, wm - j, r_mid);
        let bmen = unrank_in(R::Geo::SQUARES & !R::Geo::BOTTOM_ROW & !wmen, nb, bm, r_bm);
        let free = R::Geo::SQUARES & !(wmen | bmen);
        let f = Self::N - wm - bm;
        let per_bk = binom(f - wk, bk);
        let wkings = unrank_in(free, f, wk, kings / per_bk);
        let bkings = unrank_in(free & !wkings, f - wk, bk, kings % per_bk);
        Position::from_parts(wmen | wkings, bmen | bkings, wkings | bkings, Color::White)
    }
}
