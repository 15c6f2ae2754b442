// Play against the engine: a game lives on the server (stored after every
// move); the page keeps its id in localStorage so that a reload resumes it.

import { get, post, position, Socket } from './api.js';
import { Board, squaresOf } from './board.js';
import { MoveList, shortScore } from './movelist.js';

const GAME_KEY = 'kondavo.game';
const NAME_KEY = 'kondavo.name';

let V = null; // variants by name
let ctx = null;
let board = null;
let moveList = null;
let socket = null;
let game = null;
let viewPly = null; // null: the live position
let flipped = false;
let thinking = false;
let goSentFor = null; // "id:ply" of the last `go`, so one position gets one request
let retries = 0; // `go` requests refused in a row
let resignArmed = false;
let busy = false;
let renderToken = 0;

const $ = (id) => document.getElementById(id);

function levelOf(value) {
  const [k, n] = value.split(':');
  return { [k]: Number(n) };
}

function colourName(c) {
  return c === 'white' ? 'White' : 'Black';
}

function other(c) {
  return c === 'white' ? 'black' : 'white';
}

export function init(variants, context) {
  V = variants;
  ctx = context;
  board = new Board($('play-board'), { onMove: humanMove });
  moveList = new MoveList($('play-moves'), (ply) => setView(ply));
  // A socket reopened after a drop has lost its search: ask again, unless
  // the request was just sent on it.
  socket = new Socket(onMessage, (sent) => {
    if (!sent.some((m) => m.type === 'go')) { goSentFor = null; maybeGo(); }
  });

  const sel = $('ng-variant');
  for (const v of V.values()) {
    const o = document.createElement('option');
    o.value = v.name;
    o.textContent = v.title || v.name;
    sel.appendChild(o);
  }
  sel.value = localStorage.getItem('kondavo.variant') || 'international';
  if (!V.has(sel.value)) sel.value = V.keys().next().value;
  sel.addEventListener('change', previewStart);
  $('ng-fen').addEventListener('change', previewStart);
  $('ng-colour').addEventListener('change', previewStart);

  $('new-game').addEventListener('submit', (e) => { e.preventDefault(); startGame(); });
  $('ng-cancel').addEventListener('click', () => showForm(false));
  $('btn-new').addEventListener('click', () => showForm(true));
  $('btn-takeback').addEventListener('click', takeback);
  $('btn-draw').addEventListener('click', offerDraw);
  $('btn-resign').addEventListener('click', resign);
  $('lb-form').addEventListener('submit', (e) => { e.preventDefault(); saveName(); });
  $('lb-name').value = localStorage.getItem(NAME_KEY) || '';
  $('btn-analyse-game').addEventListener('click', () => {
    if (game) ctx.go('analysis', { variant: game.variant, fen: game.start_fen, moves: game.moves, gameId: game.id, graph: true });
  });
  for (const b of document.querySelectorAll('#game-panel [data-nav]')) {
    b.addEventListener('click', () => nav(b.dataset.nav));
  }
  $('play-type').addEventListener('submit', (e) => {
    e.preventDefault();
    const input = $('play-type-input');
    if (board.interactive && board.typed(input.value)) input.value = '';
    else showMessage(`'${input.value}' is not a legal move here`);
  });
}

let resumed = false;

export async function show(arg) {
  if (arg && arg.fen !== undefined) {
    // "Play from here" of the analysis board.
    $('ng-variant').value = arg.variant;
    $('ng-fen').value = arg.fen || '';
    $('ng-setup').open = !!arg.fen;
    showForm(true);
    return;
  }
  if (!resumed) {
    resumed = true;
    const id = localStorage.getItem(GAME_KEY);
    if (id) {
      try {
        setGame(await get(`/api/games/${encodeURIComponent(id)}`));
        return;
      } catch (e) {
        if (e.status === 404) localStorage.removeItem(GAME_KEY);
        else showFormError(e.message);
      }
    }
    showForm(true);
    return;
  }
  if (!game) showForm(true);
  else render();
}

export function hide() {}

/** Loads a stored game into the play view (the games list's "Resume"). */
export async function resume(id) {
  resumed = true;
  setGame(await get(`/api/games/${encodeURIComponent(id)}`));
}

function showForm(on) {
  $('new-game').hidden = !on;
  $('game-panel').hidden = on;
  $('ng-cancel').hidden = !(on && game);
  if (on) previewStart();
  else render();
}

