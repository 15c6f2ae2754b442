//! Legal move generation, generic over the rules type.
//!
//! A move is `from`, `to` and the set of captured pieces (Scan's idea): two
//! capture routes with the same from, to and captured set are the same move,
//! and are listed once unless duplicates are asked for. The route itself is
//! kept only when a caller asks for it ([`captures_with_paths`]), for
//! notation.
//!
//! Captures are compulsory, so [`generate`] lists captures when there are
//! any and quiet moves otherwise. Men that can capture are found for the
//! whole board at once with shifts; only those start a per-piece search of
//! the capture tree. Precedence rules (majority, Italian order) are applied
//! while moves are added: a better capture clears the list.

pub mod perft;

use arrayvec::ArrayVec;

use crate::geometry::{bit_index, opposite, Bitboard, Bits, Dir, Geometry};
use crate::position::Position;
use crate::rules::{Color, MidCapturePromotion, Precedence, Rules};

/// A move: origin, destination, captured pieces, promotion.
///
/// `from` and `to` are *bit indices* in the geometry's layout (see
/// [`crate::geometry`]); `from == to` is possible for a capture that comes
/// back to its start square.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Move {
    /// Pieces taken by this move.
    pub captured: Bitboard,
    /// Bit index of the moving piece.
    pub from: u8,
    /// Bit index where the piece ends.
    pub to: u8,
    /// A man becomes a king.
    pub promote: bool,
}

impl Move {
    /// True for captures.
    #[inline(always)]
    pub fn is_capture(&self) -> bool {
        self.captured != 0
    }

    /// Number of pieces captured.
    #[inline(always)]
    pub fn capture_count(&self) -> u32 {
        self.captured.count_ones()
    }
}

/// Capacity of a [`MoveList`]. The largest move count of a legal position
/// in any of our variants is well below this (20 flying kings on 10x10 have
/// at most 340 quiet moves); further moves would be dropped, never overflow.
pub const MAX_MOVES: usize = 384;

/// Moves of one position, on the stack.
pub type MoveList = ArrayVec<Move, MAX_MOVES>;

/// Receives the landing squares of a capture route as it is explored.
/// `NoPath` compiles to nothing; [`PathRecorder`] keeps every route.
pub trait PathSink {
    /// True when routes are recorded.
    const ON: bool;
    /// The piece lands on bit `b` (one jump further).
    fn push(&mut self, b: u8);
    /// Undo the last `push`.
    fn pop(&mut self);
    /// The list was cleared for a better capture.
    fn clear(&mut self);
    /// A move was added with the current route.
    fn commit(&mut self);
}

/// Records nothing.
#[derive(Debug, Default)]
pub struct NoPath;

impl PathSink for NoPath {
    const ON: bool = false;
    #[inline(always)]
    fn push(&mut self, _: u8) {}
    #[inline(always)]
    fn pop(&mut self) {}
    #[inline(always)]
    fn clear(&mut self) {}
    #[inline(always)]
    fn commit(&mut self) {}
}

/// Records the landing squares (bit indices) of each added capture, in the
/// order of the move list.
#[derive(Debug, Default)]
pub struct PathRecorder {
    stack: Vec<u8>,
    /// `paths[i]` is the route of the i-th move: each landing square in
    /// order, the last one being the move's `to`.
    pub paths: Vec<Vec<u8>>,
}

impl PathSink for PathRecorder {
    const ON: bool = true;
    fn push(&mut self, b: u8) {
        self.stack.push(b);
    }
    fn pop(&mut self) {
        self.stack.pop();
    }
    fn clear(&mut self) {
        self.paths.clear();
    }
    fn commit(&mut self) {
        self.paths.push(self.stack.clone());
    }
}

/// Directions other than the reverse of `d`: the two turns and straight on.
#[inline(always)]
const fn onward(d: Dir) -> [Dir; 3] {
    [(d + 1) & 3, (d + 3) & 3, d]
}

/// State of one capture search for one side.
struct CaptureGen<'a, R: Rules, S: PathSink, const KEEP_DUPS: bool> {
    list: &'a mut MoveList,
    sink: &'a mut S,
    /// Precedence key of the moves in the list.
    best: u32,
    side: Color,
    /// The moving piece's start square (one bit).
    from: Bitboard,
    /// The moving piece started as a king.
    by_king: bool,
    /// Enemy pieces that may still be jumped.
    victims: Bitboard,
    /// Kings among the enemy pieces (for precedence and the Italian rule).
    enemy_kings: Bitboard,
    /// Empty squares (the mover's start square counts as empty).
    empty: Bitboard,
    rules: std::marker::PhantomData<R>,
}

