//! DXP messages: strict parsing of what the other side sends and the text
//! of what we send. Every field is checked for its exact width and
//! characters; a message that is not exactly right is a [`BadMessage`]
//! naming what was wrong, never a guess.

use crate::geometry::{Bits, Geometry};
use crate::movegen::{generate, Move, MoveList};
use crate::position::Position;
use crate::rules::{Color, International, Rules};

type R = International;

/// The longest DXP message (without its NUL terminator).
pub const MAX_LEN: usize = 127;

/// Length of a GAMEREQ with start flag `A` (normal start position).
pub const GAMEREQ_START_LEN: usize = 43;
/// Length of a GAMEREQ with start flag `B` (a board follows).
pub const GAMEREQ_BOARD_LEN: usize = 94;
/// Length of a GAMEACC.
pub const GAMEACC_LEN: usize = 34;
/// Length of a MOVE without captured squares (each adds 2).
pub const MOVE_BASE_LEN: usize = 11;
/// Length of a GAMEEND.
pub const GAMEEND_LEN: usize = 3;
/// Length of a BACKREQ.
pub const BACKREQ_LEN: usize = 5;
/// Length of a BACKACC.
pub const BACKACC_LEN: usize = 2;

/// A GAMEREQ of protocol version 01.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameReq {
    /// The Initiator's name, trailing blanks removed.
    pub name: String,
    /// The colour the Follower plays.
    pub follower: Color,
    /// Minutes per player for the whole game (0 = none given).
    pub minutes: u32,
    /// Moves per game (0 = no limit).
    pub moves: u32,
    /// The start position (`None`: start flag `A`, the normal start).
    pub start: Option<Position<R>>,
}

/// A MOVE: from, to and the captured squares (1-based, in the order sent).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveMsg {
    /// Seconds the sender used (informational).
    pub seconds: u32,
    /// Square the piece leaves.
    pub from: u8,
    /// Square the piece lands on.
    pub to: u8,
    /// Captured squares.
    pub captures: Vec<u8>,
}

/// A well-formed DXP message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// `R`, version 01.
    GameReq(Box<GameReq>),
    /// `R` of another protocol version (answered with GAMEACC code 1).
    GameReqVersion(u32),
    /// `A`: the Follower's name and its acceptance code.
    GameAcc {
        /// Follower name, trailing blanks removed.
        name: String,
        /// `0` accepted, `1` version not supported, `2` not this game,
        /// `3` no game at all.
        code: u8,
    },
    /// `M`.
    Move(MoveMsg),
    /// `E`: reason (`0` none, `1` I lose, `2` draw, `3` I win) and stop
    /// code (`0` next game welcome, `1` stop).
    GameEnd {
        /// Reason code.
        reason: u8,
        /// Stop code.
        stop: u8,
    },
    /// `C`: free text.
    Chat(String),
    /// `B`: take back to move `number` with `side` to move.
    BackReq {
        /// Move number, 1 to 999.
        number: u32,
        /// Colour to move at that point.
        side: Color,
    },
    /// `K`: `0` accepted, `1` not supported, `2` continue the game.
    BackAcc {
        /// Acceptance code.
        code: u8,
    },
}

/// A message that is not valid DXP.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadMessage {
    /// Its header letter, when it has a known one (`b'M'` for a bad MOVE).
    pub header: Option<u8>,
    /// What is wrong, for a CHAT and the log.
    pub reason: String,
}

impl std::fmt::Display for BadMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

/// The frame as printable ASCII for error messages (at most 40 bytes shown).
pub fn show(frame: &[u8]) -> String {
    let shown: String = frame[..frame.len().min(40)].escape_ascii().to_string();
    if frame.len() > 40 {
        format!("'{shown}...'")
    } else {
        format!("'{shown}'")
    }
}

/// The name of a message type, for error messages.
fn type_name(header: u8) -> &'static str {
    match header {
        b'R' => "GAMEREQ",
        b'A' => "GAMEACC",
        b'M' => "MOVE",
        b'E' => "GAMEEND",
        b'C' => "CHAT",
        b'B' => "BACKREQ",
        b'K' => "BACKACC",
        _ => "message",
    }
}

