// Analysis: any position (edited, pasted as FEN, or a PDN game stepped
// through), infinite multi-PV analysis on its own socket, the evaluation
// graph of the whole line and its export as PDN with the scores.

import { get, post, position, Socket, download } from './api.js';
import { Board, squaresOf, fenOf } from './board.js';
import { MoveList, shortScore } from './movelist.js';
import { EvalGraph } from './graph.js';

let V = null;
let ctx = null;
let board = null;
let moveList = null;
let graph = null;
let socket = null;

const state = {
  variant: 'international',
  fen: null, // null: the variant's start
  moves: [],
  ply: 0,
  plies: null, // the last analyse-game answer, for the graph and the export
  gameId: null, // a stored game: its graph is saved with it
  tags: {},
  result: '*',
};

let analysing = false;
let awaitingStart = false;
let searchId = null; // the server's number of the search shown (`search` of its messages)
let lines = new Map();
let current = null; // the shown position's answer
let editing = null; // {pieces: Map, side}
let renderToken = 0;
let pdnGames = [];

const $ = (id) => document.getElementById(id);

export function init(variants, context) {
  V = variants;
  ctx = context;
  board = new Board($('an-board'), { onMove, onSquare: editSquare });
  moveList = new MoveList($('an-moves'), (ply) => goTo(ply));
  graph = new EvalGraph($('an-graph'), (ply) => goTo(ply));
  socket = new Socket(onMessage);

  const sel = $('an-variant');
  for (const v of V.values()) {
    const o = document.createElement('option');
    o.value = v.name;
    o.textContent = v.title || v.name;
    sel.appendChild(o);
  }
  sel.value = state.variant;
  sel.addEventListener('change', () => {
    load({ variant: sel.value, fen: null, moves: [] });
  });
  $('an-start').addEventListener('click', () => load({ variant: state.variant, fen: null, moves: [] }));
  $('an-fen-form').addEventListener('submit', (e) => { e.preventDefault(); loadFen($('an-fen').value); });
  $('an-edit').addEventListener('click', startEdit);
  $('an-edit-done').addEventListener('click', finishEdit);
  $('an-edit-cancel').addEventListener('click', () => stopEdit());
  $('an-edit-clear').addEventListener('click', () => { if (editing) { editing.pieces.clear(); drawEdit(); } });
  for (const r of document.querySelectorAll('input[name="edit-side"]')) {
    r.addEventListener('change', () => { if (editing) editing.side = r.value; });
  }
  $('an-play').addEventListener('click', () => {
    if (current) ctx.go('play', { variant: state.variant, fen: current.fen });
  });
  $('an-go').addEventListener('click', () => setAnalysing(!analysing));
  $('an-multipv').addEventListener('change', () => { if (analysing) sendAnalyse(); });
  $('an-graph-go').addEventListener('click', runGraph);
  $('an-export').addEventListener('click', exportPdn);
  $('an-pdn-go').addEventListener('click', importPdn);
  $('an-pdn-file').addEventListener('change', async (e) => {
    const f = e.target.files[0];
    if (f) $('an-pdn').value = await f.text();
  });
  $('an-pdn-pick').addEventListener('change', () => pickPdn(Number($('an-pdn-pick').value)));
  for (const b of document.querySelectorAll('#view-analysis [data-nav]')) {
    b.addEventListener('click', () => nav(b.dataset.nav));
  }
  $('an-type').addEventListener('submit', (e) => {
    e.preventDefault();
    const input = $('an-type-input');
    if (board.interactive && board.typed(input.value)) input.value = '';
    else showError(`'${input.value}' is not a legal move here`);
  });
}

let shown = false;

/** `arg`: {variant, fen, moves, gameId, graph} to load a game. */
export function show(arg) {
  if (arg && arg.variant) {
    load(arg);
    if (arg.graph) runGraph();
  } else if (!shown) {
    load({ variant: localStorage.getItem('kondavo.variant') || state.variant, fen: null, moves: [] });
  } else {
    render();
  }
  shown = true;
}

