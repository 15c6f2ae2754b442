// End-to-end tests of `kondavo serve`'s page in headless Chromium.
//
//   node run.mjs <path to kondavo> [--screenshot <png>] [--only <name>] [--base <url>]
//
// (`--base` drives a server already running there instead of starting one.)
// Starts the server on a free port with a fresh games database, drives the
// page as a person would (clicks, drags, keys) and checks what it shows
// against the server's answers. Ends with "N passed, N failed" and a
// non-zero exit status when a test failed.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

const args = process.argv.slice(2);
const binary = args.find((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--')));
const opt = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : null; };
const screenshotPath = opt('--screenshot');
const only = opt('--only');
const givenBase = opt('--base');
if (!binary) {
  console.error('usage: node run.mjs <path to kondavo> [--screenshot <png>] [--only <test>]');
  process.exit(2);
}

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const started = Date.now();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kondavo-web-'));
let server = null;
let base = null;
let context = null;
let serverLog = '';

function log(...a) {
  console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s]`, ...a);
}

/** Thrown by a test that cannot run here; it is neither passed nor failed. */
class Skip extends Error {}

function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

function assertEq(got, want, what) {
  const g = JSON.stringify(got);
  const w = JSON.stringify(want);
  if (g !== w) throw new Error(`${what}: got ${g}, want ${w}`);
}

/** Starts `kondavo serve` on `port` (0: a free one) with `db`; resolves to its address once it names it. */
function spawnServer(port, db) {
  const proc = spawn(path.resolve(binary), ['serve', '--port', String(port), '--db', db], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server named no address in 60 s:\n${out}`)), 60000);
    const seen = (d) => {
      out += d;
      serverLog += d;
      // The line may come in pieces: wait for the slash after the port.
      const m = out.match(/listening on (http:\/\/[^\s/]+)\//);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    };
    proc.stdout.on('data', seen);
    proc.stderr.on('data', seen);
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`the server exited (${code}):\n${out}`)); });
  });
  return { proc, ready };
}

/** Starts the server the tests share, on a free port, with a fresh database. */
async function startServer() {
  if (givenBase) {
    base = givenBase.replace(/\/$/, '');
    return;
  }
  const s = spawnServer(0, path.join(tmp, 'games.sqlite'));
  server = s.proc;
  base = await s.ready;
  const health = await api('GET', '/api/health');
  assert(health.ok === true, 'GET /api/health is not ok');
}

async function loadVariants() {
  V = (await api('GET', '/api/variants')).variants;
}

/** Calls the API from the test itself (the truth the page is checked against). */
async function api(method, p, body, at = base) {
  const res = await fetch(at + p, {
    method,
    headers: body ? { 'Content-Type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch { json = text; }
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return json;
}

async function launch() {
  const profile = fs.mkdtempSync(path.join(tmp, 'profile-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 860 },
    acceptDownloads: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  context.setDefaultTimeout(20000);
}

const pageErrors = [];

async function newPage(hash = '#play') {
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(`${e.message}`));
  // A refused request (a bad FEN's 400) is logged by Chromium as an error;
  // the page shows it, so only script errors count.
  page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) pageErrors.push(m.text()); });
  await page.goto(`${base}/${hash}`);
  await page.waitForSelector('body[data-ready="true"]');
  return page;
}

const sq = (board, name) => `${board} .sq[data-square="${name}"]`;

/** The pieces the page draws on a board, as the server lists them. */
async function boardPieces(page, board) {
  return page.$$eval(`${board} .sq[data-square]`, (cells) => cells
    .filter((c) => c.querySelector('.piece'))
    .map((c) => {
      const p = c.querySelector('.piece');
      return { square: c.dataset.square, colour: p.classList.contains('white') ? 'white' : 'black', king: p.classList.contains('king') };
    }));
}

function sortPieces(ps) {
  return [...ps].map((p) => ({ square: p.square, colour: p.colour, king: p.king }))
    .sort((a, b) => (a.square < b.square ? -1 : a.square > b.square ? 1 : 0));
}

/**
 * Enters a move square by square (clicks), as a person does, until the page
 * plays it (it does as soon as the squares name one move); answers a
 * choice with the move's text.
 */
async function enterMove(page, board, entry) {
  for (let i = 0; i < entry.path.length; i++) {
    if (await page.$(`${board} .choice`)) break;
    // A square no longer offered: the move was played already.
    if (i > 0 && !(await page.$(`${sq(board, entry.path[i])}.dest`))) break;
    await page.click(sq(board, entry.path[i]));
  }
  const choice = await page.$(`${board} .choice`);
  if (choice) await page.click(`${board} .choice button[data-move="${entry.text}"]`);
}

/** Drags a piece from one square to another with the mouse. */
async function dragMove(page, board, from, to) {
  const a = await page.locator(sq(board, from)).boundingBox();
  const b = await page.locator(sq(board, to)).boundingBox();
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(a.x + a.width / 2 + 10, a.y + a.height / 2 + 5, { steps: 2 });
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 5 });
  await page.mouse.up();
}

