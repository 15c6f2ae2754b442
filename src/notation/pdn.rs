//! PDN 3.0 game files: reading (liberally), replaying and writing.
//!
//! Reading follows the liberal grammar of `wiegerw/pdn` `doc/grammar.rst`
//! (see `reference/ecosystem.md` §1): tags `[Name "value"]`, move numbers
//! `1.` and `23...`, comments `{...}` and `;` / `%` line comments, nested
//! variations `(...)` (skipped), NAGs `$n` and strength marks (`!`, `?`,
//! `!?`, `(?)`) dropped, captures with `x` or `:`, full paths, leading
//! zeros, numeric moves with no separator (`3228`), the placeholders `...`
//! and `-`, and `/FEN "..."/` setups. A result (`1-0`, `0-1`, `1/2-1/2`,
//! `2-0`, `0-2`, `1-1`, `0-0`, `*`) ends a game, and so does a tag section
//! after moves. A malformed game gives an error naming the game number,
//! the line and the problem; reading goes on with the next game.
//!
//! [`parse_pdn`] only checks the syntax; [`replay`] resolves the move texts
//! in a rule set and reports the first illegal move by ply and text.
//! Writing ([`write_pdn`]) gives one canonical PDN 3.0 form: the seven
//! standard tags present, then `GameType` and `FEN`, then the rest; moves
//! numbered from the variant's first player, each move number written once
//! (`1.` before the first player's move, `1...` only when a game starts
//! with the second player to move), lines of at most 80 characters, the
//! result, and a blank line. A move after a comment carries no number
//! (PDN 3.0 makes move numbers optional): readers such as pydraughts 0.6.7
//! merge the `N.` and `N...` of one move number and then fail on the game.

use std::fmt;

use super::fen::{parse_fen, write_fen};
use super::movetext::{move_to_pdn, parse_move};
use crate::movegen::Move;
use crate::position::Position;
use crate::rules::{Color, Rules};
use crate::variant::Variant;

/// The seven standard ("mandatory") tags, in the order they are written.
pub const STANDARD_TAGS: [&str; 7] = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];

/// Results that end a game's movetext.
const RESULTS: [&str; 9] = [
    "1-0",
    "0-1",
    "1/2-1/2",
    "2-0",
    "0-2",
    "1-1",
    "0-0",
    "*",
    "\u{bd}-\u{bd}",
];

/// Longest line [`write_pdn`] writes (a single longer word stands alone).
const LINE_WIDTH: usize = 80;

/// What went wrong reading or replaying a PDN game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PdnError {
    /// Number of the game in its file, from 1 (0 when unknown).
    pub game: usize,
    /// Line of the file where the problem is, from 1, for syntax errors.
    pub line: Option<usize>,
    /// Ply (from 1) of the move that could not be played, for replay errors.
    pub ply: Option<usize>,
    /// The move text that could not be played, for replay errors.
    pub move_text: Option<String>,
    /// Its move number (the number PDN writes before the move, as `12.` or
    /// `12...`), for replay errors.
    pub move_number: Option<usize>,
    /// The problem.
    pub message: String,
}

impl PdnError {
    fn syntax(game: usize, line: usize, message: impl Into<String>) -> Self {
        PdnError {
            game,
            line: Some(line),
            ply: None,
            move_text: None,
            move_number: None,
            message: message.into(),
        }
    }

    fn game(game: usize, message: impl Into<String>) -> Self {
        PdnError {
            game,
            line: None,
            ply: None,
            move_text: None,
            move_number: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for PdnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if self.game > 0 {
            parts.push(format!("game {}", self.game));
        }
        if let Some(l) = self.line {
            parts.push(format!("line {l}"));
        }
        if let Some(p) = self.ply {
            parts.push(format!("ply {p}"));
        }
        if let Some(t) = &self.move_text {
            match self.move_number {
                Some(n) => parts.push(format!("move '{t}' (move {n})")),
                None => parts.push(format!("move '{t}'")),
            }
        }
        if parts.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", parts.join(", "), self.message)
        }
    }
}

impl std::error::Error for PdnError {}