/// Parses one frame (the bytes before a NUL).
pub fn parse_message(frame: &[u8]) -> Result<Message, BadMessage> {
    let header = frame.first().copied().filter(|h| b"RAMECBK".contains(h));
    let bad = |reason: String| BadMessage { header, reason };
    let Some(&first) = frame.first() else {
        return Err(bad("empty message".to_string()));
    };
    if frame.len() > MAX_LEN {
        return Err(bad(format!(
            "message longer than {MAX_LEN} characters: {}",
            show(frame)
        )));
    }
    if let Some(i) = frame.iter().position(|b| !b.is_ascii()) {
        return Err(bad(format!(
            "non-ASCII byte 0x{:02x} at position {} in {}",
            frame[i],
            i,
            show(frame)
        )));
    }
    // All ASCII from here, so byte offsets are character offsets.
    let text = std::str::from_utf8(frame).unwrap_or_default();
    let name = type_name(first);
    let exact = |len: usize| -> Result<(), BadMessage> {
        if frame.len() == len {
            Ok(())
        } else {
            Err(bad(format!(
                "{name} of {} characters, expected {len}: {}",
                frame.len(),
                show(frame)
            )))
        }
    };
    let at_least = |len: usize| -> Result<(), BadMessage> {
        if frame.len() >= len {
            Ok(())
        } else {
            Err(bad(format!(
                "{name} of {} characters, too short (at least {len}): {}",
                frame.len(),
                show(frame)
            )))
        }
    };
    // A field of ASCII digits only (no sign, no blanks).
    let digits = |a: usize, b: usize, field: &str| -> Result<u32, BadMessage> {
        let t = &text[a..b];
        if t.bytes().all(|c| c.is_ascii_digit()) {
            t.parse::<u32>()
                .map_err(|_| bad(format!("{name}: bad {field} '{t}'")))
        } else {
            Err(bad(format!(
                "{name}: {field} must be {} digits, not '{}'",
                b - a,
                t.escape_default()
            )))
        }
    };
    let code = |i: usize, max: u8, field: &str| -> Result<u8, BadMessage> {
        let c = frame[i];
        if c.is_ascii_digit() && c - b'0' <= max {
            Ok(c - b'0')
        } else {
            Err(bad(format!(
                "{name}: {field} must be a digit 0 to {max}, not '{}'",
                (c as char).escape_default()
            )))
        }
    };
    let colour = |i: usize, field: &str| -> Result<Color, BadMessage> {
        parse_colour(frame[i]).ok_or_else(|| {
            bad(format!(
                "{name}: {field} must be W or Z, not '{}'",
                (frame[i] as char).escape_default()
            ))
        })
    };
    match first {
        b'R' => {
            at_least(3)?;
            let version = digits(1, 3, "version")?;
            if version != 1 {
                return Ok(Message::GameReqVersion(version));
            }
            at_least(GAMEREQ_START_LEN)?;
            let follower = colour(35, "Follower colour")?;
            let minutes = digits(36, 39, "thinking time")?;
            let moves = digits(39, 42, "number of moves")?;
            let start = match frame[42] {
                b'A' => {
                    exact(GAMEREQ_START_LEN)?;
                    None
                }
                b'B' => {
                    exact(GAMEREQ_BOARD_LEN)?;
                    let side = colour(43, "colour to move")?;
                    let pos = parse_dxp_board(side, &text[44..94])
                        .map_err(|e| bad(format!("GAMEREQ: {e}")))?;
                    Some(pos)
                }
                c => {
                    return Err(bad(format!(
                        "GAMEREQ: start flag must be A or B, not '{}'",
                        (c as char).escape_default()
                    )))
                }
            };
            Ok(Message::GameReq(Box::new(GameReq {
                name: text[3..35].trim_end().to_string(),
                follower,
                minutes,
                moves,
                start,
            })))
        }
        b'A' => {
            exact(GAMEACC_LEN)?;
            Ok(Message::GameAcc {
                name: text[1..33].trim_end().to_string(),
                code: code(33, 3, "acceptance code")?,
            })
        }
        b'M' => {
            at_least(MOVE_BASE_LEN)?;
            let seconds = digits(1, 5, "time")?;
            let from = digits(5, 7, "from square")?;
            let to = digits(7, 9, "to square")?;
            let n = digits(9, 11, "number of captures")? as usize;
            if n > 20 {
                return Err(bad(format!("MOVE: {n} captures, at most 20")));
            }
            exact(MOVE_BASE_LEN + 2 * n)?;
            let mut captures = Vec::with_capacity(n);
            for i in 0..n {
                let a = MOVE_BASE_LEN + 2 * i;
                captures.push(digits(a, a + 2, "captured square")?);
            }
            for (field, s) in [("from square", from), ("to square", to)]
                .into_iter()
                .chain(captures.iter().map(|&c| ("captured square", c)))
            {
                if !(1..=50).contains(&s) {
                    return Err(bad(format!("MOVE: {field} {s} is not 1 to 50")));
                }
            }
            for (i, c) in captures.iter().enumerate() {
                if captures[..i].contains(c) {
                    return Err(bad(format!("MOVE: captured square {c} given twice")));
                }
            }
            Ok(Message::Move(MoveMsg {
                seconds,
                from: from as u8,
                to: to as u8,
                captures: captures.into_iter().map(|c| c as u8).collect(),
            }))
        }
        b'E' => {
            exact(GAMEEND_LEN)?;
            Ok(Message::GameEnd {
                reason: code(1, 3, "reason")?,
                stop: code(2, 1, "stop code")?,
            })
        }
        b'C' => Ok(Message::Chat(text[1..].to_string())),
        b'B' => {
            exact(BACKREQ_LEN)?;
            let number = digits(1, 4, "move number")?;
            if number == 0 {
                return Err(bad("BACKREQ: move number 000".to_string()));
            }
            Ok(Message::BackReq {
                number,
                side: colour(4, "colour to move")?,
            })
        }
        b'K' => {
            exact(BACKACC_LEN)?;
            Ok(Message::BackAcc {
                code: code(1, 2, "acceptance code")?,
            })
        }
        c => Err(bad(format!(
            "unknown message type '{}' in {}",
            (c as char).escape_default(),
            show(frame)
        ))),
    }
}