impl<R: Rules, S: PathSink, const KEEP_DUPS: bool> CaptureGen<'_, R, S, KEEP_DUPS> {
    /// Enemy pieces a man may jump.
    #[inline(always)]
    fn man_victims(&self) -> Bitboard {
        if R::MEN_CAPTURE_KINGS {
            self.victims
        } else {
            self.victims & !self.enemy_kings
        }
    }

    /// Italian order: bit `15 - jump` set when the jump took a king, so that
    /// a larger mask means kings met earlier.
    #[inline(always)]
    fn king_order(&self, over: Bitboard, jumps: u32) -> u32 {
        if R::PRECEDENCE == Precedence::Italian && over & self.enemy_kings != 0 {
            1 << (15 - jumps)
        } else {
            0
        }
    }

    /// Adds a finished capture ending on `to`.
    #[inline(always)]
    fn add(&mut self, to: Bitboard, captured: Bitboard, promote: bool, order: u32) {
        let n = captured.count_ones();
        let key = match R::PRECEDENCE {
            Precedence::Free => 0,
            Precedence::Quantity => n,
            Precedence::QuantityThenKings => (n << 8) | (captured & self.enemy_kings).count_ones(),
            Precedence::Italian => {
                (n << 24)
                    | ((self.by_king as u32) << 23)
                    | ((captured & self.enemy_kings).count_ones() << 16)
                    | order
            }
        };
        if key < self.best {
            return;
        }
        if key > self.best {
            self.list.clear();
            self.sink.clear();
            self.best = key;
        }
        let mv = Move {
            captured,
            from: bit_index(self.from) as u8,
            to: bit_index(to) as u8,
            promote,
        };
        // Two routes can only take the same set of pieces when there are at
        // least three of them.
        if !KEEP_DUPS && n >= 3 && self.list.contains(&mv) {
            return;
        }
        if self.list.try_push(mv).is_ok() {
            self.sink.commit();
        }
    }

    /// Removes a jumped piece at once (Turkish), returning what to restore.
    #[inline(always)]
    fn take(&mut self, over: Bitboard) {
        self.victims &= !over;
        if R::IMMEDIATE_REMOVAL {
            self.empty |= over;
        }
    }

    #[inline(always)]
    fn untake(&mut self, over: Bitboard) {
        self.victims |= over;
        if R::IMMEDIATE_REMOVAL {
            self.empty &= !over;
        }
    }

    /// Continues a man's capture from `cur`; `captured` are the pieces taken
    /// so far (at least one unless this is the start).
    fn man_chain(&mut self, cur: Bitboard, captured: Bitboard, order: u32) {
        let jumps = captured.count_ones();
        let promo = R::promotion_row(self.side);
        let mut found = false;
        for &d in R::man_capture_dirs(self.side) {
            let over = R::Geo::step(cur, d) & self.man_victims();
            if over == 0 {
                continue;
            }
            let land = R::Geo::step(over, d) & self.empty;
            if land == 0 {
                continue;
            }
            found = true;
            let captured = captured | over;
            let order = order | self.king_order(over, jumps);
            self.take(over);
            self.sink.push(bit_index(land) as u8);
            if land & promo != 0 {
                match R::MID_CAPTURE_PROMOTION {
                    MidCapturePromotion::EndsMove => self.add(land, captured, true, order),
                    MidCapturePromotion::ContinueAsKing => {
                        self.king_chain(land, captured, order, d, true, true)
                    }
                    MidCapturePromotion::PassThrough => self.man_chain(land, captured, order),
                }
            } else {
                self.man_chain(land, captured, order);
            }
            self.sink.pop();
            self.untake(over);
        }
        if !found && captured != 0 {
            self.add(cur, captured, cur & promo != 0, order);
        }
    }

    /// The piece a king at `cur` would jump in direction `d` (0 if none),
    /// and the first square beyond it.
    #[inline(always)]
    fn king_target(&self, cur: Bitboard, d: Dir) -> (Bitboard, Bitboard) {
        let mut sq = R::Geo::step(cur, d);
        if R::FLYING_KINGS {
            while sq & self.empty != 0 {
                sq = R::Geo::step(sq, d);
            }
        }
        let over = sq & self.victims;
        if over == 0 {
            return (0, 0);
        }
        (over, R::Geo::step(over, d) & self.empty)
    }

    /// Whether a king at `l`, having arrived in direction `d`, can jump
    /// again turning left or right (`straight` adds the direction `d`).
    #[inline(always)]
    fn king_can_continue(&self, l: Bitboard, d: Dir, straight: bool) -> bool {
        let dirs = onward(d);
        let n = if straight { 3 } else { 2 };
        dirs[..n].iter().any(|&e| self.king_target(l, e).1 != 0)
    }

    /// Continues a king's capture from `cur`. `arrived` is the direction of
    /// the last jump (none at the start: `start`); a king never goes back
    /// along it (the captured piece blocks the way, or, in Turkish, the
    /// 180-degree rule forbids it). `start_or_straight` allows going on in
    /// the same direction: a flying king's run sets it on its first landing
    /// square only, so a straight continuation is found once, not once per
    /// square of the run.
    fn king_chain(
        &mut self,
        cur: Bitboard,
        captured: Bitboard,
        order: u32,
        arrived: Dir,
        start_or_straight: bool,
        promoted: bool,
    ) {
        let jumps = captured.count_ones();
        let mut found = false;
        let dirs: [Dir; 4] = if captured == 0 {
            [0, 1, 2, 3]
        } else {
            let o = onward(arrived);
            [o[0], o[1], o[2], o[2]]
        };
        let n = if captured == 0 {
            4
        } else if start_or_straight {
            3
        } else {
            2
        };
        for &d in &dirs[..n] {
            let (over, first_land) = self.king_target(cur, d);
            if first_land == 0 {
                continue;
            }
            found = true;
            let captured = captured | over;
            let order = order | self.king_order(over, jumps);
            self.take(over);
            if R::FLYING_KINGS {
                // Landing squares: the empty run beyond the captured piece.
                let mut lands = 0;
                let mut sq = first_land;
                while sq & self.empty != 0 {
                    lands |= sq;
                    sq = R::Geo::step(sq, d);
                }
                // The chain must go on when it can: only landing squares
                // that allow a further jump are kept, if there are any.
                let straight_on = {
                    let over2 = sq & self.victims;
                    over2 != 0 && R::Geo::step(over2, d) & self.empty != 0
                };
                let mut cont = 0;
                for l in Bits(lands) {
                    if self.king_can_continue(l, d, false) {
                        cont |= l;
                    }
                }
                if cont != 0 || straight_on {
                    for l in Bits(lands) {
                        let straight = straight_on
                            && ((KEEP_DUPS && R::KEEP_DUPS_EACH_LANDING) || l == first_land);
                        if cont & l != 0 || straight {
                            self.sink.push(bit_index(l) as u8);
                            self.king_chain(l, captured, order, d, straight, promoted);
                            self.sink.pop();
                        }
                    }
                } else {
                    for l in Bits(lands) {
                        self.sink.push(bit_index(l) as u8);
                        self.add(l, captured, promoted, order);
                        self.sink.pop();
                    }
                }
            } else {
                self.sink.push(bit_index(first_land) as u8);
                self.king_chain(first_land, captured, order, d, true, promoted);
                self.sink.pop();
            }
            self.untake(over);
        }
        if !found && captured != 0 {
            self.add(cur, captured, promoted, order);
        }
    }
}