/** The engine's best move in a position (the test's player). */
async function bestMove(variant, fen) {
  const r = await api('POST', '/api/analyse-game', { variant, fen, moves: [], depth: 6 });
  return r.plies[0].best;
}

function currentGameId(page) {
  return page.evaluate(() => localStorage.getItem('kondavo.game'));
}

/** Waits until the stored game is the human's turn or over; returns it. */
async function waitHumanTurn(page, id, timeout = 60000) {
  const t0 = Date.now();
  for (;;) {
    const g = await api('GET', `/api/games/${id}`);
    if (g.status === 'finished') return g;
    if (!g.engine_to_move) {
      // The page must show the same position and accept input.
      const n = await page.$$eval('#play-moves .mv[data-ply]', (b) => b.length);
      const interactive = await page.$$eval('#play-board .sq.movable', (c) => c.length);
      if (n === g.moves.length && interactive > 0) return g;
    }
    if (Date.now() - t0 > timeout) throw new Error(`game ${id}: the human's turn did not come in ${timeout} ms`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

async function startGame(page, { variant, fen, colour = 'white', level = 'depth:1' }) {
  await page.goto(`${base}/#play`);
  await page.waitForSelector('body[data-ready="true"]');
  if (await page.isVisible('#btn-new')) await page.click('#btn-new');
  await page.selectOption('#ng-variant', variant);
  await page.check(`#ng-colour input[value="${colour}"]`);
  await page.selectOption('#ng-level', level);
  if (fen) {
    if (!(await page.isVisible('#ng-fen'))) await page.click('#ng-setup summary');
    await page.fill('#ng-fen', fen);
  } else if (await page.isVisible('#ng-fen')) {
    await page.fill('#ng-fen', '');
  }
  const before = await currentGameId(page);
  await page.click('#ng-start');
  await page.waitForFunction((b) => localStorage.getItem('kondavo.game') && localStorage.getItem('kondavo.game') !== b, before);
  await page.waitForSelector('#game-panel:not([hidden])');
  return currentGameId(page);
}

/**
 * Plays a game to its end in the page: each human move is the engine's own
 * best move (a deep search, so the set-up positions end quickly), entered
 * by clicks square by square. Returns the finished game and what happened.
 */
async function playOut(page, id, { maxMoves = 40, drag = false } = {}) {
  const seen = { multiCapture: false, promotion: false, moves: 0, choices: 0 };
  for (let i = 0; i < maxMoves; i++) {
    const g = await waitHumanTurn(page, id);
    if (g.status === 'finished') return { game: g, seen };
    const best = await bestMove(g.variant, g.position.fen);
    const entry = g.position.legal.find((m) => m.text === best)
      || g.position.legal.find((m) => m.path.join('x') === best || m.path.join('-') === best || m.path.join(':') === best);
    assert(entry, `game ${id}: the best move ${best} is not among the legal moves`);
    const dup = g.position.legal.filter((m) => m.path.join() === entry.path.join() && m.text !== entry.text);
    if (dup.length) seen.choices++;
    if (entry.path.length > 2) seen.multiCapture = true;
    const mover = g.position.pieces.find((p) => p.square === entry.from);
    if (entry.promotes && mover && !mover.king) seen.promotion = true;
    if (drag && entry.path.length === 2) await dragMove(page, '#play-board', entry.path[0], entry.path[1]);
    else await enterMove(page, '#play-board', entry);
    seen.moves++;
    // The move reaches the server: the game has one more move (or is over).
    const n = g.moves.length;
    const t0 = Date.now();
    for (;;) {
      const h = await api('GET', `/api/games/${id}`);
      if (h.moves.length > n || h.status === 'finished') break;
      if (Date.now() - t0 > 15000) throw new Error(`game ${id}: move ${entry.text} did not reach the server`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`game ${id}: not over after ${maxMoves} moves`);
}

/** The page shows the game's end with its result and reason. */
async function checkEnd(page, game) {
  await page.waitForSelector('#game-end:not([hidden])');
  const text = await page.textContent('#end-result');
  assert(text.includes(game.result), `the page's result "${text}" lacks ${game.result}`);
  assert(text.includes(game.reason), `the page's result "${text}" lacks the reason ${game.reason}`);
}

// ---------------------------------------------------------------- tests

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

let V = null;

test('page loads with every variant', async () => {
  assertEq(V.length, 7, 'variants');
  const page = await newPage('#play');
  const names = await page.$$eval('#ng-variant option', (o) => o.map((x) => x.value));
  assertEq([...names].sort(), V.map((v) => v.name).sort(), 'variants offered');
  await page.close();
});

test('boards: geometry, numbering and start positions of all seven variants', async () => {
  const page = await newPage('#analysis');
  for (const v of V) {
    await page.selectOption('#an-variant', v.name);
    await page.waitForFunction((n) => document.querySelectorAll('#an-board .sq[data-square]').length === n, v.squares.length);
    // Every square where the server places it, seen from White's side.
    const cells = await page.$$eval('#an-board .sq[data-square]', (c) => c.map((e) => ({ name: e.dataset.square, row: +e.style.gridRow - 1, col: +e.style.gridColumn - 1 })));
    const want = new Map(v.squares.map((s) => [s.name, s]));
    for (const c of cells) {
      const s = want.get(c.name);
      assert(s && s.row === c.row && s.col === c.col, `${v.name}: square ${c.name} drawn at ${c.row},${c.col}, the server says ${s && `${s.row},${s.col}`}`);
    }
    const total = await page.$$eval('#an-board .sq', (c) => c.length);
    assertEq(total, v.rows * v.cols, `${v.name}: cells`);
    // Labels as the variant writes them: numbers on the squares, or files and ranks.
    if (v.algebraic) {
      const files = await page.$$eval('#an-board .coord.file', (c) => c.map((e) => e.textContent));
      assertEq(files, v.files, `${v.name}: file labels`);
    } else {
      const nums = await page.$$eval('#an-board .sq[data-square] .num', (c) => c.map((e) => e.textContent).sort((a, b) => a - b));
      assertEq(nums, v.squares.map((s) => s.name).sort((a, b) => a - b), `${v.name}: square numbers`);
    }
    const start = await api('POST', '/api/position', { variant: v.name });
    await page.waitForFunction((n) => document.querySelectorAll('#an-board .piece').length === n, start.pieces.length);
    assertEq(sortPieces(await boardPieces(page, '#an-board')), sortPieces(start.pieces), `${v.name}: start position`);
  }
  // Flip: the first square's cell moves to the mirrored place.
  const v = V.find((x) => x.name === 'international');
  await page.selectOption('#an-variant', 'international');
  await page.keyboard.press('f');
  const cell = await page.$eval(sq('#an-board', v.squares[0].name), (e) => [+e.style.gridRow - 1, +e.style.gridColumn - 1]);
  assertEq(cell, [v.rows - 1 - v.squares[0].row, v.cols - 1 - v.squares[0].col], 'flipped square');
  await page.keyboard.press('f');
  await page.close();
});

let englishGame = null;

test('English game: a multi-step capture and a promotion, to the end', async () => {
  const page = await newPage('#play');
  const id = await startGame(page, { variant: 'english', fen: FENS.english, colour: 'white', level: 'depth:1' });
  const { game, seen } = await playOut(page, id);
  assert(seen.multiCapture, 'no multi-step capture was entered');
  assert(seen.promotion, 'no promotion happened');
  assertEq(game.status, 'finished', 'status');
  await checkEnd(page, game);
  // A king is drawn where the server has one.
  const kings = game.position.pieces.filter((p) => p.king).map((p) => p.square);
  for (const k of kings) assert(await page.$(`${sq('#play-board', k)} .piece.king`), `no king drawn on ${k}`);
  englishGame = { page, game };
});

test('leaderboard after a game', async () => {
  assert(englishGame, 'needs the English game');
  const { page, game } = englishGame;
  const was = (await api('GET', '/api/leaderboard/english')).players.find((x) => x.name === 'Tester') || { games: 0, wins: 0 };
  await page.fill('#lb-name', 'Tester');
  await page.click('#lb-save');
  await page.waitForSelector('#lb-message a');
  await page.click('#lb-message a');
  await page.waitForSelector('#view-leaderboard:not([hidden])');
  await page.waitForFunction(() => [...document.querySelectorAll('#lb-table tbody tr')].some((r) => r.textContent.includes('Tester')));
  const rows = await page.$$eval('#lb-table tbody tr', (r) => r.map((x) => [...x.cells].map((c) => c.textContent)));
  const me = rows.find((r) => r[1] === 'Tester');
  const engine = rows.find((r) => r[1] === game.engine_name);
  assert(me && engine, `leaderboard rows: ${JSON.stringify(rows)}`);
  assertEq(me[3], String(was.games + 1), 'games of Tester');
  const won = game.result === '1-0' ? 'white' : game.result === '0-1' ? 'black' : null;
  assertEq(me[4], String(was.wins + (won === game.human ? 1 : 0)), 'wins of Tester');
  const lb = await api('GET', '/api/leaderboard/english');
  const p = lb.players.find((x) => x.name === 'Tester');
  assertEq(me[2], p.elo_text, 'Elo shown');
  // The finished game analysed from the play view: its graph, its scores
  // saved with it and exported in its PDN.
  await page.click('header a[data-view="play"]');
  await page.click('#btn-analyse-game');
  await page.waitForSelector('#view-analysis:not([hidden])');
  await page.waitForSelector('#an-graph svg polyline', { timeout: 60000 });
  assertEq(await page.$$eval('#an-moves .mv[data-ply]', (b) => b.length), game.moves.length, 'moves of the analysed game');
  const stored = await api('GET', `/api/games/${game.id}`);
  assert(stored.scores.some((x) => x), 'no score saved with the game');
  // The game is listed, and its PDN downloads, with the scores.
  await page.click('header a[data-view="games"]');
  await page.waitForSelector(`#gl-table tr[data-game="${game.id}"]`);
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.click(`#gl-table tr[data-game="${game.id}"] a.button`),
  ]);
  const pdn = fs.readFileSync(await download.path(), 'utf8');
  assert(pdn.includes('[White ') && pdn.includes('Tester'), `the PDN lacks the players:\n${pdn}`);
  assert(/\{[^}]*(\d\.\d\d|wins)[^}]*\}/.test(pdn), `the PDN lacks the scores:\n${pdn}`);
  await page.close();
});

test('Russian game: a man crowned mid-capture goes on as a king', async () => {
  const page = await newPage('#play');
  const id = await startGame(page, { variant: 'russian', fen: FENS.russian, colour: 'white', level: 'depth:1' });
  const { game, seen } = await playOut(page, id);
  assert(seen.multiCapture, 'no multi-step capture was entered');
  assert(seen.promotion, 'no promotion happened');
  await checkEnd(page, game);
  await page.close();
});

test('International game: moves by drag, promotion, to the end', async () => {
  const page = await newPage('#play');
  const id = await startGame(page, { variant: 'international', fen: FENS.international, colour: 'white', level: 'depth:1' });
  const { game, seen } = await playOut(page, id, { drag: true });
  assert(seen.promotion, 'no promotion happened');
  await checkEnd(page, game);
  await page.close();
});

test('Turkish game: orthogonal board, to the end', async () => {
  const page = await newPage('#play');
  const id = await startGame(page, { variant: 'turkish', fen: FENS.turkish, colour: 'white', level: 'depth:1' });
  const { game, seen } = await playOut(page, id);
  assert(seen.multiCapture, 'no multi-step capture was entered');
  await checkEnd(page, game);
  await page.close();
});

test('a capture entered square by square offers only the legal continuations; a choice where captures share squares', async () => {
  const page = await newPage('#analysis');
  await page.selectOption('#an-variant', 'english');
  const dests = async () => (await page.$$eval('#an-board .sq.dest', (c) => c.map((e) => e.dataset.square))).sort();
  // From 22 over 18 to 15, then on over 10 or over 11.
  let fen = 'W:W22:B18,10,11';
  await page.fill('#an-fen', fen);
  await page.click('#an-fen-form button');
  await page.waitForSelector(`${sq('#an-board', '22')}.movable`);
  let pos = await api('POST', '/api/position', { variant: 'english', fen });
  assert(pos.legal.length === 2 && pos.legal.every((m) => m.path.length === 3), `legal moves: ${JSON.stringify(pos.legal)}`);
  await page.click(sq('#an-board', '22'));
  assertEq(await dests(), [...new Set(pos.legal.map((m) => m.path[1]))].sort(), 'first steps offered');
  await page.click(sq('#an-board', pos.legal[0].path[1]));
  assertEq(await dests(), pos.legal.map((m) => m.path[2]).sort(), 'continuations offered');
  // The piece stands on the landing square, the man it jumped crossed out.
  assert(await page.$(`${sq('#an-board', pos.legal[0].path[1])} .piece.white`), 'the piece is not shown on its landing square');
  const common = pos.legal[0].captured.filter((c) => pos.legal[1].captured.includes(c));
  for (const c of common) assert(await page.$(`${sq('#an-board', c)} .piece.taken`), `the jumped man on ${c} is not marked`);
  const entry = pos.legal[1];
  await page.click(sq('#an-board', entry.path[2]));
  await page.waitForSelector('#an-moves .mv[data-ply="1"]');
  assertEq(await page.textContent('#an-moves .mv[data-ply="1"]'), entry.text, 'the move played');
  let after = await api('POST', '/api/position', { variant: 'english', fen, moves: [entry.text] });
  assertEq(sortPieces(await boardPieces(page, '#an-board')), sortPieces(after.pieces), 'position after the capture');
  // Two double jumps from 22 end on 6 (over 17 and 9, or over 18 and 10):
  // a click on 6 asks which.
  fen = 'W:W22:B17,9,18,10';
  await page.fill('#an-fen', fen);
  await page.click('#an-fen-form button');
  await page.waitForSelector(`${sq('#an-board', '22')}.movable`);
  pos = await api('POST', '/api/position', { variant: 'english', fen });
  await page.click(sq('#an-board', '22'));
  await page.click(sq('#an-board', '6'));
  await page.waitForSelector('#an-board .choice');
  const offered = (await page.$$eval('#an-board .choice button[data-move]', (b) => b.map((x) => x.dataset.move))).sort();
  assertEq(offered, pos.legal.map((m) => m.text).sort(), 'captures offered');
  const pick = pos.legal.find((m) => m.path[1] === '15');
  await page.click(`#an-board .choice button[data-move="${pick.text}"]`);
  await page.waitForSelector('#an-moves .mv[data-ply="1"]');
  after = await api('POST', '/api/position', { variant: 'english', fen, moves: [pick.text] });
  await page.waitForFunction((n) => document.querySelectorAll('#an-board .piece').length === n, after.pieces.length);
  assertEq(sortPieces(await boardPieces(page, '#an-board')), sortPieces(after.pieces), 'position after the chosen capture');
  await page.close();
});

const PDN = `[Event "test"]
[White "Alpha"]
[Black "Beta"]
[Result "*"]
[GameType "20"]

1. 32-28 18-23 2. 37-32 12-18 3. 41-37 7-12 4. 46-41 1-7 5. 34-29 23x34
6. 40x29 19-23 7. 28x19 14x34 8. 39x30 *
`;

test('PDN import and stepping through it with the keyboard', async () => {
  const page = await newPage('#analysis');
  await page.click('#an-pdn-box summary');
  await page.fill('#an-pdn', PDN);
  await page.click('#an-pdn-go');
  await page.waitForSelector('#an-moves .mv[data-ply="15"]');
  const moves = await page.$$eval('#an-moves .mv[data-ply]', (b) => b.map((x) => x.textContent));
  const parsed = await api('POST', '/api/pdn/parse', { pdn: PDN });
  assertEq(moves, parsed.games[0].moves, 'moves shown');
  assertEq(await page.inputValue('#an-variant'), 'international', 'variant from GameType');
  await page.click('#an-board'); // focus on the page, not a field
  await page.keyboard.press('Home');
  let at = 0;
  for (const ply of [1, 2, 3, 10, 14, 15]) {
    for (; at < ply; at++) await page.keyboard.press('ArrowRight');
    const want = await api('POST', '/api/position', { variant: 'international', moves: parsed.games[0].moves.slice(0, ply) });
    await page.waitForFunction((p) => document.querySelector('#an-moves .mv.current') && document.querySelector('#an-moves .mv.current').dataset.ply === String(p), ply);
    await page.waitForFunction((n) => document.querySelectorAll('#an-board .piece').length === n, want.pieces.length);
    assertEq(sortPieces(await boardPieces(page, '#an-board')), sortPieces(want.pieces), `position after ply ${ply}`);
  }
  await page.keyboard.press('ArrowLeft');
  await page.waitForSelector('#an-moves .mv.current[data-ply="14"]');
  await page.keyboard.press('Home');
  await page.waitForFunction(() => !document.querySelector('#an-moves .mv.current'));
  const start = await api('POST', '/api/position', { variant: 'international' });
  await page.waitForFunction((n) => document.querySelectorAll('#an-board .piece').length === n, start.pieces.length);
  // A PDN with an illegal move names it.
  await page.fill('#an-pdn', PDN.replace('37-32', '37-31'));
  await page.click('#an-pdn-go');
  await page.waitForFunction(() => document.querySelector('#an-pdn-error').textContent.includes('37-31'));
  await page.close();
});

test('analysis: multi-PV lines, evaluation graph, PDN export with scores', async () => {
  const page = await newPage('#analysis');
  await page.selectOption('#an-variant', 'english');
  // The English board is drawn (24 men) before a square is clicked.
  await page.waitForFunction(() => document.querySelectorAll('#an-board .piece').length === 24
    && document.querySelectorAll('#an-board .sq[data-square]').length === 32);
  await page.click('#an-board');
  const played = [];
  for (const m of ['11-15', '23-19', '8-11']) {
    const pos = await api('POST', '/api/position', { variant: 'english', moves: played });
    const entry = pos.legal.find((x) => x.text === m);
    assert(entry, `${m} is not legal after ${played.join(' ')}`);
    await enterMove(page, '#an-board', entry);
    played.push(m);
    // The page has taken the move (and drawn the position after it) before the next one.
    await page.waitForFunction((n) => document.querySelectorAll('#an-moves .mv[data-ply]').length === n, played.length);
    await page.waitForFunction((t) => document.querySelector('#an-tomove').textContent.startsWith(t), played.length % 2 ? 'White' : 'Black');
  }
  assertEq(await page.$$eval('#an-moves .mv[data-ply]', (b) => b.map((x) => x.textContent)), played, 'the moves entered');
  await page.selectOption('#an-multipv', '3');
  await page.click('#an-go');
  // The three lines are read in one go, as the page shows them at one instant.
  const lines = await (await page.waitForFunction(() => {
    const l = [...document.querySelectorAll('#an-lines li')];
    return l.length === 3 && l.map((x) => ({ score: x.querySelector('.l-score').textContent, pv: x.querySelector('.l-pv').textContent }));
  }, null, { timeout: 30000 })).jsonValue();
  const pos = await api('POST', '/api/position', { variant: 'english', moves: ['11-15', '23-19', '8-11'] });
  const firsts = lines.map((l) => l.pv.split(' ')[0]);
  assertEq(new Set(firsts).size, 3, 'three different first moves');
  for (const f of firsts) assert(pos.legal.some((m) => m.text === f), `PV starts with ${f}, not a legal move`);
  for (const l of lines) assert(/^[+-]?\d+\.\d\d$|wins/.test(l.score), `score "${l.score}"`);
  await page.click('#an-go'); // stop
  await page.waitForSelector('#an-go[aria-pressed="false"]');
  await page.selectOption('#an-graph-time', '100');
  await page.click('#an-graph-go');
  await page.waitForSelector('#an-graph svg polyline', { timeout: 60000 });
  const small = await page.$$eval('#an-moves .mv small', (s) => s.map((x) => x.textContent));
  assertEq(small.length, 3, 'a score after each move');
  // The graph is clickable: its left end is the start.
  const box = await page.locator('#an-graph svg').boundingBox();
  await page.mouse.click(box.x + 2, box.y + box.height / 2);
  await page.waitForFunction(() => !document.querySelector('#an-moves .mv.current'));
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#an-export')]);
  const pdn = fs.readFileSync(await download.path(), 'utf8');
  assert(pdn.includes('11-15') && pdn.includes('8-11'), `the export lacks the moves:\n${pdn}`);
  assert(/\{[^}]*\d\.\d\d[^}]*\}/.test(pdn), `the export lacks the scores:\n${pdn}`);
  await page.close();
});