/// One game read from a PDN file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PdnGame {
    /// Number of the game in its file, from 1 (0 for a game built by hand).
    pub number: usize,
    /// Tags in file order, values unescaped.
    pub tags: Vec<(String, String)>,
    /// Move texts as written, without move numbers, strength marks or NAGs.
    pub moves: Vec<String>,
    /// The result ending the movetext; without one, the `Result` tag if
    /// present; else `None`.
    pub result: Option<String>,
    /// Comments, each with the number of moves before it (0: before the
    /// first move). Runs of white space are folded to one space.
    pub comments: Vec<(usize, String)>,
}

impl PdnGame {
    /// The value of tag `name` (first occurrence; exact case preferred,
    /// else any case).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .or_else(|| self.tags.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)))
            .map(|(_, v)| v.as_str())
    }

    /// The comment written after move `index` (0-based), if any (several
    /// are joined by a space).
    pub fn comment_after(&self, index: usize) -> Option<String> {
        let found: Vec<&str> = self
            .comments
            .iter()
            .filter(|(n, _)| *n == index + 1)
            .map(|(_, c)| c.as_str())
            .collect();
        (!found.is_empty()).then(|| found.join(" "))
    }

    fn is_empty(&self) -> bool {
        self.tags.is_empty() && self.moves.is_empty() && self.result.is_none()
    }
}

// ---------------------------------------------------------------------------
// Reading

/// Reads every game of a PDN file. Each game is read or gives an error
/// naming its number, line and problem. The file is first cut into its
/// games (see `Parser::game_end`), so that an error in one game never spills
/// into the next: reading resumes at the next game (after the result, or
/// at the next tag section) and games are numbered as the file holds them.
/// Never panics.
pub fn parse_pdn(text: &str) -> Vec<Result<PdnGame, PdnError>> {
    read_games(text).into_iter().map(|g| g.0).collect()
}

/// A game of a PDN text and where it ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSpan {
    /// The game, or why it does not read (as [`parse_pdn`] gives it).
    pub game: Result<PdnGame, PdnError>,
    /// The byte offset just after the game: after its result when it has
    /// one, else where reading it stopped.
    pub end: usize,
    /// Whether its movetext ends with a result. A game cut short (a killed
    /// writer, a full disk) may still have a result from its `Result` tag,
    /// but not this.
    pub ended: bool,
}

/// Reads every game of a PDN text as [`parse_pdn`] does, with where each
/// ends.
pub fn parse_pdn_spans(text: &str) -> Vec<GameSpan> {
    let games = read_games(text);
    // Byte offsets of the characters, and of the end.
    let offsets: Vec<usize> = text
        .char_indices()
        .map(|(b, _)| b)
        .chain(std::iter::once(text.len()))
        .collect();
    games
        .into_iter()
        .map(|(game, end, ended, _)| GameSpan {
            game,
            end: offsets[end.min(offsets.len() - 1)],
            ended,
        })
        .collect()
}

/// [`parse_pdn`], each game with its text in the file (trimmed), for
/// writing a game that could not be read back unchanged.
pub fn parse_pdn_with_text(text: &str) -> Vec<(Result<PdnGame, PdnError>, String)> {
    read_games(text)
        .into_iter()
        .map(|(g, _, _, raw)| (g, raw))
        .collect()
}

/// The games, each with the index of the character after it, whether its
/// movetext ended with a result, and its text (trimmed).
fn read_games(text: &str) -> Vec<(Result<PdnGame, PdnError>, usize, bool, String)> {
    let chars: Vec<char> = text.chars().collect();
    let len = chars.len();
    let mut p = Parser {
        chars,
        i: 0,
        end: len,
        line: 1,
        ended: false,
    };
    let mut out = Vec::new();
    while p.i < len {
        let begin = p.i;
        let end = p.game_end(begin).max(begin + 1).min(len);
        p.end = end;
        p.ended = false;
        let number = out.len() + 1;
        let result = p.game(number);
        p.end = len;
        let result = match result {
            Ok(Some(g)) => Ok(g),
            Ok(None) => continue,
            Err(e) => {
                p.skip_to(end);
                p.ended = false;
                Err(e)
            }
        };
        let raw: String = p.chars[begin..p.i].iter().collect();
        out.push((result, p.i, p.ended, raw.trim().to_string()));
    }
    out
}