/// For each direction, the men of `side` that can jump in it at once
/// (whole-board test: an enemy piece next to them, an empty square beyond).
#[inline(always)]
fn man_jumps<R: Rules>(pos: &Position<R>, side: Color, empty: Bitboard) -> [Bitboard; 4] {
    let men = pos.men(side);
    let mut victims = pos.pieces(side.flip());
    if !R::MEN_CAPTURE_KINGS {
        victims &= !pos.kings();
    }
    let mut froms = [0; 4];
    if men == 0 {
        return froms;
    }
    for &d in R::man_capture_dirs(side) {
        let back = opposite(d);
        froms[d] = men & R::Geo::step(victims & R::Geo::step(empty, back), back);
    }
    froms
}

/// Whether a king of `side` can capture. Flying kings: per direction, all
/// kings' rays are filled through empty squares at once (a fixed number of
/// steps, no branch), and a capture is a victim first met with an empty
/// square behind it. Short kings: a step and a jump per king.
#[inline]
fn kings_capture<R: Rules>(pos: &Position<R>, side: Color, empty: Bitboard) -> bool {
    let victims = pos.pieces(side.flip());
    let kings = pos.kings_of(side);
    if R::FLYING_KINGS {
        if kings == 0 {
            return false;
        }
        // A victim stands at most LINE - 2 steps away (a landing square
        // behind it), so the empty squares before it are at most LINE - 3
        // steps away: the first step and LINE - 4 more reach them.
        let line = if R::Geo::WIDTH > R::Geo::HEIGHT {
            R::Geo::WIDTH
        } else {
            R::Geo::HEIGHT
        };
        let mut hit = 0;
        for d in 0..4 {
            let mut fill = R::Geo::step(kings, d) & empty;
            for _ in 0..line.saturating_sub(4) {
                fill |= R::Geo::step(fill, d) & empty;
            }
            let first = R::Geo::step(fill | kings, d) & victims;
            hit |= R::Geo::step(first, d) & empty;
        }
        return hit != 0;
    }
    for k in Bits(kings) {
        for d in 0..4 {
            let sq = R::Geo::step(k, d);
            if sq & victims != 0 && R::Geo::step(sq, d) & empty != 0 {
                return true;
            }
        }
    }
    false
}