test('board editor and FEN', async () => {
  const page = await newPage('#analysis');
  await page.selectOption('#an-variant', 'international');
  await page.click('#an-edit');
  await page.click('#an-edit-clear');
  await page.check('#an-palette input[value="white-king"]');
  await page.click(sq('#an-board', '46'));
  await page.check('#an-palette input[value="black"]');
  await page.click(sq('#an-board', '23'));
  await page.click('#an-edit-done');
  // The editor draws the two pieces already: wait for the position the page
  // loaded from them (the editor closed, the FEN field rewritten).
  await page.waitForFunction(() => document.querySelector('#an-editor').hidden
    && /K46/.test(document.querySelector('#an-fen').value));
  await page.waitForFunction(() => document.querySelectorAll('#an-board .piece').length === 2);
  const fen = await page.inputValue('#an-fen');
  const pos = await api('POST', '/api/position', { variant: 'international', fen });
  assertEq(sortPieces(pos.pieces), sortPieces([{ square: '46', colour: 'white', king: true }, { square: '23', colour: 'black', king: false }]), 'edited position');
  // The flying king's captures are the legal targets shown.
  await page.click(sq('#an-board', '46'));
  const dests = (await page.$$eval('#an-board .sq.dest', (c) => c.map((e) => e.dataset.square))).sort();
  assertEq(dests, [...new Set(pos.legal.map((m) => m.path[1]))].sort(), 'king capture targets');
  // A bad FEN is refused with the server's words.
  await page.fill('#an-fen', 'W:W99:B1');
  await page.click('#an-fen-form button');
  await page.waitForFunction(() => document.querySelector('#an-error').textContent.length > 0);
  await page.close();
});

