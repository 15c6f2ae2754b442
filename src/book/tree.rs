//! The tree a book grows in, by drop-out expansion (T. Lincke,
//! "Strategies for the automatic construction of opening books", 2000).
//!
//! Every node is a position with a value for its side to move: a leaf's
//! value is the score a search gave it; an expanded node has every legal
//! move as a child, and its value is the best of its children's negated
//! values (negamax). Positions reached by two move orders are one node,
//! so the tree is a graph without duplicates.
//!
//! The next leaf to expand is the one whose line from a root costs the
//! least, where a line costs, at every ply, how much worse the move played
//! is than the best move there (its *drop*), plus `ply_cost` per ply: the
//! best line costs only its length, a line with a weaker move costs that
//! much more. The book so grows first along the lines good play follows,
//! and deepens a line of equal moves as readily as the main line. Ties go
//! to the smaller position key, so the order depends on the positions
//! alone: a build resumed from its book expands what the uninterrupted
//! build would have.
//!
//! The tree knows nothing of the search: whoever expands a leaf scores its
//! new children and passes the scores in ([`Tree::expand`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;

use super::{entry_of, entry_score, Book, Entry};
use crate::movegen::{generate, Move, MoveList};
use crate::position::Position;
use crate::rules::Rules;

/// One position of the tree.
#[derive(Clone, Debug)]
pub struct Node<R: Rules> {
    /// The position.
    pub pos: Position<R>,
    /// Leaf: the search's score; expanded: the best child's, negated
    /// (centi-men, side to move).
    pub value: i32,
    /// Every legal move and its child's index, once expanded.
    pub children: Vec<(Move, u32)>,
    /// The children are in the tree.
    pub expanded: bool,
    /// The side to move has no legal move: never expanded.
    pub terminal: bool,
}

/// A tree of positions grown from one or more roots.
#[derive(Clone, Debug, Default)]
pub struct Tree<R: Rules> {
    nodes: Vec<Node<R>>,
    index: FxHashMap<u64, u32>,
    roots: Vec<u32>,
}

impl<R: Rules> Tree<R> {
    /// An empty tree.
    pub fn new() -> Self {
        Tree {
            nodes: Vec::new(),
            index: FxHashMap::default(),
            roots: Vec::new(),
        }
    }