/** While the form is open the board shows the start it would play from. */
async function previewStart() {
  if ($('new-game').hidden) return;
  const v = V.get($('ng-variant').value);
  localStorage.setItem('kondavo.variant', v.name);
  board.setVariant(v);
  const colour = document.querySelector('#ng-colour input:checked').value;
  board.setOrientation(colour === 'black' ? 'black' : 'white');
  const fen = $('ng-fen').value.trim();
  try {
    const p = await position(v.name, fen || null, []);
    if ($('new-game').hidden) return;
    board.setPosition(p.pieces, [], null);
    board.setInteractive(false);
    $('ng-error').textContent = '';
  } catch (e) {
    $('ng-error').textContent = e.message;
  }
  setPlayers(null);
}

function showFormError(msg) {
  $('ng-error').textContent = msg;
}

async function startGame() {
  const f = $('new-game');
  let colour = f.querySelector('#ng-colour input:checked').value;
  if (colour === 'random') colour = Math.random() < 0.5 ? 'white' : 'black';
  const body = {
    variant: $('ng-variant').value,
    human: colour,
    level: levelOf($('ng-level').value),
  };
  const fen = $('ng-fen').value.trim();
  if (fen) body.fen = fen;
  $('ng-start').disabled = true;
  try {
    const g = await post('/api/games', body);
    flipped = false;
    $('lb-message').textContent = '';
    setGame(g);
  } catch (e) {
    showFormError(e.message);
  } finally {
    $('ng-start').disabled = false;
  }
}

function setGame(g) {
  const changed = !game || game.id !== g.id;
  game = g;
  if (changed) {
    goSentFor = null;
    thinking = false;
    resetThinking();
  }
  localStorage.setItem(GAME_KEY, String(g.id));
  viewPly = null;
  resignArmed = false;
  $('btn-resign').textContent = 'Resign';
  $('new-game').hidden = true;
  $('game-panel').hidden = false;
  render();
  maybeGo();
}

function maybeGo() {
  if (!game || game.status !== 'playing' || !game.engine_to_move) return;
  const key = `${game.id}:${game.moves.length}`;
  if (goSentFor === key) return;
  goSentFor = key;
  thinking = true;
  $('thinking').classList.add('live');
  socket.send({ type: 'go', game: game.id });
  renderStatus();
}

function onMessage(msg) {
  if (!game) return;
  if (msg.game !== undefined && msg.game !== game.id) return;
  switch (msg.type) {
    case 'queued':
      showMessage(`Every search slot is busy: ${msg.position} ahead of this move. It starts soon.`);
      break;
    case 'started':
      if (msg.kind === 'go') {
        showMessage('');
        resetThinking();
        $('thinking').hidden = false;
        $('thinking').classList.add('live');
      }
      break;
    case 'info':
      if (msg.kind === 'go' && thinking) showInfo(msg);
      break;
    case 'move':
      thinking = false;
      retries = 0;
      $('thinking').classList.remove('live');
      if (msg.game_state) {
        const s = msg.game_state;
        game = s;
        viewPly = null;
        render();
        maybeGo();
      }
      break;
    case 'error': {
      thinking = false;
      $('thinking').classList.remove('live');
      showMessage(msg.message);
      // The game may have moved on elsewhere (another tab): read it again,
      // and ask the engine again a few times if it is still its turn.
      const key = goSentFor;
      get(`/api/games/${game.id}`).then((g) => {
        if (!game || g.id !== game.id) return;
        game = g;
        render();
        if (g.engine_to_move && goSentFor === key && retries < 5) {
          retries++;
          setTimeout(() => { if (goSentFor === key) { goSentFor = null; maybeGo(); } }, 3000);
        }
      }).catch(() => {});
      break;
    }
    default:
  }
}

function resetThinking() {
  $('thinking').hidden = true;
  $('think-score').textContent = '—';
  $('think-depth').textContent = '';
  $('think-nps').textContent = '';
  $('think-pv').textContent = '';
  $('thinking').classList.remove('live');
}

function showInfo(m) {
  if (m.multipv && m.multipv !== 1) return;
  $('thinking').hidden = false;
  $('think-score').textContent = m.score ? m.score.text : '—';
  $('think-depth').textContent = m.book ? 'book' : `depth ${m.depth}`;
  $('think-nps').textContent = m.nps ? `${fmtNps(m.nps)} · ${fmtNodes(m.nodes)}` : '';
  $('think-pv').textContent = (m.pv || []).join(' ');
  $('think-pv').title = (m.pv || []).join(' ');
}

