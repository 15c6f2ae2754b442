// The rules of each variant (web/rules.json), with diagrams drawn by the
// board itself: the position comes from the server, the marked move is
// found among its legal moves (tests/serve_rules.rs checks every one).

import { get, position } from './api.js';
import { Board, squaresOf } from './board.js';

const $ = (id) => document.getElementById(id);

let V = null;
let entries = null;
let selected = null;

export function init(variants) {
  V = variants;
}

export async function show(variant) {
  if (!entries) {
    try {
      entries = await get('/static/rules.json');
    } catch (e) {
      $('rules-body').textContent = `The rules cannot be read: ${e.message}`;
      return;
    }
    const tabs = $('rules-tabs');
    const names = [...new Set(entries.map((e) => e.variant))];
    for (const name of names) {
      const b = document.createElement('button');
      b.type = 'button';
      b.setAttribute('role', 'tab');
      b.dataset.variant = name;
      b.textContent = (V.get(name) || {}).title || name;
      b.addEventListener('click', () => select(name));
      tabs.appendChild(b);
    }
    tabs.addEventListener('keydown', (e) => {
      if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
      const i = names.indexOf(selected);
      const j = (i + (e.key === 'ArrowRight' ? 1 : names.length - 1)) % names.length;
      select(names[j]);
      tabs.querySelector(`[data-variant="${names[j]}"]`).focus();
      e.stopPropagation();
      e.preventDefault();
    });
  }
  const want = variant || selected || localStorage.getItem('kondavo.variant') || entries[0].variant;
  select(entries.some((e) => e.variant === want) ? want : entries[0].variant);
}

export function key() {
  return false;
}

function select(name) {
  selected = name;
  for (const b of $('rules-tabs').children) b.setAttribute('aria-selected', String(b.dataset.variant === name));
  const body = $('rules-body');
  body.innerHTML = '';
  for (const entry of entries.filter((e) => e.variant === name)) {
    const h = document.createElement('h2');
    h.textContent = entry.title;
    body.appendChild(h);
    for (const para of entry.text) {
      const p = document.createElement('p');
      p.textContent = para;
      body.appendChild(p);
    }
    if (entry.diagrams && entry.diagrams.length) {
      const legend = document.createElement('div');
      legend.className = 'legend';
      legend.innerHTML = '<span class="lg-from">from-square</span><span class="lg-to">to-square</span><span class="lg-cap">taken piece</span><span class="lg-king">king (crown)</span>';
      body.appendChild(legend);
      const grid = document.createElement('div');
      grid.className = 'diagrams';
      body.appendChild(grid);
      for (const d of entry.diagrams) grid.appendChild(diagram(entry.variant, d));
    }
  }
}

function diagram(variant, d) {
  const wrap = document.createElement('div');
  wrap.className = 'diagram';
  const fig = document.createElement('figure');
  const el = document.createElement('div');
  const cap = document.createElement('figcaption');
  fig.append(el, cap);
  wrap.appendChild(fig);
  const board = new Board(el);
  board.setVariant(V.get(variant));
  const code = document.createElement('code');
  code.textContent = d.move;
  cap.append(code, ' ', d.caption || '');
  position(variant, d.fen, []).then((p) => {
    board.setPosition(p.pieces, [], null);
    const sq = squaresOf(d.move);
    const want = new Set(d.captured);
    const entry = p.legal.find((m) => m.text === d.move && m.captured.length === want.size && m.captured.every((c) => want.has(c)))
      || p.legal.find((m) => m.path[0] === sq[0] && m.path[m.path.length - 1] === sq[sq.length - 1]
        && m.captured.length === want.size && m.captured.every((c) => want.has(c)));
    const path = entry ? entry.path : sq;
    board.setMarks({ from: path[0], to: path[path.length - 1], captured: d.captured, path });
    wrap.dataset.checked = entry ? 'legal' : 'not-found';
  }).catch((e) => {
    cap.textContent = `${d.move}: ${e.message}`;
  });
  return wrap;
}