/// DXP's colour letters: `W` White, `Z` Black.
pub fn colour_letter(c: Color) -> char {
    match c {
        Color::White => 'W',
        Color::Black => 'Z',
    }
}

fn parse_colour(c: u8) -> Option<Color> {
    match c {
        b'W' => Some(Color::White),
        b'Z' => Some(Color::Black),
        _ => None,
    }
}

/// The 50-character DXP board (`e`, `w`, `z`, `W`, `Z`).
pub fn write_dxp_board(pos: &Position<R>) -> String {
    (0..50)
        .map(|s| crate::notation::display::piece_char(pos, s, ['e', 'w', 'W', 'z', 'Z']))
        .collect()
}

/// Reads a DXP board and side to move. A man on its own promotion row is
/// an error: no game reaches such a position.
pub fn parse_dxp_board(side: Color, board: &str) -> Result<Position<R>, String> {
    let b = board.as_bytes();
    if b.len() != 50 {
        return Err(format!("board of {} characters, expected 50", b.len()));
    }
    let (mut w, mut z, mut k) = (0u64, 0u64, 0u64);
    for (s, &c) in b.iter().enumerate() {
        let bit = <R as Rules>::Geo::bit(s);
        match c {
            b'e' => {}
            b'w' => w |= bit,
            b'W' => {
                w |= bit;
                k |= bit
            }
            b'z' => z |= bit,
            b'Z' => {
                z |= bit;
                k |= bit
            }
            _ => {
                return Err(format!(
                    "bad board character '{}' on square {}, expected e, w, z, W or Z",
                    (c as char).escape_default(),
                    s + 1
                ))
            }
        }
    }
    let pos = Position::from_parts(w, z, k, side);
    if let Some((c, s)) = pos.man_on_promotion_row() {
        return Err(format!(
            "a {} man on square {}, its promotion row",
            if c == Color::White { "white" } else { "black" },
            s + 1
        ));
    }
    Ok(pos)
}

/// The GAMEREQ text.
pub fn gamereq_message(
    name: &str,
    follower: Color,
    minutes: u32,
    moves: u32,
    start: &Position<R>,
) -> String {
    format!(
        "R01{:<32}{}{:03}{:03}B{}{}",
        name.chars().take(32).collect::<String>(),
        colour_letter(follower),
        minutes.min(999),
        moves.min(999),
        colour_letter(start.side()),
        write_dxp_board(start)
    )
}

/// The GAMEACC text with acceptance `code`.
pub fn gameacc_message(name: &str, code: u8) -> String {
    format!("A{:<32}{code}", name.chars().take(32).collect::<String>())
}