function fmtNps(n) {
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)} Mn/s` : `${Math.round(n / 1e3)} kn/s`;
}

function fmtNodes(n) {
  if (!n) return '';
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)} M nodes` : `${Math.round(n / 1e3)} k nodes`;
}

function showMessage(text) {
  $('game-message').textContent = text || '';
}

function lastMoveOf(text) {
  if (!text) return null;
  const sq = squaresOf(text);
  return { from: sq[0], to: sq[sq.length - 1] };
}

function humanTurn() {
  return game && game.status === 'playing' && !game.engine_to_move;
}

let renderedId = null;

async function render() {
  if (!game) return;
  const changedGame = renderedId !== game.id;
  renderedId = game.id;
  const token = ++renderToken;
  const v = V.get(game.variant);
  board.setVariant(v);
  const bottom = flipped ? other(game.human) : game.human;
  board.setOrientation(bottom);
  const n = game.moves.length;
  const ply = viewPly === null ? n : viewPly;
  let pos = game.position;
  if (ply !== n) {
    try {
      pos = await position(game.variant, game.start_fen, game.moves.slice(0, ply));
    } catch (e) {
      showMessage(e.message);
      return;
    }
    if (token !== renderToken) return;
  }
  const live = ply === n;
  board.setPosition(pos.pieces, live && humanTurn() && !busy ? pos.legal : [], lastMoveOf(game.moves[ply - 1]));
  board.setInteractive(live && humanTurn() && !busy);
  const scores = game.scores ? game.scores.map(shortScore) : [];
  moveList.set(game.moves, ply, startColour(), v.first_to_move, scores);
  $('game-title').textContent = `${v.title || v.name}`;
  $('game-id').textContent = `game ${game.id} · ${game.engine_name}`;
  $('game-pdn-link').href = `/api/games/${game.id}/pdn`;
  setPlayers(pos.to_move);
  renderStatus(pos, live);
  const over = game.status === 'finished';
  $('btn-takeback').disabled = over || busy || !game.moves.length;
  $('btn-draw').disabled = over || busy;
  $('btn-resign').disabled = over || busy;
  $('game-end').hidden = !over;
  if (over) $('end-result').textContent = resultText(game);
  // A name is asked once per game: given, the form makes way for it.
  if (changedGame) $('lb-message').textContent = '';
  $('lb-form').hidden = !!game.name;
  if (game.name && !$('lb-message').textContent) {
    $('lb-message').textContent = `This game counts for ${game.name} on the leaderboard.`;
  }
}

function startColour() {
  return /^\s*B/i.test(game.start_fen) ? 'black' : 'white';
}

function setPlayers(toMove) {
  const top = $('play-top');
  const bottom = $('play-bottom');
  if (!game || !$('new-game').hidden) {
    top.innerHTML = '';
    bottom.innerHTML = '';
    top.classList.remove('to-move');
    bottom.classList.remove('to-move');
    return;
  }
  const human = game.human;
  const bottomColour = flipped ? other(human) : human;
  const label = (colour) => {
    const who = colour === human ? (game.name || 'You') : game.engine_name;
    return `<span class="dot ${colour}"></span><span>${escapeHtml(who)}</span>`;
  };
  bottom.innerHTML = label(bottomColour);
  top.innerHTML = label(other(bottomColour));
  const playing = game.status === 'playing';
  bottom.classList.toggle('to-move', playing && toMove === bottomColour);
  top.classList.toggle('to-move', playing && toMove === other(bottomColour));
}

function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

/** "1-0 · White wins: Black has no moves" and the like. */
export function resultText(g) {
  const reason = g.reason || '';
  const winner = winnerOf(g);
  let head;
  if (winner) head = `${colourName(winner)} wins`;
  else head = 'Draw';
  const you = winner ? (winner === g.human ? ' — you win' : ' — the engine wins') : '';
  return `${g.result} · ${head}${you}${reason ? ` (${reason})` : ''}`;
}

function winnerOf(g) {
  if (g.winner) return g.winner;
  const r = g.result || '';
  if (r === '1-0' || r === '2-0') return 'white';
  if (r === '0-1' || r === '0-2') return 'black';
  return null;
}