/// Generates every legal capture into `list`, with the precedence rule
/// applied, starting the men's chains from the whole-board jump masks
/// `jumps`. Routes are recorded in `sink`. `KEEP_DUPS` keeps two routes with
/// the same from, to and captured set as two moves.
fn gen_captures_from<R: Rules, S: PathSink, const KEEP_DUPS: bool>(
    pos: &Position<R>,
    jumps: &[Bitboard; 4],
    list: &mut MoveList,
    sink: &mut S,
) {
    let side = pos.side();
    let empty = pos.empty();
    let mut g = CaptureGen::<R, S, KEEP_DUPS> {
        list,
        sink,
        best: 0,
        side,
        from: 0,
        by_king: false,
        victims: pos.pieces(side.flip()),
        enemy_kings: pos.kings_of(side.flip()),
        empty,
        rules: std::marker::PhantomData,
    };
    let promo = R::promotion_row(side);
    for (d, &froms) in jumps.iter().enumerate() {
        for b in Bits(froms) {
            // The first jump is known to be possible: make it here and let
            // the chain go on from the landing square.
            g.from = b;
            g.empty = empty | b;
            let over = R::Geo::step(b, d);
            let land = R::Geo::step(over, d);
            let order = g.king_order(over, 0);
            g.take(over);
            g.sink.push(bit_index(land) as u8);
            if land & promo != 0 {
                match R::MID_CAPTURE_PROMOTION {
                    MidCapturePromotion::EndsMove => g.add(land, over, true, order),
                    MidCapturePromotion::ContinueAsKing => {
                        g.king_chain(land, over, order, d, true, true)
                    }
                    MidCapturePromotion::PassThrough => g.man_chain(land, over, order),
                }
            } else {
                g.man_chain(land, over, order);
            }
            g.sink.pop();
            g.untake(over);
        }
    }
    g.by_king = true;
    for b in Bits(pos.kings_of(side)) {
        g.from = b;
        g.empty = empty | b;
        g.king_chain(b, 0, 0, 0, true, true);
    }
}

/// Generates every legal capture of the side to move into `list`.
fn gen_captures<R: Rules, S: PathSink, const KEEP_DUPS: bool>(
    pos: &Position<R>,
    list: &mut MoveList,
    sink: &mut S,
) {
    let jumps = man_jumps(pos, pos.side(), pos.empty());
    gen_captures_from::<R, S, KEEP_DUPS>(pos, &jumps, list, sink);
}

/// All legal captures (empty when there are none).
pub fn captures<R: Rules>(pos: &Position<R>, list: &mut MoveList) {
    gen_captures::<R, NoPath, false>(pos, list, &mut NoPath);
}

/// All legal captures with their routes, duplicates kept (one entry per
/// route), for notation.
pub fn captures_with_paths<R: Rules>(pos: &Position<R>) -> (MoveList, Vec<Vec<u8>>) {
    let mut list = MoveList::new();
    let mut rec = PathRecorder::default();
    gen_captures::<R, PathRecorder, true>(pos, &mut list, &mut rec);
    (list, rec.paths)
}

