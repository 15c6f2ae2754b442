//! Shards: one run's games split among processes (the tasks of a cluster
//! job, or background processes on one machine). `--shard i/n` (the index
//! `i` is 0-based, `0 <= i < n`, as a Slurm array's task id) plays the
//! games numbered `g` with `g % n == i`, exactly as a single run with the
//! same seed and settings plays them; `selfplay --merge` and
//! `match --merge` put the shards' games back together in game order.

use std::fmt;
use std::str::FromStr;

/// Shard `index` of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shard {
    /// This shard's index, 0-based.
    pub index: usize,
    /// How many shards the run is split into (at least 1).
    pub count: usize,
}

impl Shard {
    /// Whether game `game` (0-based, numbered as in a single run) is this
    /// shard's.
    pub fn holds(&self, game: usize) -> bool {
        game % self.count == self.index
    }

    /// The number of the `k`-th game (0-based) of this shard in the single
    /// run.
    pub fn game(&self, k: usize) -> usize {
        self.index + k * self.count
    }

    /// How many of the first `total` games of the single run are this
    /// shard's.
    pub fn games_of(&self, total: usize) -> usize {
        total.saturating_sub(self.index).div_ceil(self.count)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    /// `i/n`: shard `i` (0-based) of `n`.
    fn from_str(text: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "{:?} is not a shard: expected <index>/<count> with a 0-based index, e.g. 0/4 to 3/4",
                text
            )
        };
        let (i, n) = text.trim().split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if count == 0 {
            return Err(format!(
                "{text:?}: a run has at least 1 shard (the count after '/' is 0)"
            ));
        }
        if index >= count {
            return Err(format!(
                "{text:?}: shard index {index} is out of range for {count} shards (the index is 0-based: 0 to {})",
                count - 1
            ));
        }
        Ok(Shard { index, count })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_split_the_games() {
        let s: Shard = "1/3".parse().unwrap();
        assert_eq!(s, Shard { index: 1, count: 3 });
        assert_eq!(s.to_string(), "1/3");
        let mine: Vec<usize> = (0..12).filter(|&g| s.holds(g)).collect();
        assert_eq!(mine, [1, 4, 7, 10]);
        assert_eq!((0..4).map(|k| s.game(k)).collect::<Vec<_>>(), mine);
        assert_eq!(s.games_of(12), 4);
        assert_eq!(s.games_of(11), 4);
        assert_eq!(s.games_of(10), 3);
        assert_eq!(s.games_of(1), 0);
        assert_eq!(s.games_of(0), 0);
        // Every game is in exactly one shard.
        for n in 1..6 {
            for total in 0..20 {
                let sum: usize = (0..n)
                    .map(|i| Shard { index: i, count: n }.games_of(total))
                    .sum();
                assert_eq!(sum, total);
            }
        }
        assert!("3/3".parse::<Shard>().unwrap_err().contains("0 to 2"));
        assert!("0/0".parse::<Shard>().unwrap_err().contains("at least 1"));
        assert!("1"
            .parse::<Shard>()
            .unwrap_err()
            .contains("<index>/<count>"));
        assert!("-1/2".parse::<Shard>().is_err());
        assert_eq!(
            "0/1".parse::<Shard>().unwrap(),
            Shard { index: 0, count: 1 }
        );
    }
}
