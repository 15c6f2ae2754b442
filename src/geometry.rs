//! Boards as bitboards: square numbering, direction shifts and masks.
//!
//! Every board fits in one `u64`. The two diagonal boards use a *ghost*
//! layout: the playable squares are numbered row by row from the top (the
//! side Black starts on), half a row at a time, and one unused bit (a ghost)
//! follows every pair of rows. With `H` playable squares per row, square `s`
//! lives at bit `s + s / (2H)` and each diagonal step is a constant shift of
//! `H` or `H + 1` bits. A step off the left or right edge lands on a ghost,
//! and ghosts are never in [`Geometry::SQUARES`], so `empty = SQUARES &
//! !occupied` never lets a piece walk off the board and no edge masks are
//! needed.
//!
//! ```text
//!   8x8 (H = 4), bits:            10x10 (H = 5) starts the same way:
//!      .  0  .  1  .  2  .  3        .  0  .  1  .  2  .  3  .  4
//!      4  .  5  .  6  .  7  .        5  .  6  .  7  .  8  .  9  .
//!   (ghost 8)                     (ghost 10)
//!      .  9  . 10  . 11  . 12        . 11  . 12  . 13  . 14  . 15
//!     13  . 14  . 15  . 16  .       16  . 17  . 18  . 19  . 20  .
//!   (ghost 17) ...                (ghost 21) ...
//! ```
//!
//! Up (towards the top row) is a right shift, down a left shift:
//! up-left `>> (H + 1)`, up-right `>> H`, down-right `<< (H + 1)`,
//! down-left `<< H`.
//!
//! The orthogonal board (Turkish) uses all 64 squares, bit `rank * 8 + file`
//! with a1 = 0; its sideways steps mask the wrapping file.

/// A set of squares, one bit each, in a geometry's layout.
pub type Bitboard = u64;

/// One of the four directions of a board. Opposite directions differ by 2.
pub type Dir = usize;

/// The direction opposite to `d`.
#[inline(always)]
pub const fn opposite(d: Dir) -> Dir {
    d ^ 2
}

/// Iterates over the bits of a bitboard, lowest first, as one-bit boards.
#[derive(Clone, Copy, Debug)]
pub struct Bits(pub Bitboard);

impl Iterator for Bits {
    type Item = Bitboard;
    #[inline(always)]
    fn next(&mut self) -> Option<Bitboard> {
        if self.0 == 0 {
            None
        } else {
            let b = self.0 & self.0.wrapping_neg();
            self.0 ^= b;
            Some(b)
        }
    }
}

/// Index of the single set bit of `b`.
#[inline(always)]
pub const fn bit_index(b: Bitboard) -> usize {
    b.trailing_zeros() as usize
}

/// The shape of a board: which bits are squares, how to step in each
/// direction, and how squares are named by coordinates.
///
/// Directions are numbered so that `0` and `1` point up (towards the top
/// row, where Black starts) and `2` and `3` point down; `d ^ 2` is the
/// opposite of `d`.
pub trait Geometry: Copy + Default + Send + Sync + std::fmt::Debug + 'static {
    /// Number of playable squares.
    const NUM_SQUARES: usize;
    /// Bit mask of the playable squares.
    const SQUARES: Bitboard;
    /// Board width and height in squares (all squares, dark and light).
    const WIDTH: usize;
    /// Board height in squares.
    const HEIGHT: usize;
    /// True when pieces move along diagonals, false for ranks and files.
    const DIAGONAL: bool;
    /// Top row (Black's back rank; White men promote here).
    const TOP_ROW: Bitboard;
    /// Bottom row (White's back rank; Black men promote here).
    const BOTTOM_ROW: Bitboard;
    /// Squares of each rank, 0 = bottom (White's side); ranks past
    /// `HEIGHT` are empty.
    const RANKS: [Bitboard; 10];

    /// Shifts every bit of `b` one step in direction `d`; bits that leave
    /// the board are dropped or land on ghosts.
    fn step(b: Bitboard, d: Dir) -> Bitboard;

    /// Bit of square index `s` (0-based, in the geometry's square order).
    fn bit(s: usize) -> Bitboard;

    /// Square index of a one-bit board.
    fn square(b: Bitboard) -> usize;

    /// (file, rank) of square index `s`, 0-based, file 0 = left edge as White
    /// sees the board, rank 0 = bottom (White's side).
    fn coords(s: usize) -> (usize, usize);

    /// Square index at (file, rank), if that square is playable.
    fn from_coords(file: usize, rank: usize) -> Option<usize>;

    /// Whether two bit indices lie on the same rank.
    fn same_rank(a: u8, b: u8) -> bool;

    /// Whether [`Geometry::mirror`] maps the playable squares onto
    /// themselves. Every rule set's men move alike to the left and to the
    /// right, so there the mirror is a symmetry of the rules: a position
    /// and its mirror image have the same value (the endgame solver solves
    /// one of the two). False where the mirror would take dark squares to
    /// light ones (every diagonal board).
    const MIRRORS: bool = false;

    /// The board reflected left to right (file `f` to `WIDTH - 1 - f`),
    /// where [`Geometry::MIRRORS`]; the identity elsewhere.
    #[inline(always)]
    fn mirror(b: Bitboard) -> Bitboard {
        b
    }
}