/// Reads a PDN file's bytes: UTF-8 (a byte order mark dropped), or, when
/// the bytes are not UTF-8, Latin-1 (each byte the character of the same
/// code point), as older PDN files are written. The flag says Latin-1.
pub fn decode_pdn(bytes: &[u8]) -> (String, bool) {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(s) => (s.to_string(), false),
        Err(_) => (bytes.iter().map(|&b| b as char).collect(), true),
    }
}

/// Characters that end a word of movetext.
fn ends_word(c: char) -> bool {
    c.is_whitespace() || "{}()[];%$\"".contains(c)
}

struct Parser {
    chars: Vec<char>,
    i: usize,
    /// Where the game being read ends ([`Parser::game_end`]): the parser
    /// sees nothing past it.
    end: usize,
    line: usize,
    /// The last game read ended with a result in its movetext.
    ended: bool,
}

/// What a word of movetext turned out to be.
enum Word {
    Skip,
    Move(String),
    Result(String),
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.at(0)
    }

    fn at(&self, k: usize) -> Option<char> {
        (self.i + k < self.end)
            .then(|| self.chars.get(self.i + k).copied())
            .flatten()
    }

    /// Moves on to `to`, counting lines.
    fn skip_to(&mut self, to: usize) {
        let to = to.min(self.chars.len());
        let end = self.end;
        self.end = to;
        while self.i < to && self.bump().is_some() {}
        self.end = end;
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.i += 1;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    fn skip_line(&mut self) -> String {
        let mut s = String::new();
        while let Some(c) = self.peek() {
            if c == '\n' {
                break;
            }
            s.push(c);
            self.bump();
        }
        s
    }

    /// Reads one game. `Ok(None)` at the end of the input with no game.
    fn game(&mut self, number: usize) -> Result<Option<PdnGame>, PdnError> {
        let mut g = PdnGame {
            number,
            ..PdnGame::default()
        };
        let err = |line: usize, msg: String| PdnError::syntax(number, line, msg);
        loop {
            self.skip_ws();
            let start = self.i;
            let line = self.line;
            let Some(c) = self.peek() else { break };
            match c {
                '[' => {
                    if !g.moves.is_empty() {
                        break; // a new tag section: a new game
                    }
                    let (name, value) = self.tag().map_err(|m| err(line, m))?;
                    g.tags.push((name, value));
                }
                '{' => {
                    self.bump();
                    let mut body = String::new();
                    loop {
                        match self.bump() {
                            None => {
                                self.rewind(start, line);
                                return Err(err(line, "comment '{' is never closed".into()));
                            }
                            Some('}') => break,
                            Some(c) => body.push(c),
                        }
                    }
                    g.comments.push((g.moves.len(), fold_ws(&body)));
                }
                ';' | '%' => {
                    self.bump();
                    let body = self.skip_line();
                    if c == ';' {
                        g.comments.push((g.moves.len(), fold_ws(&body)));
                    }
                }
                '(' => {
                    if !self.strength_mark() {
                        if let Err(m) = self.variation() {
                            self.rewind(start, line);
                            return Err(err(line, m));
                        }
                    }
                }
                ')' => return Err(err(line, "')' closes no variation".into())),
                '}' => return Err(err(line, "'}' closes no comment".into())),
                ']' => return Err(err(line, "']' closes no tag".into())),
                '"' => return Err(err(line, "a quoted string outside a tag".into())),
                '$' => {
                    self.bump();
                    while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                        self.bump();
                    }
                }
                '/' if self.word_at_is_fen() => {
                    let fen = self.setup().map_err(|m| err(line, m))?;
                    if g.moves.is_empty() && g.tag("FEN").is_none() {
                        g.tags.push(("FEN".into(), fen));
                    }
                }
                _ => {
                    let mut w = String::new();
                    while let Some(c) = self.peek() {
                        if ends_word(c) {
                            break;
                        }
                        w.push(c);
                        self.bump();
                    }
                    match classify(&w) {
                        Ok(Word::Skip) => {}
                        Ok(Word::Move(m)) => g.moves.push(m),
                        Ok(Word::Result(r)) => {
                            g.result = Some(r);
                            self.ended = true;
                            return Ok(Some(finish(g)));
                        }
                        Err(m) => return Err(err(line, m)),
                    }
                }
            }
        }
        if g.is_empty() {
            return Ok(None);
        }
        Ok(Some(finish(g)))
    }

    /// Goes back to just after the opening character at `start`, so that
    /// recovery from an unclosed comment or variation looks inside it.
    fn rewind(&mut self, start: usize, line: usize) {
        self.i = start + 1;
        self.line = line;
    }

    /// `[Name "value"]` (also an unquoted value).
    fn tag(&mut self) -> Result<(String, String), String> {
        self.bump(); // '['
        self.skip_ws();
        let mut name = String::new();
        while let Some(c) = self.peek() {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                name.push(c);
                self.bump();
            } else {
                break;
            }
        }
        if name.is_empty() {
            return Err("a tag must start with its name, as in [Event \"...\"]".into());
        }
        while self.peek().is_some_and(|c| c == ' ' || c == '\t') {
            self.bump();
        }
        let mut value = String::new();
        if self.peek() == Some('"') {
            self.bump();
            loop {
                match self.bump() {
                    None | Some('\n') => {
                        return Err(format!("tag {name}: the value's '\"' is never closed"))
                    }
                    Some('\\') if matches!(self.peek(), Some('"') | Some('\\')) => {
                        value.push(self.bump().unwrap_or('\\'));
                    }
                    Some('"') => break,
                    Some(c) => value.push(c),
                }
            }
            while self.peek().is_some_and(|c| c == ' ' || c == '\t') {
                self.bump();
            }
        } else {
            while let Some(c) = self.peek() {
                if c == ']' || c == '\n' || c == '[' {
                    break;
                }
                value.push(c);
                self.bump();
            }
            value = value.trim().to_string();
        }
        if self.peek() != Some(']') {
            return Err(format!("tag {name} is not closed by ']'"));
        }
        self.bump();
        Ok((name, value))
    }

    /// Skips `(?)`, `(!)`, `(!?)` and the like; false if not one.
    fn strength_mark(&mut self) -> bool {
        let mut k = 1;
        while matches!(self.at(k), Some('!') | Some('?')) {
            k += 1;
        }
        if k > 1 && self.at(k) == Some(')') {
            for _ in 0..=k {
                self.bump();
            }
            return true;
        }
        false
    }

    /// Skips a variation with any nested ones and comments inside.
    fn variation(&mut self) -> Result<(), String> {
        let mut depth = 0usize;
        loop {
            match self.bump() {
                None => return Err("variation '(' is never closed".into()),
                Some('(') => depth += 1,
                Some(')') => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                Some('{') => loop {
                    match self.bump() {
                        None => return Err("comment '{' in a variation is never closed".into()),
                        Some('}') => break,
                        Some(_) => {}
                    }
                },
                Some(';') | Some('%') => {
                    self.skip_line();
                }
                Some(_) => {}
            }
        }
    }

    fn word_at_is_fen(&self) -> bool {
        let w: String = (1..4).filter_map(|k| self.at(k)).collect();
        w.eq_ignore_ascii_case("fen")
    }

    /// `/FEN "..."/`: returns the FEN.
    fn setup(&mut self) -> Result<String, String> {
        for _ in 0..4 {
            self.bump();
        }
        self.skip_ws();
        if self.bump() != Some('"') {
            return Err("a '/FEN' setup needs its FEN in quotes".into());
        }
        let mut fen = String::new();
        loop {
            match self.bump() {
                None => return Err("a '/FEN \"' setup is never closed".into()),
                Some('"') => break,
                Some(c) => fen.push(c),
            }
        }
        self.skip_ws();
        if self.bump() != Some('/') {
            return Err("a '/FEN \"...\"' setup must end with '/'".into());
        }
        Ok(fen)
    }

    /// Where the game starting at `from` ends: just past its result, or
    /// before the next game's tag section. The same reading as
    /// [`Parser::game`], but lenient, so that a broken game still ends
    /// where the file's next game starts: a word that is no move, number or
    /// result counts as movetext (a `[` after it starts the next game), a
    /// tag left open ends with its line, and an unclosed comment or
    /// variation ends at a line starting with `[Event` or at a line
    /// starting with `[` after a blank line. Within a tag section, a line
    /// starting with `[Event` begins a new game, and so does a line
    /// starting with `[` after a blank line once a tag was malformed.
    fn game_end(&self, from: usize) -> usize {
        let c = &self.chars;
        let n = c.len();
        let at = |k: usize| c.get(k).copied();
        // Whether a line starting with '[' begins at `k` (a line start),
        // and whether it is an `[Event` tag.
        let tag_line = |k: usize| -> Option<bool> {
            if k > 0 && c[k - 1] != '\n' {
                return None;
            }
            let mut j = k;
            while matches!(at(j), Some(' ') | Some('\t')) {
                j += 1;
            }
            (at(j) == Some('[')).then(|| {
                let name: String = c[j + 1..].iter().take(5).collect();
                name.eq_ignore_ascii_case("event")
                    && !at(j + 6).is_some_and(|x| x.is_alphanumeric() || x == '_')
            })
        };
        // Whether the line before the one starting at `k` is blank.
        let blank_before = |k: usize| -> bool {
            if k == 0 || c[k - 1] != '\n' {
                return false;
            }
            let mut j = k - 1;
            while j > 0 && matches!(c[j - 1], ' ' | '\t' | '\r') {
                j -= 1;
            }
            j == 0 || c[j - 1] == '\n'
        };
        // Inside an unclosed comment or variation: the next game starts at
        // `k`.
        let resync =
            |k: usize| -> bool { tag_line(k).is_some_and(|event| event || blank_before(k)) };
        let mut content = false; // a tag or a word seen
        let mut moves = false; // movetext (or junk in its place) seen
        let mut bad_tag = false; // a tag not closed on its line
        let mut k = from;
        while k < n {
            if k > from && content {
                if let Some(event) = tag_line(k) {
                    if event || (bad_tag && blank_before(k)) {
                        return k;
                    }
                }
            }
            match c[k] {
                x if x.is_whitespace() => k += 1,
                '[' => {
                    if moves {
                        return k;
                    }
                    content = true;
                    k += 1;
                    let mut quoted = false;
                    loop {
                        match at(k) {
                            None => break,
                            Some('\n') => {
                                bad_tag = true;
                                break;
                            }
                            Some('\\') if quoted && matches!(at(k + 1), Some('"') | Some('\\')) => {
                                k += 2
                            }
                            Some('"') => {
                                quoted = !quoted;
                                k += 1;
                            }
                            Some(']') if !quoted => {
                                k += 1;
                                break;
                            }
                            Some(_) => k += 1,
                        }
                    }
                }
                '{' => {
                    k += 1;
                    while k < n && c[k] != '}' {
                        if resync(k) {
                            return k;
                        }
                        k += 1;
                    }
                    k += 1;
                }
                ';' | '%' => {
                    while k < n && c[k] != '\n' {
                        k += 1;
                    }
                }
                '(' => {
                    let mut depth = 0usize;
                    let mut comment = false;
                    while k < n {
                        if k > 0 && c[k - 1] == '\n' && resync(k) {
                            return k;
                        }
                        match c[k] {
                            '}' if comment => comment = false,
                            _ if comment => {}
                            '{' => comment = true,
                            '(' => depth += 1,
                            ')' => {
                                depth -= 1;
                                if depth == 0 {
                                    k += 1;
                                    break;
                                }
                            }
                            _ => {}
                        }
                        k += 1;
                    }
                }
                '/' if (1..4)
                    .filter_map(|j| at(k + j))
                    .collect::<String>()
                    .eq_ignore_ascii_case("fen") =>
                {
                    content = true;
                    k += 4;
                    while matches!(at(k), Some(x) if x != '"' && x != '\n') {
                        k += 1;
                    }
                    k += 1;
                    while matches!(at(k), Some(x) if x != '"' && x != '\n') {
                        k += 1;
                    }
                    k += 1;
                }
                '$' => {
                    k += 1;
                    while at(k).is_some_and(|x| x.is_ascii_digit()) {
                        k += 1;
                    }
                }
                // A stray ')', '}', ']' or '"' is junk in place of
                // movetext (the game does not read), so a tag after it
                // starts the next game.
                x if ends_word(x) => {
                    content = true;
                    moves = true;
                    k += 1;
                }
                _ => {
                    let start = k;
                    while k < n && !ends_word(c[k]) {
                        k += 1;
                    }
                    let w: String = c[start..k].iter().collect();
                    content = true;
                    match classify(&w) {
                        Ok(Word::Result(_)) => return k,
                        Ok(Word::Skip) => {}
                        Ok(Word::Move(_)) | Err(_) => moves = true,
                    }
                }
            }
        }
        n
    }
}