export function hide() {
  // One search slot may be all the machine has: an analysis left running
  // would hold up the engine's moves in a game.
  setAnalysing(false);
}

function showError(msg) {
  $('an-error').textContent = msg || '';
}

/** Loads a line: variant, start FEN (null: the start), moves, and shows `ply` (default the start). */
function load({ variant, fen = null, moves = [], ply = 0, gameId = null, tags = {}, result = '*' }) {
  if (!V.has(variant)) variant = 'international';
  stopEdit(false);
  state.variant = variant;
  state.fen = fen || null;
  state.moves = [...moves];
  state.ply = Math.min(ply, moves.length);
  state.plies = null;
  state.gameId = gameId;
  state.tags = tags;
  state.result = result;
  $('an-variant').value = variant;
  $('an-graph-msg').textContent = '';
  graph.set([], 0);
  showError('');
  render();
}

async function loadFen(text) {
  const fen = text.trim();
  if (!fen) return;
  try {
    await position(state.variant, fen, []);
    load({ variant: state.variant, fen, moves: [] });
  } catch (e) {
    showError(e.message);
  }
}

async function render() {
  const token = ++renderToken;
  const v = V.get(state.variant);
  board.setVariant(v);
  let pos;
  try {
    pos = await position(state.variant, state.fen, state.moves.slice(0, state.ply));
  } catch (e) {
    if (token === renderToken) showError(e.message);
    return;
  }
  if (token !== renderToken) return;
  current = pos;
  if (editing) return;
  const last = state.ply ? squaresOf(state.moves[state.ply - 1]) : null;
  board.setPosition(pos.pieces, pos.outcome ? [] : pos.legal, last ? { from: last[0], to: last[last.length - 1] } : null);
  board.setInteractive(!pos.outcome);
  if (document.activeElement !== $('an-fen')) $('an-fen').value = pos.fen;
  const outcome = pos.outcome ? ` · game over: ${pos.outcome.result} (${pos.outcome.reason})` : '';
  $('an-tomove').textContent = `${pos.to_move === 'white' ? 'White' : 'Black'} to move${outcome}`;
  const startColour = /^\s*B/i.test(pos.start_fen) ? 'black' : 'white';
  const scores = state.plies ? state.moves.map((_, i) => (state.plies[i + 1] ? shortScore(state.plies[i + 1].score) : '')) : [];
  moveList.set(state.moves, state.ply, startColour, v.first_to_move, scores);
  if (state.plies) graph.setCurrent(state.ply);
  if (analysing) sendAnalyse();
}

function goTo(ply) {
  const p = Math.max(0, Math.min(state.moves.length, ply));
  if (p === state.ply) return;
  state.ply = p;
  render();
}

function nav(what) {
  if (what === 'first') goTo(0);
  else if (what === 'prev') goTo(state.ply - 1);
  else if (what === 'next') goTo(state.ply + 1);
  else if (what === 'last') goTo(state.moves.length);
  else if (what === 'flip') board.flip();
}

export function key(e) {
  const k = { ArrowLeft: 'prev', ArrowRight: 'next', ArrowUp: 'first', ArrowDown: 'last', Home: 'first', End: 'last', f: 'flip' }[e.key];
  if (k) { nav(k); return true; }
  if (e.key === 'Escape') { board.clear(); return true; }
  if (e.key === ' ') { setAnalysing(!analysing); return true; }
  return false;
}

function onMove(entry) {
  if (state.ply < state.moves.length && state.moves[state.ply] === entry.text) {
    state.ply++;
  } else {
    // A new move in the middle of the line replaces the rest of it.
    state.moves = [...state.moves.slice(0, state.ply), entry.text];
    state.ply++;
    if (state.plies) {
      state.plies = null;
      graph.set([], 0);
    }
    state.gameId = null;
  }
  render();
}

/* Infinite analysis */

