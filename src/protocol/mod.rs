//! The faces engines are driven through: Hub on stdin/stdout ([`hub`]) and
//! DXP over TCP ([`dxp`]). `protocol.md` at the top of the repository is the
//! specification.

pub mod dxp;
pub mod hub;
pub mod hubpos;
pub mod session;

use std::borrow::Cow;
use std::io::Write;
use std::sync::{Arc, Mutex};

/// Where protocol lines go: one writer shared by the command loop and the
/// search thread, each line written and flushed whole.
#[derive(Clone)]
pub struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

impl std::fmt::Debug for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Output")
    }
}

impl Output {
    /// Lines to standard output. A GUI that closed its end of the pipe
    /// ends the engine at the next line, with status 141
    /// ([`crate::stdio::Stdout`]): nothing it could still send is answered.
    pub fn stdout() -> Self {
        Output(Arc::new(Mutex::new(Box::new(crate::stdio::Stdout))))
    }

    /// Lines to any writer (tests).
    pub fn new(w: Box<dyn Write + Send>) -> Self {
        Output(Arc::new(Mutex::new(w)))
    }

    /// Writes one line, passed through [`escape`] so that it stays one
    /// line for every client. A failed write is ignored here (see
    /// [`Output::stdout`] for a closed standard output).
    pub fn line(&self, s: &str) {
        let s = escape(s);
        if let Ok(mut w) = self.0.lock() {
            let _ = writeln!(w, "{s}");
            let _ = w.flush();
        }
    }
}

/// A command line split into its command and `name=value` arguments
/// (a bare flag has no value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    /// The command word.
    pub name: String,
    /// Arguments in order.
    pub args: Vec<(String, Option<String>)>,
}

impl Command {
    /// The value of argument `name`, if given with a value.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.args
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.as_deref())
    }

    /// Whether argument `name` is present (flag or valued).
    pub fn has(&self, name: &str) -> bool {
        self.args.iter().any(|(n, _)| n == name)
    }
}

/// Splits a Hub line: `command name=value name="quoted value" flag`.
/// Names and unquoted values are runs of characters other than control
/// characters, blanks, `=` and `"`; a quoted value runs to the next `"`
/// (no escapes); blanks around `=` are skipped.
pub fn tokenize(line: &str) -> Result<Command, String> {
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    let is_word = |c: char| !c.is_control() && !c.is_whitespace() && c != '=' && c != '"';
    let skip_blanks = |i: &mut usize| {
        while *i < chars.len() && (chars[*i].is_whitespace() || chars[*i].is_control()) {
            *i += 1;
        }
    };
    let word = |i: &mut usize| {
        let start = *i;
        while *i < chars.len() && is_word(chars[*i]) {
            *i += 1;
        }
        chars[start..*i].iter().collect::<String>()
    };
    skip_blanks(&mut i);
    let name = word(&mut i);
    if name.is_empty() {
        return Err(if i >= chars.len() {
            "missing command".to_string()
        } else {
            format!("unexpected character '{}'", chars[i])
        });
    }
    let mut args = Vec::new();
    loop {
        skip_blanks(&mut i);
        if i >= chars.len() {
            break;
        }
        let key = word(&mut i);
        if key.is_empty() {
            return Err(format!("unexpected character '{}' in arguments", chars[i]));
        }
        let mut j = i;
        skip_blanks(&mut j);
        if j < chars.len() && chars[j] == '=' {
            i = j + 1;
            skip_blanks(&mut i);
            if i < chars.len() && chars[i] == '"' {
                let start = i + 1;
                let end = chars[start..]
                    .iter()
                    .position(|&c| c == '"')
                    .ok_or_else(|| format!("unterminated quote in value of '{key}'"))?;
                args.push((key, Some(chars[start..start + end].iter().collect())));
                i = start + end + 1;
            } else {
                args.push((key, Some(word(&mut i))));
            }
        } else {
            args.push((key, None));
        }
    }
    Ok(Command { name, args })
}

/// Whether some client could read `c` as the end of a line: every C0 and
/// C1 control character (CR, LF, VT, FF, NUL, NEL U+0085, ...), DEL, and the
/// Unicode line and paragraph separators U+2028 and U+2029.
fn breaks_lines(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

/// Text made safe to write inside one protocol line: each character of
/// [`breaks_lines`] becomes an escape (`\r`, `\n`, `\t`, `\u{85}`,
/// `\u{2028}`), so input quoted back in a reply can never end that reply
/// and forge another. Every line the Hub loop writes goes through it
/// ([`Output::line`], [`quote`]); escaping twice changes nothing.
pub fn escape(s: &str) -> Cow<'_, str> {
    if !s.chars().any(breaks_lines) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if breaks_lines(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Quotes a value for output when it is not a plain word; the value is
/// [`escape`]d and its double quotes become single ones.
pub fn quote(v: &str) -> String {
    if !v.is_empty()
        && v.chars()
            .all(|c| !c.is_control() && !c.is_whitespace() && c != '=' && c != '"')
    {
        v.to_string()
    } else {
        format!("\"{}\"", escape(v).replace('"', "'"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokenizes_hub_lines() {
        let c = tokenize("pos pos=Wbbe moves=\"32-28 19-23\" start").unwrap();
        assert_eq!(c.name, "pos");
        assert_eq!(c.get("pos"), Some("Wbbe"));
        assert_eq!(c.get("moves"), Some("32-28 19-23"));
        assert!(c.has("start"));
        let c = tokenize("  set-param name = variant  value=\"\"").unwrap();
        assert_eq!(c.get("name"), Some("variant"));
        assert_eq!(c.get("value"), Some(""));
        assert!(tokenize("").is_err());
        assert!(tokenize("pos moves=\"32-28").is_err());
        assert!(tokenize("\"x").is_err());
    }

    #[test]
    fn quotes_only_when_needed() {
        assert_eq!(quote("abc"), "abc");
        assert_eq!(quote("a b"), "\"a b\"");
        assert_eq!(quote(""), "\"\"");
        assert_eq!(quote("say \"hi\""), "\"say 'hi'\"");
    }

    #[test]
    fn escapes_every_line_break() {
        let breaks = (0u32..0x20)
            .chain(0x7F..0xA0)
            .chain([0x2028, 0x2029])
            .filter_map(char::from_u32);
        for c in breaks {
            let v = format!("x{c}done move=32-28");
            for out in [escape(&v).into_owned(), quote(&v)] {
                assert!(!out.chars().any(breaks_lines), "{c:?} -> {out:?}");
                assert!(out.contains('\\'), "{c:?} -> {out:?}");
                assert_eq!(escape(&out), out, "escaping twice changes nothing");
            }
        }
        assert_eq!(escape("a\r\nb"), "a\\r\\nb");
        assert_eq!(escape("\u{85}\u{2028}"), "\\u{85}\\u{2028}");
        assert_eq!(escape("32-28 é ü"), "32-28 é ü");
    }
}