/// Fills the result from the `Result` tag when the movetext has none.
fn finish(mut g: PdnGame) -> PdnGame {
    if g.result.is_none() {
        g.result = g.tag("Result").map(str::to_string);
    }
    g
}

fn fold_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Sorts a word of movetext: move number, placeholder, move or result.
fn classify(word: &str) -> Result<Word, String> {
    let mut w = word;
    loop {
        if RESULTS.contains(&w) {
            return Ok(Word::Result(w.to_string()));
        }
        // A move number, perhaps with the move glued on: 1. 23... 1.32-28
        let digits = w.bytes().take_while(u8::is_ascii_digit).count();
        let rest = &w[digits..];
        let dots = rest
            .chars()
            .take_while(|&c| c == '.' || c == '\u{2026}')
            .map(char::len_utf8)
            .sum::<usize>();
        if dots > 0 {
            w = &rest[dots..];
            if w.is_empty() {
                return Ok(Word::Skip);
            }
            continue;
        }
        break;
    }
    // Strength marks and the old forced-move star after a move.
    let w = w.trim_end_matches(['!', '?', '*']);
    if w.is_empty() || w.chars().all(|c| c == '-') {
        return Ok(Word::Skip); // a mark alone or an unknown move
    }
    if w.bytes().all(|c| c.is_ascii_digit()) {
        return match w.len() {
            1..=3 => Ok(Word::Skip), // a move number without its dot
            4 => Ok(Word::Move(w.to_string())),
            _ => Err(format!("'{word}' is not a move")),
        };
    }
    if is_move_text(w) {
        Ok(Word::Move(w.to_string()))
    } else {
        Err(format!("'{word}' is not a move, move number or result"))
    }
}