function setAnalysing(on) {
  if (on === analysing) return;
  analysing = on;
  const b = $('an-go');
  b.setAttribute('aria-pressed', String(on));
  b.textContent = on ? 'Stop' : 'Analyse';
  if (on) {
    sendAnalyse();
  } else {
    socket.send({ type: 'stop' });
    awaitingStart = false;
    $('an-info').textContent = '';
  }
}

function sendAnalyse() {
  lines = new Map();
  drawLines();
  awaitingStart = true;
  const msg = {
    type: 'analyse',
    variant: state.variant,
    moves: state.moves.slice(0, state.ply),
    multipv: Number($('an-multipv').value),
  };
  if (state.fen) msg.fen = state.fen;
  socket.send(msg);
  $('an-info').textContent = 'starting…';
}

function onMessage(msg) {
  switch (msg.type) {
    case 'queued':
      $('an-info').textContent = `waiting for a search slot (${msg.position} ahead)`;
      break;
    case 'started':
      if (msg.kind === 'analyse') {
        awaitingStart = false;
        searchId = msg.search === undefined ? null : msg.search;
        $('an-info').textContent = 'searching…';
      }
      break;
    case 'info':
      if (msg.kind !== 'analyse' || awaitingStart || !analysing) return;
      // A late line of a search replaced since.
      if (searchId !== null && msg.search !== undefined && msg.search !== searchId) return;
      {
        // The lines of a new depth arrive one by one: a line of the depth
        // before that starts with the same move is out of date (the move
        // has changed rank), so it goes, and no two lines shown share a
        // first move.
        const key = msg.multipv || 1;
        const first = (msg.pv || [])[0];
        for (const [k, m] of lines) {
          if (k !== key && m.depth < msg.depth && (m.pv || [])[0] === first) lines.delete(k);
        }
        lines.set(key, msg);
      }
      $('an-info').textContent = `depth ${msg.depth} · ${msg.nps ? `${(msg.nps / 1e6).toFixed(1)} Mn/s` : ''}`;
      drawLines();
      break;
    case 'done':
      if (!awaitingStart && analysing && msg.kind === 'analyse') $('an-info').textContent += ' · finished';
      break;
    case 'error':
      showError(msg.message);
      if (analysing && !lines.size) setAnalysing(false);
      break;
    default:
  }
}

function drawLines() {
  const ol = $('an-lines');
  ol.innerHTML = '';
  const keys = [...lines.keys()].sort((a, b) => a - b);
  for (const k of keys) {
    const m = lines.get(k);
    const li = document.createElement('li');
    const s = document.createElement('span');
    s.className = 'l-score';
    s.textContent = m.score ? m.score.text : '';
    const pv = document.createElement('span');
    pv.className = 'l-pv';
    pv.textContent = (m.pv || []).join(' ');
    const d = document.createElement('span');
    d.className = 'muted';
    d.textContent = `d${m.depth}`;
    li.append(s, pv, d);
    ol.appendChild(li);
  }
}

/* The evaluation graph and the export */

async function runGraph() {
  setAnalysing(false);
  const btn = $('an-graph-go');
  const ms = Number($('an-graph-time').value);
  const body = { movetime_ms: ms };
  if (state.gameId !== null) {
    body.game = state.gameId;
  } else {
    body.variant = state.variant;
    if (state.fen) body.fen = state.fen;
    body.moves = state.moves;
  }
  btn.disabled = true;
  const secs = Math.ceil(((state.moves.length + 1) * ms) / 1000);
  $('an-graph-msg').textContent = `Analysing ${state.moves.length + 1} positions (about ${secs} s)…`;
  try {
    const r = await post('/api/analyse-game', body);
    state.plies = r.plies;
    graph.set(r.plies, state.ply);
    $('an-graph-msg').textContent = `Graph of ${r.plies.length} positions, White's view.`;
    render();
  } catch (e) {
    $('an-graph-msg').textContent = e.message;
  } finally {
    btn.disabled = false;
  }
}

