//! The position (pieces and side to move) and its Zobrist key.
//!
//! A [`Position`] is small and `Copy`: the search and perft use copy-make
//! (`let child = pos.played(&mv)`), so there is no unmake. The key is
//! updated incrementally by [`Position::play`]; [`Position::compute_key`]
//! recomputes it from scratch for tests and for positions built by hand.

use std::marker::PhantomData;

use crate::geometry::{bit_index, Bitboard, Bits, Geometry};
use crate::movegen::Move;
use crate::rules::{Color, Rules};

/// Pseudo-random numbers from SplitMix64, at compile time.
const fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

const fn zobrist_table() -> [[[u64; 64]; 2]; 2] {
    let mut t = [[[0u64; 64]; 2]; 2];
    let mut seed = 0x6B6F_6E64_6176_6F00u64; // "kondavo"
    let mut c = 0;
    while c < 2 {
        let mut k = 0;
        while k < 2 {
            let mut b = 0;
            while b < 64 {
                seed = splitmix(seed);
                t[c][k][b] = seed;
                b += 1;
            }
            k += 1;
        }
        c += 1;
    }
    t
}

/// Zobrist keys by [colour][0 = man, 1 = king][bit index].
static ZOBRIST: [[[u64; 64]; 2]; 2] = zobrist_table();
/// XORed in when Black is to move.
const ZOBRIST_BLACK: u64 = splitmix(0x5EED_B1AC);

/// A position of rule set `R`: the pieces of each side, which of them are
/// kings, the side to move and the Zobrist key.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position<R: Rules> {
    pieces: [Bitboard; 2],
    kings: Bitboard,
    side: Color,
    key: u64,
    rules: PhantomData<R>,
}

impl<R: Rules> std::fmt::Debug for Position<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Position<{}>({})",
            R::NAME,
            crate::notation::fen::write_fen(self)
        )
    }
}

impl<R: Rules> Default for Position<R> {
    fn default() -> Self {
        Self::start()
    }
}

impl<R: Rules> Position<R> {
    /// The start position of the variant.
    pub fn start() -> Self {
        let (white, black) = R::start_men();
        Self::from_parts(white, black, 0, R::FIRST_TO_MOVE)
    }

    /// Builds a position from bitboards in the geometry's layout. Pieces
    /// outside the board are dropped; a square claimed by both sides goes to
    /// White; kings not on a piece are dropped.
    pub fn from_parts(white: Bitboard, black: Bitboard, kings: Bitboard, side: Color) -> Self {
        let white = white & <R::Geo as Geometry>::SQUARES;
        let black = black & <R::Geo as Geometry>::SQUARES & !white;
        let mut p = Position {
            pieces: [white, black],
            kings: kings & (white | black),
            side,
            key: 0,
            rules: PhantomData,
        };
        p.key = p.compute_key();
        p
    }

    /// The first man (side, square index) standing on its own promotion
    /// row, which no legal game reaches: position readers refuse it.
    pub fn man_on_promotion_row(&self) -> Option<(Color, usize)> {
        [Color::White, Color::Black].into_iter().find_map(|c| {
            let on_row = self.men(c) & R::promotion_row(c);
            (on_row != 0).then(|| (c, R::Geo::square(on_row & on_row.wrapping_neg())))
        })
    }

    /// Pieces (men and kings) of side `c`.
    #[inline(always)]
    pub fn pieces(&self, c: Color) -> Bitboard {
        self.pieces[c.index()]
    }

    /// All kings of both sides.
    #[inline(always)]
    pub fn kings(&self) -> Bitboard {
        self.kings
    }

    /// Men of side `c`.
    #[inline(always)]
    pub fn men(&self, c: Color) -> Bitboard {
        self.pieces[c.index()] & !self.kings
    }

    /// Kings of side `c`.
    #[inline(always)]
    pub fn kings_of(&self, c: Color) -> Bitboard {
        self.pieces[c.index()] & self.kings
    }