test('rules: every diagram drawn with its move found among the legal moves', async () => {
  const rules = await api('GET', '/static/rules.json');
  const page = await newPage('#rules');
  const variants = [...new Set(rules.map((r) => r.variant))];
  assertEq(variants.length, 7, 'variants with rules');
  for (const v of variants) {
    await page.click(`#rules-tabs button[data-variant="${v}"]`);
    const n = rules.filter((r) => r.variant === v).reduce((a, r) => a + (r.diagrams || []).length, 0);
    await page.waitForFunction((k) => document.querySelectorAll('#rules-body .diagram[data-checked]').length === k, n);
    const bad = await page.$$eval('#rules-body .diagram[data-checked="not-found"] figcaption', (c) => c.map((x) => x.textContent));
    assertEq(bad, [], `${v}: diagrams whose move is not legal`);
    const marks = await page.$$eval('#rules-body .diagram', (ds) => ds.map((d) => [d.querySelectorAll('.mark-from').length, d.querySelectorAll('.mark-to').length]));
    for (const [f, t] of marks) assert(f === 1 && t === 1, `${v}: a diagram without its from- and to-square`);
  }
  await page.close();
});

test('a reload resumes the game; take back, draw offer and resign', async () => {
  const page = await newPage('#play');
  const id = await startGame(page, { variant: 'international', colour: 'white', level: 'depth:1' });
  let g = await waitHumanTurn(page, id);
  const entry = g.position.legal.find((m) => m.text === '32-28') || g.position.legal[0];
  await enterMove(page, '#play-board', entry);
  g = await waitHumanTurn(page, id);
  assertEq(g.moves.length, 2, 'moves after the engine replied');
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForSelector('#play-moves .mv[data-ply="2"]');
  assertEq(await currentGameId(page), String(id), 'game resumed');
  assertEq(sortPieces(await boardPieces(page, '#play-board')), sortPieces(g.position.pieces), 'resumed position');
  await page.click('#btn-takeback');
  await page.waitForFunction(() => !document.querySelector('#play-moves .mv[data-ply]'));
  g = await api('GET', `/api/games/${id}`);
  assertEq(g.moves.length, 0, 'moves after take back');
  await page.click('#btn-draw');
  await page.waitForFunction(() => /draw/i.test(document.querySelector('#game-message').textContent) && !/considers/.test(document.querySelector('#game-message').textContent));
  g = await api('GET', `/api/games/${id}`);
  if (g.status === 'playing') {
    await page.click('#btn-resign');
    await page.click('#btn-resign');
    await page.waitForSelector('#game-end:not([hidden])');
    g = await api('GET', `/api/games/${id}`);
    assertEq(g.reason, 'resignation', 'reason');
  }
  await checkEnd(page, g);
  await page.close();
});