/// A MOVE message for `mv` using `secs` seconds.
pub fn move_message(mv: &Move, secs: u64) -> String {
    let sq = |bit: u8| <R as Rules>::Geo::square(1u64 << bit) + 1;
    let caps: Vec<usize> = Bits(mv.captured)
        .map(|b| <R as Rules>::Geo::square(b) + 1)
        .collect();
    let mut m = format!(
        "M{:04}{:02}{:02}{:02}",
        secs.min(9999),
        sq(mv.from),
        sq(mv.to),
        caps.len()
    );
    for c in caps {
        m.push_str(&format!("{c:02}"));
    }
    m
}

/// The legal move a MOVE describes (from, to and the set of captured
/// squares).
pub fn find_move(pos: &Position<R>, m: &MoveMsg) -> Result<Move, String> {
    let bit = |s: u8| <R as Rules>::Geo::bit(s as usize - 1);
    let caps = m.captures.iter().fold(0u64, |acc, &c| acc | bit(c));
    let (from, to) = (bit(m.from).trailing_zeros(), bit(m.to).trailing_zeros());
    let mut list = MoveList::new();
    generate(pos, &mut list);
    list.iter()
        .find(|mv| u32::from(mv.from) == from && u32::from(mv.to) == to && mv.captured == caps)
        .copied()
        .ok_or_else(|| {
            let caps: Vec<String> = m.captures.iter().map(|c| c.to_string()).collect();
            let sep = if caps.is_empty() { '-' } else { 'x' };
            let mut s = format!("illegal move {}{sep}{}", m.from, m.to);
            if !caps.is_empty() {
                s.push_str(&format!(" capturing {}", caps.join(",")));
            }
            s
        })
}

/// Parses a MOVE message and finds the legal move it describes.
pub fn parse_move_message(pos: &Position<R>, msg: &str) -> Result<Move, String> {
    match parse_message(msg.as_bytes()) {
        Ok(Message::Move(m)) => find_move(pos, &m),
        Ok(_) => Err(format!("not a MOVE: {}", show(msg.as_bytes()))),
        Err(e) => Err(e.reason),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::parse_fen;

    #[test]
    fn move_messages_round_trip() {
        let p = Position::<R>::start();
        let mut list = MoveList::new();
        generate(&p, &mut list);
        for m in &list {
            assert_eq!(parse_move_message(&p, &move_message(m, 12)).unwrap(), *m);
        }
        let p = parse_fen::<R>("W:W28,32:B23").unwrap();
        let mut list = MoveList::new();
        generate(&p, &mut list);
        assert_eq!(move_message(&list[0], 0), "M0000281901".to_string() + "23");
        assert!(parse_move_message(&p, "M00002819").is_err());
        assert!(parse_move_message(&p, "M0000281901").is_err());
        assert!(parse_move_message(&p, "M000028190123").is_ok());
        assert!(parse_move_message(&p, "M000028190123x").is_err());
        assert!(parse_move_message(&p, "M00002819012300").is_err());
    }

    #[test]
    fn board_round_trip() {
        let p = Position::<R>::start();
        let s = write_dxp_board(&p);
        assert_eq!(s, "zzzzzzzzzzzzzzzzzzzzeeeeeeeeeewwwwwwwwwwwwwwwwwwww");
        assert_eq!(parse_dxp_board(Color::White, &s).unwrap(), p);
        assert!(parse_dxp_board(Color::White, "zz").is_err());
    }

    #[test]
    fn men_on_their_promotion_row_are_refused() {
        let mut white_on_1 = vec![b'e'; 50];
        white_on_1[0] = b'w';
        let e = parse_dxp_board(Color::White, std::str::from_utf8(&white_on_1).unwrap());
        assert_eq!(e.unwrap_err(), "a white man on square 1, its promotion row");
        let mut black_on_48 = vec![b'e'; 50];
        black_on_48[47] = b'z';
        let e = parse_dxp_board(Color::White, std::str::from_utf8(&black_on_48).unwrap());
        assert_eq!(
            e.unwrap_err(),
            "a black man on square 48, its promotion row"
        );
        // Kings there, and men on the other side's row, are fine.
        black_on_48[0] = b'z';
        black_on_48[47] = b'Z';
        assert!(parse_dxp_board(Color::White, std::str::from_utf8(&black_on_48).unwrap()).is_ok());
    }
}