    /// All occupied squares.
    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.pieces[0] | self.pieces[1]
    }

    /// All empty playable squares.
    #[inline(always)]
    pub fn empty(&self) -> Bitboard {
        <R::Geo as Geometry>::SQUARES & !self.occupied()
    }

    /// Side to move.
    #[inline(always)]
    pub fn side(&self) -> Color {
        self.side
    }

    /// Zobrist key of pieces and side to move.
    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// Number of pieces of side `c`.
    pub fn count(&self, c: Color) -> u32 {
        self.pieces(c).count_ones()
    }

    /// Plies played since the start position, where the position itself
    /// tells: with every piece of the start still on the board and no
    /// king, every move so far was a man's step, one row forward, so the
    /// plies are the rows the men of both sides have advanced. `None` after
    /// a capture or a promotion. (Turkish men also step sideways, which no
    /// row counts: there it is a lower bound.)
    pub fn opening_plies(&self) -> Option<usize> {
        let start = Self::start();
        if self.kings() != 0
            || self.count(Color::White) != start.count(Color::White)
            || self.count(Color::Black) != start.count(Color::Black)
        {
            return None;
        }
        let rows = |b: Bitboard| -> i64 {
            (0..<R::Geo as Geometry>::HEIGHT)
                .map(|r| r as i64 * (b & <R::Geo as Geometry>::RANKS[r]).count_ones() as i64)
                .sum()
        };
        let white = rows(self.men(Color::White)) - rows(start.men(Color::White));
        let black = rows(self.men(Color::Black)) - rows(start.men(Color::Black));
        Some((white.abs() + black.abs()) as usize)
    }

    /// The same pieces with the other side to move.
    pub fn with_side(&self, side: Color) -> Self {
        Self::from_parts(self.pieces[0], self.pieces[1], self.kings, side)
    }

    /// Recomputes the Zobrist key from the pieces.
    pub fn compute_key(&self) -> u64 {
        let mut k = 0;
        for c in [Color::White, Color::Black] {
            for b in Bits(self.men(c)) {
                k ^= ZOBRIST[c.index()][0][bit_index(b)];
            }
            for b in Bits(self.kings_of(c)) {
                k ^= ZOBRIST[c.index()][1][bit_index(b)];
            }
        }
        if self.side == Color::Black {
            k ^= ZOBRIST_BLACK;
        }
        k
    }

    /// Plays a move generated for this position. The key is updated
    /// incrementally.
    #[inline]
    pub fn play(&mut self, mv: &Move) {
        self.play_with::<true>(mv);
    }

    /// Plays a move; with `HASH = false` the key is not updated and is
    /// stale afterwards (for walks that never look at keys, such as perft).
    #[inline(always)]
    pub fn play_with<const HASH: bool>(&mut self, mv: &Move) {
        let us = self.side.index();
        let them = us ^ 1;
        let from = 1u64 << mv.from;
        let to = 1u64 << mv.to;
        let was_king = self.kings & from != 0;
        let becomes_king = was_king || mv.promote;

        // Captured pieces first: in Turkish a capture can end on the square
        // of a piece it took earlier in the chain.
        if mv.captured != 0 {
            if HASH {
                let zt = &ZOBRIST[them];
                for b in Bits(mv.captured) {
                    let king = (self.kings & b != 0) as usize;
                    self.key ^= zt[king][bit_index(b)];
                }
            }
            self.pieces[them] &= !mv.captured;
            self.kings &= !mv.captured;
        }

        self.pieces[us] ^= from ^ to;
        self.kings &= !from;
        if becomes_king {
            self.kings |= to;
        }
        let z = &ZOBRIST[us];
        self.key ^=
            z[was_king as usize][mv.from as usize] ^ z[becomes_king as usize][mv.to as usize];
        self.side = self.side.flip();
        if HASH {
            self.key ^= ZOBRIST_BLACK;
        }
    }

    /// The position after `mv`.
    #[inline]
    pub fn played(&self, mv: &Move) -> Self {
        let mut p = *self;
        p.play(mv);
        p
    }

    /// True when `mv` is irreversible: a capture, or a man moving forward.
    /// The N-move counter and the repetition window restart after such a
    /// move. (A Turkish man's sideways step can be undone, so it is not.)
    pub fn is_irreversible(&self, mv: &Move) -> bool {
        mv.captured != 0
            || (self.kings & (1u64 << mv.from) == 0
                && !<R::Geo as Geometry>::same_rank(mv.from, mv.to))
    }

    /// The square index (geometry order) of a bit index.
    pub fn square_of_bit(bit: u8) -> usize {
        <R::Geo as Geometry>::square(1u64 << bit)
    }
}
