// The board: drawn from a small state object, click and drag handled in
// one place. It knows no rule of any variant: the legal moves come from the
// server (`legal` of POST /api/position), and a capture of several steps is
// entered square by square by filtering them on the route entered so far.

const SVG_NS = 'http://www.w3.org/2000/svg';

function samePrefix(path, prefix) {
  if (path.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (path[i] !== prefix[i]) return false;
  return true;
}

function uniqueTexts(moves) {
  const seen = new Map();
  for (const m of moves) if (!seen.has(m.text)) seen.set(m.text, m);
  return [...seen.values()];
}

/** The squares a move text names, in order (`32-28`, `28x19x10`, `c3:e5`). */
export function squaresOf(text) {
  return String(text).split(/[-x:]/).map((s) => s.trim()).filter(Boolean);
}

export class Board {
  /**
   * `opts.onMove(entry)` is called with the chosen entry of `legal`;
   * `opts.onSquare(name)` (edit mode) with a clicked square.
   */
  constructor(el, opts = {}) {
    this.el = el;
    this.opts = opts;
    this.variant = null;
    this.orientation = 'white';
    this.pieces = new Map(); // square -> {colour, king}
    this.legal = [];
    this.interactive = false;
    this.lastMove = null; // {from, to}
    this.marks = null; // {from, to, captured, path}
    this.prefix = []; // the route entered so far
    this.drag = null;
    this.cells = new Map();
    el.classList.add('board');
    el.addEventListener('pointerdown', (e) => this.pointerDown(e));
    el.addEventListener('contextmenu', (e) => { if (this.interactive) e.preventDefault(); });
    this.moveHandler = (e) => this.pointerMove(e);
    this.upHandler = (e) => this.pointerUp(e);
  }

  setVariant(v) {
    if (this.variant && this.variant.name === v.name) return;
    this.variant = v;
    this.byName = new Map(v.squares.map((s) => [s.name, s]));
    this.prefix = [];
    this.build();
  }

  setOrientation(colour) {
    if (this.orientation === colour) return;
    this.orientation = colour;
    this.build();
  }

  flip() {
    this.setOrientation(this.orientation === 'white' ? 'black' : 'white');
  }

  /**
   * `pieces` as the server lists them; `legal` the moves allowed now (empty:
   * no input); `lastMove` {from, to} is marked, and the piece slides along
   * it when the position is the one before plus that move.
   */
  setPosition(pieces, legal = [], lastMove = null, animate = true) {
    const old = this.pieces;
    this.pieces = new Map(pieces.map((p) => [p.square, { colour: p.colour, king: p.king }]));
    this.legal = legal || [];
    this.lastMove = lastMove;
    this.prefix = [];
    this.closeChoice();
    this.render();
    // A piece dropped by the mouse is already where it goes.
    const dropped = this.dropped;
    this.dropped = null;
    if (dropped && lastMove && dropped.from === lastMove.from && dropped.to === lastMove.to) animate = false;
    if (animate && lastMove && lastMove.from !== lastMove.to && old.has(lastMove.from) && !old.has(lastMove.to)
      && this.pieces.has(lastMove.to) && !this.pieces.has(lastMove.from)) {
      this.slide(lastMove.from, lastMove.to);
    }
  }

  /** Slides the piece now on `to` from `from` (a short animation). */
  slide(from, to) {
    const a = this.cells.get(from);
    const b = this.cells.get(to);
    const pe = b && b.querySelector('.piece');
    if (!a || !pe || window.matchMedia('(prefers-reduced-motion: reduce)').matches) return;
    const ra = a.getBoundingClientRect();
    const rb = b.getBoundingClientRect();
    pe.style.transition = 'none';
    pe.style.transform = `translate(${ra.left - rb.left}px, ${ra.top - rb.top}px)`;
    pe.classList.add('moving');
    void pe.offsetWidth;
    pe.style.transition = 'transform .18s ease-out';
    pe.style.transform = '';
    pe.addEventListener('transitionend', () => { pe.classList.remove('moving'); pe.style.transition = ''; }, { once: true });
  }

  setInteractive(on) {
    this.interactive = on;
    if (!on) { this.prefix = []; this.closeChoice(); }
    this.render();
  }

  setMarks(marks) {
    this.marks = marks;
    this.render();
  }

  /** Screen row and column of a square, after the flip. */
  place(name) {
    const s = this.byName.get(name);
    const v = this.variant;
    if (this.orientation === 'white') return { row: s.row, col: s.col };
    return { row: v.rows - 1 - s.row, col: v.cols - 1 - s.col };
  }

  build() {
    const v = this.variant;
    if (!v) return;
    const el = this.el;
    el.innerHTML = '';
    el.style.setProperty('--rows', v.rows);
    el.style.setProperty('--cols', v.cols);
    el.classList.toggle('orthogonal', !v.diagonal);
    el.classList.toggle('diagonal', !!v.diagonal);
    this.cells = new Map();
    const playable = new Map();
    for (const s of v.squares) {
      const p = this.place(s.name);
      playable.set(p.row * v.cols + p.col, s.name);
    }
    for (let r = 0; r < v.rows; r++) {
      for (let c = 0; c < v.cols; c++) {
        const cell = document.createElement('div');
        cell.style.gridRow = String(r + 1);
        cell.style.gridColumn = String(c + 1);
        const name = playable.get(r * v.cols + c);
        if (name === undefined) {
          cell.className = 'sq light';
        } else {
          cell.className = 'sq dark';
          cell.dataset.square = name;
          if (!v.algebraic) {
            const n = document.createElement('span');
            n.className = 'num';
            n.textContent = name;
            cell.appendChild(n);
          }
          this.cells.set(name, cell);
        }
        if (v.algebraic && v.files && v.ranks) {
          // Files along the bottom edge, ranks along the left, as seen now.
          const fileIdx = this.orientation === 'white' ? c : v.cols - 1 - c;
          const rankIdx = this.orientation === 'white' ? v.rows - 1 - r : r;
          if (r === v.rows - 1) {
            const f = document.createElement('span');
            f.className = 'coord file';
            f.textContent = v.files[fileIdx];
            cell.appendChild(f);
          }
          if (c === 0) {
            const k = document.createElement('span');
            k.className = 'coord rank';
            k.textContent = v.ranks[rankIdx];
            cell.appendChild(k);
          }
        }
        el.appendChild(cell);
      }
    }
    this.overlay = document.createElementNS(SVG_NS, 'svg');
    this.overlay.setAttribute('class', 'overlay');
    this.overlay.setAttribute('viewBox', `0 0 ${v.cols} ${v.rows}`);
    this.overlay.setAttribute('preserveAspectRatio', 'none');
    el.appendChild(this.overlay);
    this.render();
  }

  candidates() {
    return this.legal.filter((m) => samePrefix(m.path, this.prefix));
  }

  /** Squares whose piece has a legal move now. */
  movable() {
    return new Set(this.legal.map((m) => m.path[0]));
  }

  render() {
    if (!this.variant) return;
    const cands = this.prefix.length ? this.candidates() : [];
    const next = new Set();
    for (const m of cands) {
      if (m.path.length > this.prefix.length) next.add(m.path[this.prefix.length]);
    }
    // Pieces taken by every move still possible: the ones entered so far.
    let taken = new Set();
    if (this.prefix.length > 1 && cands.length) {
      taken = new Set(cands[0].captured);
      for (const m of cands) for (const sq of [...taken]) if (!m.captured.includes(sq)) taken.delete(sq);
    }
    const from = this.prefix[0];
    const at = this.prefix[this.prefix.length - 1];
    const movable = this.interactive ? this.movable() : new Set();
    const marks = this.marks || {};
    const markCaptured = new Set(marks.captured || []);
    for (const [name, cell] of this.cells) {
      let piece = this.pieces.get(name);
      if (this.prefix.length > 1) {
        if (name === from) piece = undefined;
        if (name === at) piece = this.pieces.get(from);
      }
      const cls = ['sq', 'dark'];
      if (this.lastMove && (this.lastMove.from === name || this.lastMove.to === name)) cls.push('last');
      if (name === at && this.prefix.length) cls.push('selected');
      if (this.prefix.includes(name) && name !== at) cls.push('route');
      if (next.has(name)) cls.push('dest');
      if (movable.has(name) && !this.prefix.length) cls.push('movable');
      if (marks.from === name) cls.push('mark-from');
      if (marks.to === name) cls.push('mark-to');
      cell.className = cls.join(' ');
      let pe = cell.querySelector('.piece');
      if (piece) {
        if (!pe) {
          pe = document.createElement('div');
          cell.appendChild(pe);
        }
        const pc = ['piece', piece.colour];
        if (piece.king) pc.push('king');
        if (taken.has(name) || markCaptured.has(name)) pc.push('taken');
        if (this.drag && this.drag.active && name === this.drag.square) pc.push('dragging');
        pe.className = pc.join(' ');
      } else if (pe) {
        pe.remove();
      }
    }
    this.drawRoute(marks.path && marks.path.length > 1 ? marks.path : null);
  }

  /** An arrow along a route of squares (the rules' diagrams). */
  drawRoute(path) {
    const svg = this.overlay;
    if (!svg) return;
    svg.innerHTML = '';
    if (!path) return;
    const pts = path.filter((sq) => this.byName.has(sq)).map((sq) => {
      const p = this.place(sq);
      return `${p.col + 0.5},${p.row + 0.5}`;
    });
    const defs = document.createElementNS(SVG_NS, 'defs');
    defs.innerHTML = '<marker id="ah" viewBox="0 0 10 10" refX="6" refY="5" markerWidth="3" markerHeight="3" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="currentColor"/></marker>';
    svg.appendChild(defs);
    const line = document.createElementNS(SVG_NS, 'polyline');
    line.setAttribute('points', pts.join(' '));
    line.setAttribute('class', 'route-line');
    line.setAttribute('marker-end', 'url(#ah)');
    svg.appendChild(line);
  }

  squareAt(x, y) {
    const hit = document.elementFromPoint(x, y);
    const cell = hit && hit.closest ? hit.closest('.sq') : null;
    return cell && this.el.contains(cell) ? cell.dataset.square || null : null;
  }

  pointerDown(e) {
    if (e.button !== 0) return;
    const cell = e.target.closest('.sq');
    if (!cell || !this.el.contains(cell)) return;
    const name = cell.dataset.square;
    if (this.opts.onSquare && !this.interactive) {
      if (name) this.opts.onSquare(name, e);
      return;
    }
    if (!this.interactive || !name) return;
    e.preventDefault();
    const startsDrag = this.prefix.length <= 1 && this.movable().has(name);
    if (startsDrag) {
      this.drag = { square: name, x: e.clientX, y: e.clientY, active: false, wasSelected: this.prefix[0] === name };
      if (this.prefix[0] !== name) this.select(name);
      window.addEventListener('pointermove', this.moveHandler);
      window.addEventListener('pointerup', this.upHandler);
      window.addEventListener('pointercancel', this.upHandler);
    } else {
      this.click(name);
    }
  }

  pointerMove(e) {
    const d = this.drag;
    if (!d) return;
    if (!d.active && Math.hypot(e.clientX - d.x, e.clientY - d.y) > 4) {
      d.active = true;
      const pe = this.cells.get(d.square).querySelector('.piece');
      if (pe) {
        const r = pe.getBoundingClientRect();
        const ghost = pe.cloneNode(true);
        ghost.classList.add('ghost');
        ghost.style.width = `${r.width}px`;
        ghost.style.height = `${r.height}px`;
        document.body.appendChild(ghost);
        d.ghost = ghost;
        d.size = r.width;
      }
      this.render();
    }
    if (d.active && d.ghost) {
      d.ghost.style.transform = `translate(${e.clientX - d.size / 2}px, ${e.clientY - d.size / 2}px)`;
    }
  }

  pointerUp(e) {
    const d = this.drag;
    window.removeEventListener('pointermove', this.moveHandler);
    window.removeEventListener('pointerup', this.upHandler);
    window.removeEventListener('pointercancel', this.upHandler);
    this.drag = null;
    if (!d) return;
    if (d.ghost) d.ghost.remove();
    if (d.active) {
      const target = this.squareAt(e.clientX, e.clientY);
      if (target && target !== d.square) this.dropOn(target);
      else this.render();
    } else if (d.wasSelected) {
      this.clear();
    } else {
      this.render();
    }
  }

  select(name) {
    this.prefix = [name];
    this.render();
  }

  clear() {
    this.prefix = [];
    this.closeChoice();
    this.render();
  }

  /** A click on a square: select a piece, or go one step along a route. */
  click(name) {
    if (!this.interactive) return;
    if (!this.prefix.length) {
      if (this.movable().has(name)) this.select(name);
      return;
    }
    const cands = this.candidates();
    const steps = new Set(cands.filter((m) => m.path.length > this.prefix.length).map((m) => m.path[this.prefix.length]));
    if (steps.has(name)) {
      this.prefix = [...this.prefix, name];
      this.resolve();
      return;
    }
    // A click on the end square of a capture plays it at once (the
    // squares between are implied), or asks which when several end there.
    const ends = uniqueTexts(cands.filter((m) => m.path[m.path.length - 1] === name));
    if (ends.length && this.prefix.length === 1) {
      this.finish(ends);
      return;
    }
    if (this.prefix.length === 1 && this.movable().has(name)) {
      this.select(name);
      return;
    }
    this.clear();
  }

  dropOn(name) {
    this.dropped = { from: this.prefix[0], to: name };
    const cands = this.candidates();
    const steps = new Set(cands.filter((m) => m.path.length > this.prefix.length).map((m) => m.path[this.prefix.length]));
    if (steps.has(name)) {
      this.prefix = [...this.prefix, name];
      this.resolve();
      return;
    }
    const ends = uniqueTexts(cands.filter((m) => m.path[m.path.length - 1] === name));
    if (ends.length >= 1) this.finish(ends);
    else this.render();
  }

  /** After a step: play the move when the route names one, ask when it names several. */
  resolve() {
    const cands = this.candidates();
    const complete = cands.filter((m) => m.path.length === this.prefix.length);
    const going = cands.filter((m) => m.path.length > this.prefix.length);
    if (!going.length) {
      this.finish(uniqueTexts(complete));
      return;
    }
    const texts = uniqueTexts(cands);
    if (texts.length === 1) {
      this.finish(texts);
      return;
    }
    if (complete.length) {
      this.finish(uniqueTexts(complete), true);
      return;
    }
    this.render();
  }

  /** Plays the single move, or asks which one (same squares, other pieces taken). */
  finish(moves, canContinue = false) {
    if (moves.length === 1 && !canContinue) {
      const m = moves[0];
      this.prefix = [];
      this.render();
      if (this.opts.onMove) this.opts.onMove(m);
      return;
    }
    this.render();
    this.askChoice(moves, canContinue);
  }

  askChoice(moves, canContinue) {
    this.closeChoice();
    const box = document.createElement('div');
    box.className = 'choice';
    box.setAttribute('role', 'dialog');
    box.setAttribute('aria-label', 'Choose the capture');
    const title = document.createElement('p');
    const samePath = moves.every((m) => m.path.join() === moves[0].path.join());
    title.textContent = canContinue ? 'Stop here or capture on?'
      : samePath ? 'These captures run over the same squares but take other pieces. Which one?'
        : 'Several captures end on this square. Which one?';
    box.appendChild(title);
    for (const m of moves) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'choice-move';
      b.dataset.move = m.text;
      b.textContent = m.captured.length ? `${m.text}  (takes ${m.captured.join(', ')})` : m.text;
      b.addEventListener('click', () => { this.closeChoice(); this.prefix = []; this.render(); if (this.opts.onMove) this.opts.onMove(m); });
      b.addEventListener('pointerenter', () => this.previewTaken(m));
      b.addEventListener('focus', () => this.previewTaken(m));
      box.appendChild(b);
    }
    if (canContinue) {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = 'Capture on';
      b.addEventListener('click', () => this.closeChoice());
      box.appendChild(b);
    }
    const cancel = document.createElement('button');
    cancel.type = 'button';
    cancel.className = 'ghost-button';
    cancel.textContent = 'Cancel';
    cancel.addEventListener('click', () => this.clear());
    box.appendChild(cancel);
    box.addEventListener('keydown', (e) => { if (e.key === 'Escape') this.clear(); e.stopPropagation(); });
    this.el.appendChild(box);
    this.choiceBox = box;
    box.querySelector('button').focus();
  }

  previewTaken(m) {
    for (const [name, cell] of this.cells) {
      const pe = cell.querySelector('.piece');
      if (pe) pe.classList.toggle('preview-taken', m.captured.includes(name));
    }
  }

  closeChoice() {
    if (this.choiceBox) {
      this.choiceBox.remove();
      this.choiceBox = null;
    }
  }

  /** Plays a move typed as text: a legal entry's text or its route. */
  typed(text) {
    const t = text.trim().replace(/\s+/g, '');
    if (!t) return false;
    let hits = uniqueTexts(this.legal.filter((m) => m.text === t || m.path.join('-') === t || m.path.join('x') === t));
    if (!hits.length) {
      const sq = squaresOf(t);
      if (sq.length >= 2) {
        hits = uniqueTexts(this.legal.filter((m) => m.path[0] === sq[0] && m.path[m.path.length - 1] === sq[sq.length - 1]
          && sq.every((s) => m.path.includes(s) || m.captured.includes(s))));
      }
    }
    if (!hits.length) return false;
    this.finish(hits);
    return true;
  }
}

/** Writes pieces as a PDN FEN. */
export function fenOf(toMove, pieces) {
  const list = (colour) => pieces.filter((p) => p.colour === colour).map((p) => (p.king ? 'K' : '') + p.square).join(',');
  return `${toMove === 'black' ? 'B' : 'W'}:W${list('white')}:B${list('black')}`;
}