/// Builds the playable-square mask of a ghost layout with `h` squares per row
/// and `rows` rows.
const fn ghost_mask(h: usize, rows: usize) -> u64 {
    let mut m = 0u64;
    let mut s = 0;
    while s < h * rows {
        m |= 1u64 << (s + s / (2 * h));
        s += 1;
    }
    m
}

/// Mask of one row (0 = top) in a ghost layout.
const fn ghost_row(h: usize, row: usize) -> u64 {
    let mut m = 0u64;
    let mut k = 0;
    while k < h {
        let s = row * h + k;
        m |= 1u64 << (s + s / (2 * h));
        k += 1;
    }
    m
}

/// Rank masks (0 = bottom) of a ghost layout.
const fn ghost_ranks(h: usize, rows: usize) -> [u64; 10] {
    let mut r = [0u64; 10];
    let mut rank = 0;
    while rank < rows {
        r[rank] = ghost_row(h, rows - 1 - rank);
        rank += 1;
    }
    r
}

macro_rules! diagonal_geometry {
    ($(#[$doc:meta])* $name:ident, $h:expr, $rows:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl Geometry for $name {
            const NUM_SQUARES: usize = $h * $rows;
            const SQUARES: Bitboard = ghost_mask($h, $rows);
            const WIDTH: usize = 2 * $h;
            const HEIGHT: usize = $rows;
            const DIAGONAL: bool = true;
            const TOP_ROW: Bitboard = ghost_row($h, 0);
            const BOTTOM_ROW: Bitboard = ghost_row($h, $rows - 1);
            const RANKS: [Bitboard; 10] = ghost_ranks($h, $rows);

            #[inline(always)]
            fn step(b: Bitboard, d: Dir) -> Bitboard {
                match d {
                    0 => b >> ($h + 1), // up-left
                    1 => b >> $h,       // up-right
                    2 => b << ($h + 1), // down-right
                    _ => b << $h,       // down-left
                }
            }

            #[inline(always)]
            fn bit(s: usize) -> Bitboard {
                1u64 << (s + s / (2 * $h))
            }

            #[inline(always)]
            fn square(b: Bitboard) -> usize {
                let i = bit_index(b);
                i - i / (2 * $h + 1)
            }

            fn coords(s: usize) -> (usize, usize) {
                let row = s / $h;
                let file = 2 * (s % $h) + if row % 2 == 0 { 1 } else { 0 };
                (file, $rows - 1 - row)
            }

            #[inline(always)]
            fn same_rank(a: u8, b: u8) -> bool {
                let row = |i: u8| {
                    let s = i as usize - i as usize / (2 * $h + 1);
                    s / $h
                };
                row(a) == row(b)
            }

            fn from_coords(file: usize, rank: usize) -> Option<usize> {
                if file >= 2 * $h || rank >= $rows || (file + rank) % 2 != 0 {
                    return None;
                }
                let row = $rows - 1 - rank;
                Some(row * $h + file / 2)
            }
        }
    };
}

diagonal_geometry!(
    /// 8x8 board, 32 dark squares, a1 dark. Square index `s` is the English
    /// square number minus one (0 = b8, 31 = g1).
    Diag8,
    4,
    8
);

diagonal_geometry!(
    /// 10x10 board, 50 dark squares, a1 dark. Square index `s` is the
    /// International square number minus one (0 = b10, 49 = i1).
    Diag10,
    5,
    10
);

/// 8x8 board with all 64 squares, pieces moving along ranks and files
/// (Turkish). Square index = bit = `rank * 8 + file`, a1 = 0.
///
/// Directions: 0 = up (north), 1 = right (east), 2 = down (south),
/// 3 = left (west).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Ortho8;

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;

impl Geometry for Ortho8 {
    const NUM_SQUARES: usize = 64;
    const SQUARES: Bitboard = u64::MAX;
    const WIDTH: usize = 8;
    const HEIGHT: usize = 8;
    const DIAGONAL: bool = false;
    const TOP_ROW: Bitboard = 0xFF00_0000_0000_0000;
    const BOTTOM_ROW: Bitboard = 0xFF;
    const RANKS: [Bitboard; 10] = [
        0xFF,
        0xFF << 8,
        0xFF << 16,
        0xFF << 24,
        0xFF << 32,
        0xFF << 40,
        0xFF << 48,
        0xFF << 56,
        0,
        0,
    ];