function renderStatus(pos, live = true) {
  const st = $('game-status');
  st.classList.remove('over');
  if (!game) return;
  if (game.status === 'finished') {
    st.textContent = 'Game over';
    st.classList.add('over');
    return;
  }
  if (!live) {
    st.textContent = `Move ${viewPly} of ${game.moves.length} (→ or End to return)`;
    return;
  }
  if (game.engine_to_move) {
    st.textContent = 'The engine is thinking…';
    return;
  }
  const capture = pos && pos.legal && pos.legal.some((m) => m.captured.length);
  st.textContent = capture ? 'Your move — a capture is compulsory' : 'Your move';
}

function setView(ply) {
  if (!game) return;
  const n = game.moves.length;
  ply = Math.max(0, Math.min(n, ply));
  viewPly = ply === n ? null : ply;
  render();
}

function nav(what) {
  if (!game) return;
  const n = game.moves.length;
  const cur = viewPly === null ? n : viewPly;
  if (what === 'first') setView(0);
  else if (what === 'prev') setView(cur - 1);
  else if (what === 'next') setView(cur + 1);
  else if (what === 'last') setView(n);
  else if (what === 'flip') { flipped = !flipped; render(); }
}

export function key(e) {
  if ($('game-panel').hidden) return false;
  const k = { ArrowLeft: 'prev', ArrowRight: 'next', ArrowUp: 'first', ArrowDown: 'last', Home: 'first', End: 'last', f: 'flip' }[e.key];
  if (!k) {
    if (e.key === 'Escape') { board.clear(); return true; }
    return false;
  }
  nav(k);
  return true;
}

async function humanMove(entry) {
  if (!humanTurn() || busy) return;
  busy = true;
  // Show the move at once; the server's answer then draws the position.
  const pieces = [];
  for (const [sq, p] of board.pieces) {
    if (entry.captured.includes(sq) || sq === entry.from) continue;
    pieces.push({ square: sq, colour: p.colour, king: p.king });
  }
  const mover = board.pieces.get(entry.path[0]);
  if (mover) pieces.push({ square: entry.to, colour: mover.colour, king: mover.king || entry.promotes });
  board.setPosition(pieces, [], { from: entry.from, to: entry.to }, false);
  board.setInteractive(false);
  try {
    const g = await post(`/api/games/${game.id}/move`, { move: entry.text });
    busy = false;
    showMessage('');
    setGame(g);
  } catch (e) {
    busy = false;
    showMessage(e.message);
    try { game = await get(`/api/games/${game.id}`); } catch { /* keep the old state */ }
    render();
  }
}

async function takeback() {
  if (!game) return;
  try {
    const g = await post(`/api/games/${game.id}/takeback`);
    thinking = false;
    resetThinking();
    showMessage('Move taken back');
    goSentFor = null;
    setGame(g);
  } catch (e) {
    showMessage(e.message);
  }
}

async function offerDraw() {
  if (!game) return;
  $('btn-draw').disabled = true;
  showMessage('The engine considers your offer…');
  try {
    const r = await post(`/api/games/${game.id}/draw`);
    showMessage(r.accepted ? 'The engine accepts the draw.' : 'The engine declines the draw: it plays on.');
    setGame(r.game);
  } catch (e) {
    showMessage(e.message);
    render();
  }
}

async function resign() {
  if (!game) return;
  if (!resignArmed) {
    resignArmed = true;
    $('btn-resign').textContent = 'Really resign?';
    setTimeout(() => { resignArmed = false; $('btn-resign').textContent = 'Resign'; }, 4000);
    return;
  }
  try {
    setGame(await post(`/api/games/${game.id}/resign`));
    thinking = false;
    resetThinking();
  } catch (e) {
    showMessage(e.message);
  }
}

async function saveName() {
  const name = $('lb-name').value.trim();
  if (!game || !name) {
    $('lb-message').textContent = 'Type a name first.';
    return;
  }
  try {
    const g = await post(`/api/games/${game.id}/name`, { name });
    localStorage.setItem(NAME_KEY, name);
    game = g;
    $('lb-message').innerHTML = '';
    const a = document.createElement('a');
    a.href = '#leaderboard';
    a.textContent = 'see the leaderboard';
    a.addEventListener('click', (e) => { e.preventDefault(); ctx.go('leaderboard', game.variant); });
    $('lb-message').append(`Saved: this game counts for ${name}; `, a, '.');
    render();
  } catch (e) {
    $('lb-message').textContent = e.message;
  }
}