/// Squares (numbers, or a letter and a number) joined by `-`, `x` or `:`.
fn is_move_text(w: &str) -> bool {
    let parts: Vec<&str> = w.split(['-', 'x', 'X', ':']).collect();
    parts.len() >= 2
        && parts.iter().all(|p| {
            let b = p.as_bytes();
            match b.first() {
                Some(c) if c.is_ascii_digit() => b.len() <= 3 && b.iter().all(u8::is_ascii_digit),
                Some(c) if c.is_ascii_alphabetic() => {
                    (2..=3).contains(&b.len()) && b[1..].iter().all(u8::is_ascii_digit)
                }
                _ => false,
            }
        })
}

// ---------------------------------------------------------------------------
// Variants and results

/// The first number of a `GameType` value (`"20,W,10,10,N2,0"` gives 20).
fn game_type_number(value: &str) -> Option<u32> {
    value.trim().split(',').next()?.trim().parse().ok()
}

/// The variant of a game from its `GameType` tag, by the number each
/// variant's rules give (`Rules::GAME_TYPE`). `None` without the tag or for
/// other games.
pub fn game_variant(g: &PdnGame) -> Option<Variant> {
    variant_of_game_type(g.tag("GameType")?)
}

/// The variant of a `GameType` value, as [`game_variant`].
pub fn variant_of_game_type(value: &str) -> Option<Variant> {
    let n = game_type_number(value)?;
    Variant::ALL
        .into_iter()
        .find(|v| game_type_number(v.game_type()) == Some(n))
}