    #[inline(always)]
    fn step(b: Bitboard, d: Dir) -> Bitboard {
        match d {
            0 => b << 8,
            1 => (b << 1) & !FILE_A,
            2 => b >> 8,
            _ => (b >> 1) & !FILE_H,
        }
    }

    #[inline(always)]
    fn bit(s: usize) -> Bitboard {
        1u64 << s
    }

    #[inline(always)]
    fn square(b: Bitboard) -> usize {
        bit_index(b)
    }

    fn coords(s: usize) -> (usize, usize) {
        (s % 8, s / 8)
    }

    fn from_coords(file: usize, rank: usize) -> Option<usize> {
        (file < 8 && rank < 8).then_some(rank * 8 + file)
    }

    #[inline(always)]
    fn same_rank(a: u8, b: u8) -> bool {
        a >> 3 == b >> 3
    }

    const MIRRORS: bool = true;

    /// Each rank's eight bits reversed: a1 <-> h1.
    #[inline(always)]
    fn mirror(b: Bitboard) -> Bitboard {
        b.reverse_bits().swap_bytes()
    }
}

/// All squares reachable from `b` (one bit) in direction `d` through empty
/// squares, and the first non-empty square met (0 if the ray leaves the
/// board).
#[inline(always)]
pub fn ray<G: Geometry>(b: Bitboard, d: Dir, empty: Bitboard) -> (Bitboard, Bitboard) {
    let mut path = 0;
    let mut sq = G::step(b, d);
    while sq & empty != 0 {
        path |= sq;
        sq = G::step(sq, d);
    }
    (path, sq & G::SQUARES)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_geometry<G: Geometry>() {
        assert_eq!(G::SQUARES.count_ones() as usize, G::NUM_SQUARES);
        for s in 0..G::NUM_SQUARES {
            let b = G::bit(s);
            assert_eq!(G::square(b), s);
            assert!(b & G::SQUARES != 0);
            let (f, r) = G::coords(s);
            assert_eq!(G::from_coords(f, r), Some(s));
            // Each step goes to the geometric neighbour or off the board.
            for d in 0..4 {
                let (df, dr): (isize, isize) = if G::DIAGONAL {
                    [(-1, 1), (1, 1), (1, -1), (-1, -1)][d]
                } else {
                    [(0, 1), (1, 0), (0, -1), (-1, 0)][d]
                };
                let nf = f as isize + df;
                let nr = r as isize + dr;
                let stepped = G::step(b, d) & G::SQUARES;
                let expect = if nf >= 0 && nr >= 0 {
                    G::from_coords(nf as usize, nr as usize)
                } else {
                    None
                };
                match expect {
                    Some(t) => assert_eq!(stepped, G::bit(t), "square {s} dir {d}"),
                    None => assert_eq!(stepped, 0, "square {s} dir {d}"),
                }
            }
        }
        assert_eq!(G::TOP_ROW.count_ones() as usize, G::NUM_SQUARES / G::HEIGHT);
        for b in Bits(G::TOP_ROW) {
            assert_eq!(G::coords(G::square(b)).1, G::HEIGHT - 1);
        }
        for b in Bits(G::BOTTOM_ROW) {
            assert_eq!(G::coords(G::square(b)).1, 0);
        }
        for (rank, &mask) in G::RANKS.iter().enumerate() {
            for s in 0..G::NUM_SQUARES {
                let on = G::coords(s).1 == rank;
                assert_eq!(mask & G::bit(s) != 0, on, "rank {rank} square {s}");
            }
        }
        // The mirror takes each square to the one reflected left to right,
        // where that square is playable on every square, and nowhere else.
        let reflected = (0..G::NUM_SQUARES).all(|s| {
            let (f, r) = G::coords(s);
            G::from_coords(G::WIDTH - 1 - f, r).is_some()
        });
        assert_eq!(G::MIRRORS, reflected);
        for s in 0..G::NUM_SQUARES {
            let (f, r) = G::coords(s);
            let expect = if G::MIRRORS {
                G::bit(G::from_coords(G::WIDTH - 1 - f, r).expect("reflected"))
            } else {
                G::bit(s)
            };
            assert_eq!(G::mirror(G::bit(s)), expect, "square {s}");
        }
    }

    #[test]
    fn diag8_steps_match_coordinates() {
        check_geometry::<Diag8>();
        // English square 1 is b8, 29 is a1.
        assert_eq!(Diag8::coords(0), (1, 7));
        assert_eq!(Diag8::coords(28), (0, 0));
    }

    #[test]
    fn diag10_steps_match_coordinates() {
        check_geometry::<Diag10>();
        // International square 1 is b10, 46 is a1.
        assert_eq!(Diag10::coords(0), (1, 9));
        assert_eq!(Diag10::coords(45), (0, 0));
    }

    #[test]
    fn ortho8_steps_match_coordinates() {
        check_geometry::<Ortho8>();
    }
}