async function exportPdn() {
  try {
    let text;
    if (state.gameId !== null && !state.plies) {
      text = await get(`/api/games/${state.gameId}/pdn`);
    } else {
      const body = {
        variant: state.variant,
        moves: state.moves,
        scores: state.moves.map((_, i) => (state.plies && state.plies[i + 1] ? state.plies[i + 1].score : null)),
        tags: { Event: 'kondavo analysis', ...state.tags },
        result: state.result || '*',
      };
      if (state.fen) body.fen = state.fen;
      text = await post('/api/pdn/export', body);
    }
    download(`kondavo-${state.variant}.pdn`, text);
    $('an-graph-msg').textContent = 'PDN exported.';
  } catch (e) {
    $('an-graph-msg').textContent = e.message;
  }
}

/* PDN import */

async function importPdn() {
  const text = $('an-pdn').value;
  $('an-pdn-error').textContent = '';
  if (!text.trim()) {
    $('an-pdn-error').textContent = 'Paste a PDN text or choose a file first.';
    return;
  }
  try {
    const r = await post('/api/pdn/parse', { pdn: text, variant: state.variant });
    pdnGames = r.games;
    const pick = $('an-pdn-pick');
    pick.innerHTML = '';
    pdnGames.forEach((g, i) => {
      const o = document.createElement('option');
      o.value = String(i);
      const t = g.tags || {};
      o.textContent = g.error && !g.moves
        ? `${g.number}. (not read)`
        : `${g.number}. ${t.White || '?'} – ${t.Black || '?'} ${g.result || ''}${g.error ? ' (stops early)' : ''}`;
      pick.appendChild(o);
    });
    $('an-pdn-pick-label').hidden = pdnGames.length < 2;
    const first = pdnGames.findIndex((g) => g.moves);
    if (first < 0) {
      $('an-pdn-error').textContent = pdnGames.map((g) => g.error).join('; ');
      return;
    }
    pick.value = String(first);
    pickPdn(first);
  } catch (e) {
    $('an-pdn-error').textContent = e.message;
  }
}

function pickPdn(i) {
  const g = pdnGames[i];
  if (!g) return;
  $('an-pdn-error').textContent = g.error || '';
  if (!g.moves) return;
  load({ variant: g.variant, fen: g.start_fen, moves: g.moves, ply: 0, tags: g.tags || {}, result: g.result || '*' });
}

/* The board editor */

function startEdit() {
  if (!current) return;
  setAnalysing(false);
  editing = {
    pieces: new Map(current.pieces.map((p) => [p.square, { colour: p.colour, king: p.king }])),
    side: current.to_move,
  };
  document.querySelector(`input[name="edit-side"][value="${editing.side}"]`).checked = true;
  $('an-editor').hidden = false;
  $('an-board').classList.add('board-editing');
  board.setInteractive(false);
  drawEdit();
}

function drawEdit() {
  board.setPosition([...editing.pieces].map(([square, p]) => ({ square, ...p })), [], null);
}

function editSquare(name) {
  if (!editing) return;
  const pal = document.querySelector('input[name="pal"]:checked').value;
  const cur = editing.pieces.get(name);
  if (pal === 'empty') {
    editing.pieces.delete(name);
  } else {
    const want = { colour: pal.startsWith('white') ? 'white' : 'black', king: pal.endsWith('king') };
    if (cur && cur.colour === want.colour && cur.king === want.king) editing.pieces.delete(name);
    else editing.pieces.set(name, want);
  }
  drawEdit();
}

async function finishEdit() {
  if (!editing) return;
  const pieces = [...editing.pieces].map(([square, p]) => ({ square, ...p }));
  const fen = fenOf(editing.side, pieces);
  try {
    const p = await position(state.variant, fen, []);
    stopEdit(false);
    load({ variant: state.variant, fen: p.fen, moves: [] });
  } catch (e) {
    showError(e.message);
  }
}

function stopEdit(redraw = true) {
  if (!editing) return;
  editing = null;
  $('an-editor').hidden = true;
  $('an-board').classList.remove('board-editing');
  if (redraw) render();
}
