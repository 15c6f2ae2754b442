//! The run-time choice of rule set: one enum, dispatched once into generic
//! code with [`with_rules!`](crate::with_rules).

use std::fmt;
use std::str::FromStr;

/// One of the seven rule sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// International draughts, 10x10.
    International,
    /// English draughts / American checkers.
    English,
    /// Italian draughts.
    Italian,
    /// Brazilian draughts.
    Brazilian,
    /// Spanish draughts.
    Spanish,
    /// Russian / Ukrainian draughts (shashki).
    Russian,
    /// Turkish draughts (dama).
    Turkish,
}

impl Variant {
    /// Every variant.
    pub const ALL: [Variant; 7] = [
        Variant::International,
        Variant::English,
        Variant::Italian,
        Variant::Brazilian,
        Variant::Spanish,
        Variant::Russian,
        Variant::Turkish,
    ];

    /// Canonical name.
    pub fn name(self) -> &'static str {
        crate::with_rules!(self, R => <R as crate::rules::Rules>::NAME)
    }

    /// PDN GameType tag.
    pub fn game_type(self) -> &'static str {
        crate::with_rules!(self, R => <R as crate::rules::Rules>::GAME_TYPE)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s.trim().to_ascii_lowercase().as_str() {
            "international" | "normal" | "standard" | "polish" | "10x10" => Variant::International,
            "english" | "american" | "checkers" => Variant::English,
            "italian" => Variant::Italian,
            "brazilian" => Variant::Brazilian,
            "spanish" => Variant::Spanish,
            "russian" | "ukrainian" | "shashki" => Variant::Russian,
            "turkish" | "dama" => Variant::Turkish,
            other => {
                return Err(format!(
                    "unknown variant '{other}' (expected one of international, english, italian, \
                     brazilian, spanish, russian, turkish)"
                ))
            }
        })
    }
}

/// Runs `$body` with the type alias `$R` bound to the rules type of
/// variant `$v`. This is the one place where the run-time variant becomes
/// a compile-time type.
#[macro_export]
macro_rules! with_rules {
    ($v:expr, $R:ident => $body:expr) => {
        match $v {
            $crate::variant::Variant::International => {
                type $R = $crate::rules::International;
                $body
            }
            $crate::variant::Variant::English => {
                type $R = $crate::rules::English;
                $body
            }
            $crate::variant::Variant::Italian => {
                type $R = $crate::rules::Italian;
                $body
            }
            $crate::variant::Variant::Brazilian => {
                type $R = $crate::rules::Brazilian;
                $body
            }
            $crate::variant::Variant::Spanish => {
                type $R = $crate::rules::Spanish;
                $body
            }
            $crate::variant::Variant::Russian => {
                type $R = $crate::rules::Russian;
                $body
            }
            $crate::variant::Variant::Turkish => {
                type $R = $crate::rules::Turkish;
                $body
            }
        }
    };
}
