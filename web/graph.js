// The evaluation graph of a whole game (POST /api/analyse-game): White's
// score per ply, squashed so that a few men and a won game both fit.

const SVG_NS = 'http://www.w3.org/2000/svg';
const W = 600;
const H = 140;

/** Maps a score object to -1..1 (White winning upwards). */
export function squash(score) {
  if (!score) return null;
  if (score.win_in !== null && score.win_in !== undefined) return score.win_in > 0 ? 1 : -1;
  // 2 men ahead reads as about three quarters of the height.
  return Math.tanh(score.cp / 200);
}

export class EvalGraph {
  /** `onGo(ply)` when the graph is clicked. */
  constructor(el, onGo) {
    this.el = el;
    this.onGo = onGo;
    this.plies = [];
    this.current = 0;
    el.classList.add('graph');
  }

  set(plies, current) {
    this.plies = plies || [];
    this.current = current;
    this.draw();
  }

  setCurrent(ply) {
    this.current = ply;
    this.draw();
  }

  draw() {
    const el = this.el;
    el.innerHTML = '';
    const n = this.plies.length;
    if (!n) {
      el.hidden = true;
      return;
    }
    el.hidden = false;
    const svg = document.createElementNS(SVG_NS, 'svg');
    svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    svg.setAttribute('preserveAspectRatio', 'none');
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', 'Evaluation graph, White\'s view');
    const x = (i) => (n === 1 ? W / 2 : (i * W) / (n - 1));
    const y = (v) => H / 2 - (v * (H / 2 - 4));
    let last = 0;
    const pts = this.plies.map((p, i) => {
      const v = squash(p.score);
      if (v !== null) last = v;
      return [x(i), y(v === null ? last : v)];
    });
    const area = document.createElementNS(SVG_NS, 'path');
    area.setAttribute('d', `M0,${H / 2} ` + pts.map(([a, b]) => `L${a.toFixed(1)},${b.toFixed(1)}`).join(' ') + ` L${W},${H / 2} Z`);
    area.setAttribute('class', 'g-area');
    svg.appendChild(area);
    const mid = document.createElementNS(SVG_NS, 'line');
    mid.setAttribute('x1', 0); mid.setAttribute('x2', W);
    mid.setAttribute('y1', H / 2); mid.setAttribute('y2', H / 2);
    mid.setAttribute('class', 'g-mid');
    svg.appendChild(mid);
    const line = document.createElementNS(SVG_NS, 'polyline');
    line.setAttribute('points', pts.map(([a, b]) => `${a.toFixed(1)},${b.toFixed(1)}`).join(' '));
    line.setAttribute('class', 'g-line');
    svg.appendChild(line);
    if (this.current >= 0 && this.current < n) {
      const cur = document.createElementNS(SVG_NS, 'line');
      cur.setAttribute('x1', x(this.current)); cur.setAttribute('x2', x(this.current));
      cur.setAttribute('y1', 0); cur.setAttribute('y2', H);
      cur.setAttribute('class', 'g-cur');
      svg.appendChild(cur);
    }
    svg.addEventListener('click', (e) => {
      const r = svg.getBoundingClientRect();
      const i = Math.round(((e.clientX - r.left) / r.width) * (n - 1));
      this.onGo(Math.max(0, Math.min(n - 1, i)));
    });
    const title = document.createElementNS(SVG_NS, 'title');
    title.textContent = 'Evaluation from White\'s side; click to go to a move';
    svg.appendChild(title);
    el.appendChild(svg);
  }
}