test('the engine thinks live: score, depth and line shown', async () => {
  const page = await newPage('#play');
  const id = await startGame(page, { variant: 'international', colour: 'black', level: 'movetime_ms:1000' });
  await page.waitForFunction(() => /depth \d+/.test(document.querySelector('#think-depth').textContent) || /book/.test(document.querySelector('#think-depth').textContent), null, { timeout: 20000 });
  const g = await waitHumanTurn(page, id);
  assertEq(g.moves.length, 1, 'the engine moved first');
  if (screenshotPath) {
    // A few moves, until the engine has searched (not played from its
    // book), then the picture of a game in progress with a piece picked up.
    for (let i = 0; i < 10; i++) {
      const h = await waitHumanTurn(page, id);
      const searched = /depth/.test(await page.textContent('#think-depth'));
      if (i >= 4 && searched) break;
      const best = await bestMove(h.variant, h.position.fen);
      const e = h.position.legal.find((m) => m.text === best) || h.position.legal[0];
      await enterMove(page, '#play-board', e);
      await page.waitForFunction((n) => document.querySelectorAll('#play-moves .mv[data-ply]').length > n, h.moves.length);
    }
    const h = await waitHumanTurn(page, id);
    const pick = h.position.legal.find((m) => h.position.legal.filter((x) => x.from === m.from).length > 1) || h.position.legal[0];
    await page.click(sq('#play-board', pick.from));
    await page.waitForTimeout(300);
    await page.screenshot({ path: screenshotPath });
    log(`screenshot: ${screenshotPath}`);
  }
  await page.close();
});

