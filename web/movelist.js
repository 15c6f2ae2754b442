// The move list: moves in the variant's notation, numbered by pairs from
// the side that moved first, the viewed ply highlighted, click to go there.

/** A score as short as the move list needs: `+0.35`, `+#7` (White wins in 7 plies), `-#4`. */
export function shortScore(score) {
  if (!score) return '';
  if (score.win_in !== null && score.win_in !== undefined) return `${score.win_in > 0 ? '+' : '-'}#${Math.abs(score.win_in)}`;
  return score.text;
}

export class MoveList {
  /** `onGo(ply)` is called with the number of moves to show (0: the start). */
  constructor(el, onGo) {
    this.el = el;
    this.onGo = onGo;
    el.classList.add('movelist');
    el.setAttribute('role', 'list');
  }

  /**
   * `startColour`: the side to move in the start position; `firstMover`:
   * the variant's first side (Black in English), whose moves open each
   * numbered pair; `scores[i]`: optional text shown after move i.
   */
  set(moves, ply, startColour, firstMover = 'white', scores = []) {
    const el = this.el;
    el.innerHTML = '';
    if (!moves.length) {
      const empty = document.createElement('div');
      empty.className = 'empty';
      empty.textContent = 'No moves yet';
      el.appendChild(empty);
      return;
    }
    let number = 1;
    let row = null;
    // Each column keeps one colour: a game set up with the second side to
    // move opens with "1. …".
    const offset = startColour === firstMover ? 0 : 1;
    for (let i = 0; i < moves.length; i++) {
      const side = (i + offset) % 2; // 0: the first mover's column
      if (!row || side === 0) {
        row = document.createElement('div');
        row.className = 'mrow';
        row.setAttribute('role', 'listitem');
        const n = document.createElement('span');
        n.className = 'mnum';
        n.textContent = `${number}.`;
        row.appendChild(n);
        number++;
        el.appendChild(row);
        if (side === 1) {
          const blank = document.createElement('span');
          blank.className = 'mv blank';
          blank.textContent = '…';
          row.appendChild(blank);
        }
      }
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'mv';
      b.dataset.ply = String(i + 1);
      b.textContent = moves[i];
      if (scores[i]) {
        const s = document.createElement('small');
        s.textContent = scores[i];
        b.appendChild(s);
      }
      if (i + 1 === ply) b.classList.add('current');
      b.addEventListener('click', () => this.onGo(i + 1));
      row.appendChild(b);
    }
    const cur = el.querySelector('.current');
    if (cur) {
      const top = cur.offsetTop - el.offsetTop;
      if (top < el.scrollTop || top > el.scrollTop + el.clientHeight - cur.offsetHeight) {
        el.scrollTop = Math.max(0, top - el.clientHeight / 2);
      }
    } else if (ply === 0) {
      el.scrollTop = 0;
    }
  }
}