/// All quiet (non-capturing) moves, whether or not a capture is available.
pub fn quiets<R: Rules>(pos: &Position<R>, list: &mut MoveList) {
    let side = pos.side();
    let empty = pos.empty();
    let promo = R::promotion_row(side);
    let men = pos.men(side);
    for &d in R::man_move_dirs(side) {
        let back = opposite(d);
        for t in Bits(R::Geo::step(men, d) & empty) {
            let from = R::Geo::step(t, back);
            let _ = list.try_push(Move {
                captured: 0,
                from: bit_index(from) as u8,
                to: bit_index(t) as u8,
                promote: t & promo != 0,
            });
        }
    }
    for k in Bits(pos.kings_of(side)) {
        let from = bit_index(k) as u8;
        for d in 0..4 {
            let mut sq = R::Geo::step(k, d) & empty;
            while sq != 0 {
                let _ = list.try_push(Move {
                    captured: 0,
                    from,
                    to: bit_index(sq) as u8,
                    promote: false,
                });
                if !R::FLYING_KINGS {
                    break;
                }
                sq = R::Geo::step(sq, d) & empty;
            }
        }
    }
}

/// Whether the side to move has a capture.
#[inline]
pub fn has_capture<R: Rules>(pos: &Position<R>) -> bool {
    side_has_capture(pos, pos.side())
}

/// Whether `side` would have a capture if it were to move (for the
/// opponent: a threat).
pub fn side_has_capture<R: Rules>(pos: &Position<R>, side: Color) -> bool {
    let empty = pos.empty();
    let j = man_jumps(pos, side, empty);
    (j[0] | j[1] | j[2] | j[3]) != 0 || kings_capture(pos, side, empty)
}

/// All legal moves: the captures if there are any, else the quiet moves.
pub fn generate<R: Rules>(pos: &Position<R>, list: &mut MoveList) {
    generate_dups::<R, false>(pos, list)
}

/// As [`generate`], keeping duplicate capture routes when `KEEP_DUPS`.
pub fn generate_dups<R: Rules, const KEEP_DUPS: bool>(pos: &Position<R>, list: &mut MoveList) {
    list.clear();
    let empty = pos.empty();
    let jumps = man_jumps(pos, pos.side(), empty);
    if (jumps[0] | jumps[1] | jumps[2] | jumps[3]) != 0 || kings_capture(pos, pos.side(), empty) {
        gen_captures_from::<R, NoPath, KEEP_DUPS>(pos, &jumps, list, &mut NoPath);
    } else {
        quiets(pos, list);
    }
}

/// Whether the side to move has a quiet move (a man or king step to an
/// empty square).
#[inline]
pub fn has_quiet<R: Rules>(pos: &Position<R>) -> bool {
    let side = pos.side();
    let empty = pos.empty();
    let men = pos.men(side);
    let mut to = 0;
    for &d in R::man_move_dirs(side) {
        to |= R::Geo::step(men, d);
    }
    let kings = pos.kings_of(side);
    for d in 0..4 {
        to |= R::Geo::step(kings, d);
    }
    to & empty != 0
}

/// Number of quiet moves, without listing them.
#[inline]
pub fn count_quiets<R: Rules>(pos: &Position<R>) -> u64 {
    let side = pos.side();
    let empty = pos.empty();
    let men = pos.men(side);
    let mut n = 0u64;
    for &d in R::man_move_dirs(side) {
        n += (R::Geo::step(men, d) & empty).count_ones() as u64;
    }
    let kings = pos.kings_of(side);
    if R::FLYING_KINGS {
        for k in Bits(kings) {
            for d in 0..4 {
                let mut sq = R::Geo::step(k, d) & empty;
                while sq != 0 {
                    n += 1;
                    sq = R::Geo::step(sq, d) & empty;
                }
            }
        }
    } else {
        for d in 0..4 {
            n += (R::Geo::step(kings, d) & empty).count_ones() as u64;
        }
    }
    n
}

/// Number of legal moves (perft's bulk count at the last ply).
#[inline]
pub fn count_legal<R: Rules, const KEEP_DUPS: bool>(pos: &Position<R>) -> u64 {
    let empty = pos.empty();
    let jumps = man_jumps(pos, pos.side(), empty);
    if (jumps[0] | jumps[1] | jumps[2] | jumps[3]) != 0 || kings_capture(pos, pos.side(), empty) {
        let mut list = MoveList::new();
        gen_captures_from::<R, NoPath, KEEP_DUPS>(pos, &jumps, &mut list, &mut NoPath);
        list.len() as u64
    } else {
        count_quiets(pos)
    }
}

/// Square index (the geometry's order) of a bit index.
#[inline]
pub fn square_of<R: Rules>(bit: u8) -> usize {
    R::Geo::square(1u64 << bit)
}
