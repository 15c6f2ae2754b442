//! The faces engines are driven through: Hub on stdin/stdout ([`hub`]) and
//! DXP over TCP ([`dxp`]). `protocol.md` at the top of the repository is the
//! specification.

pub mod dxp;
pub mod hub;
pub mod hubpos;
pub mod session;

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
    /// Lines to standard output.
    pub fn stdout() -> Self {
        Output(Arc::new(Mutex::new(Box::new(std::io::stdout()))))
    }

    /// Lines to any writer (tests).
    pub fn new(w: Box<dyn Write + Send>) -> Self {
        Output(Arc::new(Mutex::new(w)))
    }

    /// Writes one line. A closed pipe is ignored: the reader will see the
    /// end of its input and quit.
    pub fn line(&self, s: &str) {
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
            format!("unexpected character '{}'", chars[i].escape_default())
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
            return Err(format!(
                "unexpected character '{}' in arguments",
                chars[i].escape_default()
            ));
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

/// Quotes a value for output when it is not a plain word.
pub fn quote(v: &str) -> String {
    if !v.is_empty()
        && v.chars()
            .all(|c| !c.is_control() && !c.is_whitespace() && c != '=' && c != '"')
    {
        v.to_string()
    } else {
        format!("\"{}\"", v.replace('"', "'"))
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
}
