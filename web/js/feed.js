// The live feed: one WebSocket to /ws (docs/protocol.md). It subscribes to a view, hands the
// snapshot and then each event to the page, checks that event sequence numbers follow each
// other (after a gap it ignores events and asks for a new snapshot), and reconnects after a drop.
'use strict';

class ArenaFeed {
  // subscription: {view: 'overview'|'game'|'dashboard', game?: id};
  // handlers: {snapshot(snap), event(ev), status(text)}.
  constructor(subscription, handlers) {
    this.subscription = subscription;
    this.handlers = handlers;
    this.lastSeq = null;
    this.gaps = 0;
    this.retry = 500;
    this.connect();
  }

  connect() {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const ws = new WebSocket(`${scheme}://${location.host}${Arena.base}/ws`);
    this.ws = ws;
    this.lastSeq = null;
    this.status('connecting');
    ws.onopen = () => {
      this.retry = 500;
      this.send({ type: 'subscribe', ...this.subscription });
    };
    ws.onmessage = (m) => this.receive(m.data);
    ws.onclose = () => {
      this.status('reconnecting');
      setTimeout(() => this.connect(), this.retry);
      this.retry = Math.min(this.retry * 2, 10000);
    };
  }

  send(obj) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(obj));
  }

  receive(text) {
    let msg;
    try { msg = JSON.parse(text); } catch (e) { return; }
    if (msg.type === 'snapshot') {
      const snap = msg.snapshot || {};
      this.lastSeq = msg.seq;
      // The first snapshot after connecting is the overview's; a page waits for its own view.
      if (snap.view !== this.subscription.view) return;
      this.status('live');
      this.handlers.snapshot(snap);
    } else if (msg.type === 'event') {
      if (this.lastSeq === null) return;  // waiting for a snapshot
      if (msg.seq !== this.lastSeq + 1) {
        this.gaps++;
        this.lastSeq = null;
        this.status('resync');
        this.send({ type: 'resync' });
        return;
      }
      this.lastSeq = msg.seq;
      this.handlers.event(msg.event);
    } else if (msg.type === 'error') {
      console.warn('arena feed:', msg.message);
    }
  }

  status(text) {
    document.body.dataset.feed = text;
    const node = document.getElementById('feed-status');
    if (node) { node.textContent = text; node.className = 'feed-' + text; }
    if (this.handlers.status) this.handlers.status(text);
  }
}

// Small helpers shared by the pages.
const Arena = {
  // The path prefix of the tournament's pages: '' under `arena run`, '/t/<name>' under `arena view`
  // (which serves several tournaments, each below its own prefix, and their list at /).
  base: (location.pathname.match(/^\/t\/[^/]+/) || [''])[0],
  el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class') node.className = v;
      else if (k === 'text') node.textContent = v;
      else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    for (const c of children) if (c !== null && c !== undefined) node.append(c);
    return node;
  },
  clock(ms) {
    if (ms === null || ms === undefined) return '';
    const s = Math.max(0, Math.round(ms / 1000));
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
  },
  num(v, digits = 2) {
    return v === null || v === undefined || Number.isNaN(v) ? '-' : Number(v).toFixed(digits);
  },
  sideNames(variant) {
    return ArenaBoard.isJanggi(variant) ? ['Cho', 'Han'] : ['White', 'Black'];
  },
};

// Under `arena view` the page's own links (nav, /metrics) get the tournament's prefix; the brand
// and a "Tournaments" link lead to the list of tournaments at /.
if (Arena.base) {
  for (const a of document.querySelectorAll('a[href^="/"]:not(.brand)')) a.setAttribute('href', Arena.base + a.getAttribute('href'));
  document.title += ` \u00b7 ${decodeURIComponent(Arena.base.slice(3))}`;
  const nav = document.querySelector('header nav');
  if (nav) nav.prepend(Arena.el('a', { href: '/', text: 'Tournaments' }), ' ');
}
