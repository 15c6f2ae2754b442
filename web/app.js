// The page: five views behind the header's links (#play, #analysis,
// #games, #leaderboard, #rules), each a module with init/show/hide/key.

import { variants } from './api.js';
import * as play from './play.js';
import * as analysis from './analysis.js';
import * as lists from './lists.js';
import * as rules from './rules.js';

const views = {
  play,
  analysis,
  games: lists.games,
  leaderboard: lists.leaderboard,
  rules,
};

let current = null;

/** A short message at the bottom of the page. */
export function toast(text, ms = 3500) {
  const el = document.getElementById('toast');
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { el.hidden = true; }, ms);
}

/** Switches to a view; `arg` is passed to its show(). */
export function go(name, arg) {
  if (!views[name]) name = 'play';
  const target = `#${name}`;
  if (location.hash !== target) history.replaceState(null, '', target);
  if (current && current !== name && views[current].hide) views[current].hide();
  current = name;
  for (const [n] of Object.entries(views)) {
    document.getElementById(`view-${n}`).hidden = n !== name;
  }
  for (const a of document.querySelectorAll('header nav a')) {
    a.classList.toggle('active', a.dataset.view === name);
    if (a.dataset.view === name) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  views[name].show(arg);
}

function fromHash() {
  const name = location.hash.replace(/^#/, '') || 'play';
  go(name);
}

function typing(target) {
  return target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT' || target.isContentEditable);
}

async function main() {
  const ctx = { go, toast };
  let vs;
  try {
    vs = await variants();
  } catch (e) {
    document.getElementById('server-state').textContent = `Cannot load the variants: ${e.message}`;
    return;
  }
  for (const v of Object.values(views)) v.init(vs, ctx);
  window.addEventListener('hashchange', fromHash);
  document.addEventListener('keydown', (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || typing(e.target)) return;
    const v = views[current];
    if (v && v.key && v.key(e)) e.preventDefault();
  });
  fromHash();
  document.body.dataset.ready = 'true';
}

main();