    /// Every node.
    pub fn nodes(&self) -> &[Node<R>] {
        &self.nodes
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree has no node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Number of expanded nodes: the positions of the book.
    pub fn expanded(&self) -> usize {
        self.nodes.iter().filter(|n| n.expanded).count()
    }

    /// The node of `pos`, if in the tree.
    pub fn find(&self, pos: &Position<R>) -> Option<u32> {
        self.index.get(&pos.key()).copied()
    }

    /// The value of `pos`'s node.
    pub fn value(&self, pos: &Position<R>) -> Option<i32> {
        self.find(pos).map(|i| self.nodes[i as usize].value)
    }

    /// Adds a leaf (or finds the node) of `pos`, scored `value`.
    fn leaf(&mut self, pos: Position<R>, value: i32) -> u32 {
        if let Some(&i) = self.index.get(&pos.key()) {
            return i;
        }
        let mut list = MoveList::new();
        generate(&pos, &mut list);
        let i = self.nodes.len() as u32;
        self.nodes.push(Node {
            pos,
            value: entry_score(value) as i32,
            children: Vec::new(),
            expanded: false,
            terminal: list.is_empty(),
        });
        self.index.insert(pos.key(), i);
        i
    }

    /// Adds a root scored `value` (a position already in the tree becomes
    /// a root as it is).
    pub fn add_root(&mut self, pos: Position<R>, value: i32) {
        let i = self.leaf(pos, value);
        if !self.roots.contains(&i) {
            self.roots.push(i);
        }
    }

    /// Adds a root and, where `book` holds its position, the book's tree
    /// below it: a position with entries is expanded, the others are
    /// leaves scored by their parent's entry. `None` when `book` lacks the
    /// root (score it and [`Tree::add_root`] it); an error when a book
    /// position lacks one of its legal moves (the book was not built by
    /// this expansion, or by another set of rules).
    pub fn add_root_from_book(&mut self, pos: Position<R>, book: &Book) -> Result<bool, String> {
        if book.entries_of(pos.key()).is_empty() {
            return Ok(false);
        }
        let root = self.leaf(pos, 0);
        if !self.roots.contains(&root) {
            self.roots.push(root);
        }
        let mut stack = vec![root];
        while let Some(i) = stack.pop() {
            let node = &self.nodes[i as usize];
            if node.expanded || node.terminal {
                continue;
            }
            let pos = node.pos;
            let moves = book.moves(&pos);
            let mut list = MoveList::new();
            generate(&pos, &mut list);
            let mut children = Vec::with_capacity(list.len());
            for mv in list.iter() {
                let Some(bm) = moves.iter().find(|b| b.mv == *mv) else {
                    return Err(format!(
                        "position {} lacks the legal move {} in the book: it was not built \
                         by `kondavo book build`",
                        crate::notation::fen::write_fen(&pos),
                        crate::notation::movetext::move_to_pdn(&pos, mv)
                    ));
                };
                let child = pos.played(mv);
                let c = self.leaf(child, -bm.score);
                if !book.entries_of(child.key()).is_empty() {
                    stack.push(c);
                }
                children.push((*mv, c));
            }
            let node = &mut self.nodes[i as usize];
            node.children = children;
            node.expanded = true;
        }
        self.backup();
        Ok(true)
    }

    /// Up to `k` leaves to expand next, cheapest first: the cost of a
    /// leaf is the least, over its lines from a root, of the drops along
    /// the line plus `ply_cost` a ply (see the module documentation).
    pub fn select(&self, k: usize, ply_cost: i32) -> Vec<u32> {
        let n = self.nodes.len();
        let mut best = vec![i64::MAX; n];
        let mut heap = BinaryHeap::new();
        for &r in &self.roots {
            best[r as usize] = 0;
            heap.push(Reverse((0i64, self.nodes[r as usize].pos.key(), r)));
        }
        let mut done = vec![false; n];
        let mut out = Vec::new();
        while let Some(Reverse((cost, _, i))) = heap.pop() {
            let iu = i as usize;
            if done[iu] || cost > best[iu] {
                continue;
            }
            done[iu] = true;
            let node = &self.nodes[iu];
            if !node.expanded {
                if !node.terminal {
                    out.push(i);
                    if out.len() >= k {
                        break;
                    }
                }
                continue;
            }
            for &(_, c) in &node.children {
                let cu = c as usize;
                let drop = (node.value + self.nodes[cu].value).max(0) as i64;
                let next = cost + drop + ply_cost.max(0) as i64;
                if next < best[cu] {
                    best[cu] = next;
                    heap.push(Reverse((next, self.nodes[cu].pos.key(), c)));
                }
            }
        }
        out
    }

    /// The children of leaf `i` not yet in the tree, without repeats: the
    /// positions to score before [`Tree::expand`].
    pub fn new_children(&self, i: u32) -> Vec<Position<R>> {
        let pos = self.nodes[i as usize].pos;
        let mut list = MoveList::new();
        generate(&pos, &mut list);
        let mut out: Vec<Position<R>> = Vec::new();
        for mv in list.iter() {
            let c = pos.played(mv);
            if !self.index.contains_key(&c.key()) && !out.iter().any(|p| p.key() == c.key()) {
                out.push(c);
            }
        }
        out
    }

    /// Expands leaf `i`: every legal move becomes a child, those not yet in
    /// the tree scored by `score` (which must know every position
    /// [`Tree::new_children`] listed). Call [`Tree::backup`] after a batch
    /// of expansions.
    pub fn expand(&mut self, i: u32, mut score: impl FnMut(&Position<R>) -> i32) {
        if self.nodes[i as usize].expanded {
            return;
        }
        let pos = self.nodes[i as usize].pos;
        let mut list = MoveList::new();
        generate(&pos, &mut list);
        let mut children = Vec::with_capacity(list.len());
        for mv in list.iter() {
            let c = pos.played(mv);
            let ci = match self.index.get(&c.key()) {
                Some(&ci) => ci,
                None => {
                    let v = score(&c);
                    self.leaf(c, v)
                }
            };
            children.push((*mv, ci));
        }
        let node = &mut self.nodes[i as usize];
        node.children = children;
        node.expanded = true;
    }

    /// Recomputes the value of every expanded node from its children. A
    /// child met again on its own line (a cycle, only with kings) counts
    /// with the value it has.
    pub fn backup(&mut self) {
        let n = self.nodes.len();
        // 0: not visited, 1: on the stack, 2: done.
        let mut state = vec![0u8; n];
        for start in 0..n {
            if state[start] != 0 || !self.nodes[start].expanded {
                continue;
            }
            // Iterative post-order: (node, next child to look at).
            let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
            state[start] = 1;
            while let Some(&mut (i, ref mut next)) = stack.last_mut() {
                let node = &self.nodes[i];
                if *next < node.children.len() {
                    let c = node.children[*next].1 as usize;
                    *next += 1;
                    if state[c] == 0 && self.nodes[c].expanded {
                        state[c] = 1;
                        stack.push((c, 0));
                    }
                    continue;
                }
                let v = node
                    .children
                    .iter()
                    .map(|&(_, c)| -self.nodes[c as usize].value)
                    .max()
                    .unwrap_or(node.value);
                self.nodes[i].value = v;
                state[i] = 2;
                stack.pop();
            }
        }
    }

    /// The book: one entry per move of every expanded node, scored by the
    /// child's value negated.
    pub fn entries(&self) -> Vec<Entry> {
        let mut out = Vec::new();
        for node in self.nodes.iter().filter(|n| n.expanded) {
            for &(mv, c) in &node.children {
                out.push(entry_of(&node.pos, &mv, -self.nodes[c as usize].value));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::English;
    use crate::variant::Variant;

    /// A fake search: a score from the position's key.
    fn fake(pos: &Position<English>) -> i32 {
        (pos.key() % 41) as i32 - 20
    }

    fn grow(tree: &mut Tree<English>, steps: usize, k: usize) {
        for _ in 0..steps {
            for i in tree.select(k, 5) {
                tree.expand(i, fake);
            }
            tree.backup();
        }
    }

    #[test]
    fn values_are_negamax_of_the_children() {
        let mut t = Tree::<English>::new();
        t.add_root(Position::start(), 0);
        grow(&mut t, 30, 1);
        assert_eq!(t.expanded(), 30);
        for n in t.nodes().iter().filter(|n| n.expanded) {
            let best = n
                .children
                .iter()
                .map(|&(_, c)| -t.nodes()[c as usize].value)
                .max()
                .unwrap();
            assert_eq!(n.value, best);
        }
    }

    #[test]
    fn the_main_line_is_expanded_first() {
        let mut t = Tree::<English>::new();
        t.add_root(Position::start(), 0);
        grow(&mut t, 1, 1);
        // With no ply cost the best child of the root comes next.
        let root = &t.nodes()[0];
        let best = root
            .children
            .iter()
            .max_by_key(|&&(_, c)| {
                (
                    -t.nodes()[c as usize].value,
                    Reverse(t.nodes()[c as usize].pos.key()),
                )
            })
            .unwrap()
            .1;
        assert_eq!(t.select(1, 0), vec![best]);
    }

    #[test]
    fn a_tree_comes_back_from_its_book() {
        let mut t = Tree::<English>::new();
        t.add_root(Position::start(), 0);
        grow(&mut t, 25, 2);
        let book = Book::new(Variant::English, t.entries());
        let mut back = Tree::<English>::new();
        assert!(back.add_root_from_book(Position::start(), &book).unwrap());
        assert_eq!(back.expanded(), t.expanded());
        assert_eq!(back.len(), t.len());
        let mut a = t.entries();
        let mut b = back.entries();
        super::super::sort_entries(&mut a);
        super::super::sort_entries(&mut b);
        assert_eq!(a, b);
        // Both grow alike from here.
        grow(&mut t, 10, 1);
        grow(&mut back, 10, 1);
        assert_eq!(
            Book::new(Variant::English, t.entries()),
            Book::new(Variant::English, back.entries())
        );
    }
}
