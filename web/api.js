// The server's HTTP API and the WebSocket searches (docs/web-api.md).

/** An answer of status 4xx/5xx, carrying the server's sentence. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function request(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, 'the server does not answer (is kondavo serve still running?)');
  }
  const type = res.headers.get('Content-Type') || '';
  const payload = type.includes('json') ? await res.json().catch(() => null) : await res.text();
  if (!res.ok) {
    const msg = payload && payload.error ? payload.error : `${res.status} ${res.statusText}`;
    throw new ApiError(res.status, msg);
  }
  return payload;
}

export const get = (path) => request('GET', path);
export const post = (path, body = {}) => request('POST', path, body);

/** Variants are fetched once; every view draws its boards from them. */
let variantsPromise = null;
export function variants() {
  if (!variantsPromise) {
    variantsPromise = get('/api/variants').then((r) => {
      const byName = new Map();
      for (const v of r.variants) byName.set(v.name, v);
      return byName;
    });
    variantsPromise.catch(() => { variantsPromise = null; });
  }
  return variantsPromise;
}

/** The position after `moves` from `fen`, with its legal moves; answers are cached by their request. */
const positionCache = new Map();
export function position(variant, fen, moves) {
  const key = JSON.stringify([variant, fen || null, moves || []]);
  if (positionCache.has(key)) return positionCache.get(key);
  const body = { variant, moves: moves || [] };
  if (fen) body.fen = fen;
  const p = post('/api/position', body);
  positionCache.set(key, p);
  p.catch(() => positionCache.delete(key));
  if (positionCache.size > 2000) positionCache.delete(positionCache.keys().next().value);
  return p;
}

/**
 * One WebSocket to the server, reopened when it drops. Each view that
 * searches owns one, so that an analysis never stops the engine's move in a
 * game (a socket runs one search at a time).
 */
export class Socket {
  constructor(onMessage, onOpen) {
    this.onMessage = onMessage;
    this.onOpen = onOpen;
    this.ws = null;
    this.queue = [];
    this.closed = false;
    this.retry = 500;
  }

  open() {
    if (this.ws && this.ws.readyState <= 1) return;
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/ws`;
    const ws = new WebSocket(url);
    this.ws = ws;
    ws.onopen = () => {
      this.retry = 500;
      connectionState(true);
      const pending = this.queue;
      this.queue = [];
      for (const m of pending) ws.send(JSON.stringify(m));
      if (this.onOpen) this.onOpen(pending);
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      this.onMessage(msg);
    };
    ws.onclose = () => {
      if (this.ws === ws) this.ws = null;
      if (!this.closed && this.wanted) {
        connectionState(false);
        setTimeout(() => this.open(), this.retry);
        this.retry = Math.min(this.retry * 2, 8000);
      }
    };
  }

  send(msg) {
    this.wanted = true;
    if (this.ws && this.ws.readyState === 1) {
      this.ws.send(JSON.stringify(msg));
    } else {
      // A closed socket has no search to stop, and only the latest request matters.
      this.queue = msg.type === 'stop' ? [] : [msg];
      if (msg.type !== 'stop') this.open();
    }
  }
}

/** Says in the header when the server cannot be reached (the sockets retry meanwhile). */
function connectionState(ok) {
  const el = document.getElementById('server-state');
  if (el) el.textContent = ok ? '' : 'Connection to the server lost: retrying…';
}

/** Saves text as a download named `name`. */
export function download(name, text) {
  const blob = new Blob([text], { type: 'text/plain;charset=utf-8' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