/// Whether a `GameType` has the International result type (`2-0`, `1-1`,
/// `0-2`): types 20 and 27.
pub fn has_international_results(game_type: &str) -> bool {
    matches!(game_type_number(game_type), Some(20) | Some(27))
}

/// The result string of a finished game: `2-0`, `0-2`, `1-1` with the
/// International result type, else `1-0`, `0-1`, `1/2-1/2`. `winner` is
/// `None` for a draw.
pub fn result_string(international: bool, winner: Option<Color>) -> &'static str {
    match (international, winner) {
        (true, Some(Color::White)) => "2-0",
        (true, Some(Color::Black)) => "0-2",
        (true, None) => "1-1",
        (false, Some(Color::White)) => "1-0",
        (false, Some(Color::Black)) => "0-1",
        (false, None) => "1/2-1/2",
    }
}

/// [`result_string`] in the result type of rule set `R`.
pub fn result_string_for<R: Rules>(winner: Option<Color>) -> &'static str {
    result_string(has_international_results(R::GAME_TYPE), winner)
}

/// Reads a result in either result type: `Some(Some(winner))`,
/// `Some(None)` for a draw, `None` for `*`, `0-0` or anything else.
pub fn parse_result(text: &str) -> Option<Option<Color>> {
    match text.trim() {
        "1-0" | "2-0" => Some(Some(Color::White)),
        "0-1" | "0-2" => Some(Some(Color::Black)),
        "1/2-1/2" | "1-1" | "\u{bd}-\u{bd}" => Some(None),
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// Replaying

/// Plays a game in rule set `R`: the start position (the `FEN` tag, else
/// the variant's start) and each move with the position before it. An
/// error names the ply, move number and move text that is not legal, a bad
/// FEN, or a `GameType` of another variant.
#[allow(clippy::type_complexity)]
pub fn replay<R: Rules>(g: &PdnGame) -> Result<(Position<R>, Vec<(Position<R>, Move)>), PdnError> {
    let (start, played, error) = replay_prefix::<R>(g)?;
    match error {
        Some(e) => Err(e),
        None => Ok((start, played)),
    }
}

/// [`replay`], keeping what could be played: the start position, the
/// moves up to the first one that is not legal, and the error about that
/// one (`None` when every move is legal). A bad FEN or another variant's
/// `GameType` is an error with nothing played.
#[allow(clippy::type_complexity)]
pub fn replay_prefix<R: Rules>(
    g: &PdnGame,
) -> Result<(Position<R>, Vec<(Position<R>, Move)>, Option<PdnError>), PdnError> {
    if let Some(gt) = g.tag("GameType") {
        if let (Some(n), Some(ours)) = (game_type_number(gt), game_type_number(R::GAME_TYPE)) {
            if n != ours {
                return Err(PdnError::game(
                    g.number,
                    format!("GameType {gt} is not {} (GameType {ours})", R::NAME),
                ));
            }
        }
    }
    let start = match g.tag("FEN") {
        Some(f) if !f.trim().is_empty() => {
            parse_fen::<R>(f).map_err(|e| PdnError::game(g.number, format!("FEN tag: {e}")))?
        }
        _ => Position::start(),
    };
    // Plies before the first player's first move: 1 when the game starts
    // with the second player to move.
    let offset = usize::from(start.side() != R::FIRST_TO_MOVE);
    let mut pos = start;
    let mut played = Vec::with_capacity(g.moves.len());
    for (k, text) in g.moves.iter().enumerate() {
        match resolve(&pos, text) {
            Ok(mv) => {
                played.push((pos, mv));
                pos.play(&mv);
            }
            Err(e) => {
                let error = PdnError {
                    game: g.number,
                    line: None,
                    ply: Some(k + 1),
                    move_text: Some(text.clone()),
                    move_number: Some((k + offset) / 2 + 1),
                    message: e,
                };
                return Ok((start, played, Some(error)));
            }
        }
    }
    Ok((start, played, None))
}

/// A move text in `pos`, also the separator-less `3228`.
fn resolve<R: Rules>(pos: &Position<R>, text: &str) -> Result<Move, String> {
    if text.len() == 4 && text.bytes().all(|c| c.is_ascii_digit()) {
        let (a, b) = text.split_at(2);
        for sep in ['-', 'x'] {
            if let Ok(m) = parse_move(pos, &format!("{a}{sep}{b}")) {
                return Ok(m);
            }
        }
        return Err(format!("'{a}-{b}' is not legal here"));
    }
    parse_move(pos, text).map_err(|e| e.to_string())
}

// ---------------------------------------------------------------------------
// Writing

/// Writes a game as PDN 3.0; see [`write_pdn_with_comments`].
pub fn write_pdn<R: Rules>(
    tags: &[(String, String)],
    start: &Position<R>,
    moves: &[Move],
    result: &str,
) -> String {
    write_pdn_with_comments(tags, start, moves, &[], result)
}

/// Writes a game as PDN 3.0: the standard tags present in `tags` (in
/// standard order), `GameType` and `FEN` (always, from `R` and `start`;
/// any given are replaced, and `SetUp` is dropped), the other tags in
/// their order; then the moves from `start`, numbered `1.` before the
/// first player's moves and `1...` before the first move when the second
/// player moves first (each number once: a move after a comment has no
/// number), with `comments[i]` (if `Some`) in braces after move `i`; lines
/// of at most 80 characters; the result (`*` if empty); a blank line.
pub fn write_pdn_with_comments<R: Rules>(
    tags: &[(String, String)],
    start: &Position<R>,
    moves: &[Move],
    comments: &[Option<String>],
    result: &str,
) -> String {
    let mut out = String::new();
    let find = |name: &str| tags.iter().find(|(n, _)| n == name).map(|(_, v)| v);
    for name in STANDARD_TAGS {
        if let Some(v) = find(name) {
            push_tag(&mut out, name, v);
        }
    }
    push_tag(&mut out, "GameType", R::GAME_TYPE);
    push_tag(&mut out, "FEN", &write_fen(start));
    for (n, v) in tags {
        let ours = ["GameType", "FEN", "SetUp"]
            .iter()
            .any(|t| n.eq_ignore_ascii_case(t));
        if !ours && !STANDARD_TAGS.contains(&n.as_str()) {
            push_tag(&mut out, n, v);
        }
    }
    out.push('\n');

    let mut units: Vec<String> = Vec::new();
    let mut pos = *start;
    let mut number = 1;
    for (k, mv) in moves.iter().enumerate() {
        let first = pos.side() == R::FIRST_TO_MOVE;
        let text = move_to_pdn(&pos, mv);
        units.push(if first {
            format!("{number}. {text}")
        } else if k == 0 {
            format!("{number}... {text}")
        } else {
            text
        });
        pos.play(mv);
        if !first {
            number += 1;
        }
        if let Some(Some(c)) = comments.get(k) {
            let clean = c.replace('{', "(").replace('}', ")");
            let words: Vec<&str> = clean.split_whitespace().collect();
            match words.len() {
                0 => units.push("{}".into()),
                n => {
                    for (j, w) in words.iter().enumerate() {
                        let open = if j == 0 { "{" } else { "" };
                        let close = if j == n - 1 { "}" } else { "" };
                        units.push(format!("{open}{w}{close}"));
                    }
                }
            }
        }
    }
    let result = result.trim();
    units.push(if result.is_empty() { "*" } else { result }.to_string());

    let mut line = String::new();
    for u in units {
        if !line.is_empty() && line.chars().count() + 1 + u.chars().count() > LINE_WIDTH {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&u);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

fn push_tag(out: &mut String, name: &str, value: &str) {
    let v = value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace(['\n', '\r'], " ");
    out.push_str(&format!("[{name} \"{v}\"]\n"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words() {
        assert!(matches!(classify("1."), Ok(Word::Skip)));
        assert!(matches!(classify("23..."), Ok(Word::Skip)));
        assert!(matches!(classify("1.32-28"), Ok(Word::Move(m)) if m == "32-28"));
        assert!(matches!(classify("32-28!?"), Ok(Word::Move(m)) if m == "32-28"));
        assert!(matches!(classify("c3:e5"), Ok(Word::Move(m)) if m == "c3:e5"));
        assert!(matches!(classify("1/2-1/2"), Ok(Word::Result(_))));
        assert!(classify("hello").is_err());
        assert!(classify("32-").is_err());
    }

    #[test]
    fn spans_say_where_games_end_and_whether_a_result_ends_them() {
        let whole = "[Event \"é\"]\n[Result \"2-0\"]\n\n1. 32-28 {ça} 19-23 2-0\n\n";
        let torn = "[Event \"b\"]\n[Result \"0-2\"]\n\n1. 32-28 {[%eval";
        let cut = "[Event \"c\"]\n[Result \"1-1\"]\n\n1. 32-28 19-23 ";
        let text = format!("{whole}{torn}");
        let spans = parse_pdn_spans(&text);
        assert_eq!(spans.len(), 2);
        assert!(spans[0].ended);
        assert_eq!(spans[0].end, whole.trim_end().len());
        assert!(spans[1].game.is_err() && !spans[1].ended);
        assert_eq!(spans[1].end, text.len());
        let text = format!("{whole}{cut}");
        let spans = parse_pdn_spans(&text);
        // The Result tag gives the cut game a result, but no result ends it.
        let g = spans[1].game.as_ref().unwrap();
        assert_eq!(g.result.as_deref(), Some("1-1"));
        assert!(!spans[1].ended);
        assert_eq!(
            parse_pdn(&text),
            spans.into_iter().map(|s| s.game).collect::<Vec<_>>()
        );
    }
}