test('a server killed mid-game loses nothing: the page resumes the game after a restart', async () => {
  if (givenBase) throw new Skip('needs a server of its own (not with --base)');
  // A server of its own on a fixed port, so that the page's origin (and
  // its localStorage) stays the same across the restart.
  const port = await new Promise((resolve) => {
    const l = net.createServer().listen(0, '127.0.0.1', () => { const p = l.address().port; l.close(() => resolve(p)); });
  });
  const db = path.join(tmp, 'killed.sqlite');
  let s = spawnServer(port, db);
  let at = await s.ready;
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  try {
    await page.goto(`${at}/#play`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.selectOption('#ng-variant', 'russian');
    await page.selectOption('#ng-level', 'depth:1');
    await page.click('#ng-start');
    await page.waitForFunction(() => localStorage.getItem('kondavo.game'));
    const id = await currentGameId(page);
    const g0 = await api('GET', `/api/games/${id}`, undefined, at);
    await enterMove(page, '#play-board', g0.position.legal[0]);
    let g = null;
    for (let i = 0; i < 100; i++) {
      g = await api('GET', `/api/games/${id}`, undefined, at);
      if (g.moves.length >= 2 && !g.engine_to_move) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert(g.moves.length >= 2, `moves before the kill: ${g.moves.length}`);
    s.proc.kill('SIGKILL');
    await new Promise((r) => s.proc.once('exit', r));
    s = spawnServer(port, db);
    at = await s.ready;
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForSelector(`#play-moves .mv[data-ply="${g.moves.length}"]`);
    assertEq(await page.$$eval('#play-moves .mv[data-ply]', (b) => b.map((x) => x.firstChild.textContent)), g.moves, 'moves after the restart');
    assertEq(sortPieces(await boardPieces(page, '#play-board')), sortPieces(g.position.pieces), 'position after the restart');
    await page.waitForSelector('#play-board .sq.movable');
  } finally {
    await page.close();
    s.proc.kill('SIGTERM');
  }
});

// Set-up positions, so that games end in a few moves (checked by the tests:
// each must bring a multi-step capture or a promotion where claimed).
const FENS = {
  english: 'W:W18,27,28,31:B14,6,20,12,8', // 18x9x2 at once: two jumps, crowned
  russian: 'W:Wb6,g3,h2:Bc7,f6,a7,h6', // b6:d8:h4, crowned on d8 and on as a king
  international: 'W:W7,42,43:B19,20,26', // 7-2 crowns
  turkish: 'W:Wd4,a2,h2:Bd5,d7,g6', // d4xd6xd8, crowned
};

// ---------------------------------------------------------------- runner

let passed = 0;
let failed = 0;
try {
  await startServer();
  await loadVariants();
  log(`server at ${base}`);
  await launch();
  for (const t of tests) {
    if (only && !t.name.includes(only)) continue;
    const t0 = Date.now();
    const errorsBefore = pageErrors.length;
    try {
      await t.fn();
      const errs = pageErrors.slice(errorsBefore);
      if (errs.length) throw new Error(`the page reported errors: ${errs.join(' | ')}`);
      passed++;
      log(`ok   ${t.name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    } catch (e) {
      if (e instanceof Skip) {
        log(`skip ${t.name}: ${e.message}`);
        continue;
      }
      failed++;
      log(`FAIL ${t.name}: ${e.message}`);
      for (const p of context.pages()) {
        const shot = path.join(tmp, `fail-${failed}-${p.url().split('#')[1] || 'page'}.png`);
        await p.screenshot({ path: shot }).catch(() => {});
        log(`     screenshot ${shot}`);
        await p.close().catch(() => {});
      }
    }
  }
} catch (e) {
  failed++;
  log(`FAIL setup: ${e.message}`);
} finally {
  if (context) await context.close().catch(() => {});
  if (server && server.exitCode === null) server.kill('SIGTERM');
}
if (failed && serverLog) console.log(`--- server output ---\n${serverLog.slice(-3000)}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
