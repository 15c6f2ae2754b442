// The games list (finished games per variant, viewable and exportable as
// PDN) and the leaderboard per rule set.

import { get } from './api.js';
import * as play from './play.js';

const $ = (id) => document.getElementById(id);
const PAGE = 50;

function cell(tr, text, cls) {
  const td = document.createElement('td');
  if (text instanceof Node) td.appendChild(text);
  else td.textContent = text;
  if (cls) td.className = cls;
  tr.appendChild(td);
  return td;
}

function fillVariants(sel, V, withAll) {
  for (const v of V.values()) {
    const o = document.createElement('option');
    o.value = v.name;
    o.textContent = v.title || v.name;
    sel.appendChild(o);
  }
  if (!withAll) sel.value = localStorage.getItem('kondavo.variant') || 'international';
}

export const games = (() => {
  let V = null;
  let ctx = null;
  let offset = 0;

  async function load(more = false) {
    if (!more) offset = 0;
    const q = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
    if ($('gl-variant').value) q.set('variant', $('gl-variant').value);
    if ($('gl-finished').value) q.set('finished', $('gl-finished').value);
    const body = $('gl-table').tBodies[0];
    let r;
    try {
      r = await get(`/api/games?${q}`);
    } catch (e) {
      $('gl-count').textContent = e.message;
      return;
    }
    if (!more) body.innerHTML = '';
    for (const g of r.games) {
      const tr = document.createElement('tr');
      tr.dataset.game = String(g.id);
      cell(tr, String(g.id));
      cell(tr, (V.get(g.variant) || {}).title || g.variant);
      cell(tr, g.white);
      cell(tr, g.black);
      cell(tr, g.status === 'playing' ? 'playing' : `${g.result}${g.reason ? ` (${g.reason})` : ''}`);
      cell(tr, String(Math.ceil(g.plies / 2)));
      cell(tr, (g.updated || g.created || '').replace('T', ' ').replace(/:\d\dZ?$/, ''));
      const actions = document.createElement('span');
      const view = document.createElement('button');
      view.type = 'button';
      view.textContent = g.status === 'playing' ? 'Resume' : 'View';
      view.addEventListener('click', async () => {
        if (g.status === 'playing') {
          await play.resume(g.id);
          ctx.go('play');
        } else {
          const full = await get(`/api/games/${g.id}`);
          ctx.go('analysis', { variant: full.variant, fen: full.start_fen, moves: full.moves, gameId: full.id });
        }
      });
      const pdn = document.createElement('a');
      pdn.className = 'button';
      pdn.href = `/api/games/${g.id}/pdn`;
      pdn.setAttribute('download', `kondavo-${g.id}.pdn`);
      pdn.textContent = 'PDN';
      actions.append(view, pdn);
      cell(tr, actions, 'actions-cell');
      body.appendChild(tr);
    }
    offset += r.games.length;
    $('gl-more').hidden = offset >= r.total;
    $('gl-count').textContent = r.total ? `${offset} of ${r.total}` : 'No games yet.';
  }

  return {
    init(variants, context) {
      V = variants;
      ctx = context;
      fillVariants($('gl-variant'), V, true);
      $('gl-variant').addEventListener('change', () => load());
      $('gl-finished').addEventListener('change', () => load());
      $('gl-more').addEventListener('click', () => load(true));
    },
    show() { load(); },
  };
})();

export const leaderboard = (() => {
  let V = null;

  async function load() {
    const variant = $('lb-variant').value;
    const body = $('lb-table').tBodies[0];
    let r;
    try {
      r = await get(`/api/leaderboard/${encodeURIComponent(variant)}`);
    } catch (e) {
      body.innerHTML = '';
      $('lb-empty').hidden = false;
      $('lb-empty').textContent = e.message;
      return;
    }
    body.innerHTML = '';
    r.players.forEach((p, i) => {
      const tr = document.createElement('tr');
      if (p.engine) tr.className = 'engine';
      cell(tr, String(i + 1));
      cell(tr, p.name);
      cell(tr, p.elo_text);
      cell(tr, String(p.games));
      cell(tr, String(p.wins));
      cell(tr, String(p.draws));
      cell(tr, String(p.losses));
      cell(tr, `${Math.round(p.score * 100)} %`);
      cell(tr, p.los === null || p.los === undefined ? '' : `${Math.round(p.los * 100)} %`);
      body.appendChild(tr);
    });
    $('lb-empty').hidden = r.players.length > 0;
    $('lb-empty').textContent = 'No rated games yet in these rules: finish a game and enter your name.';
  }

  return {
    init(variants) {
      V = variants;
      fillVariants($('lb-variant'), V, false);
      $('lb-variant').addEventListener('change', load);
    },
    show(variant) {
      if (variant && V.has(variant)) $('lb-variant').value = variant;
      load();
    },
  };
})();
