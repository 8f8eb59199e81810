// The list page of `arena view`: one card per tournament (results folder) with its status,
// variants, agents, progress and standings, links to its overview and dashboard, and its games
// (each with its game page and PGN), polled from /api/tournaments every two seconds.
'use strict';

(() => {
  const open = new Set();      // slugs whose game list is shown
  const gameLists = new Map(); // slug -> the last /t/<slug>/api/games answer

  function setStatus(text) {
    const node = document.getElementById('feed-status');
    node.textContent = text;
    node.className = 'feed-' + text;
    document.body.dataset.feed = text;
  }

  function standingsTable(rows) {
    const head = Arena.el('tr', {}, ...['#', 'agent', 'games', '+', '=', '-', 'points', 'Elo', 'LOS']
      .map((h) => Arena.el('th', { text: h })));
    return Arena.el('table', { class: 'data standings' }, head, ...rows.map((r, i) => Arena.el('tr', {},
      Arena.el('td', { text: String(i + 1) }), Arena.el('td', { text: r.agent }),
      Arena.el('td', { text: String(r.games) }), Arena.el('td', { text: String(r.wins) }),
      Arena.el('td', { text: String(r.draws) }), Arena.el('td', { text: String(r.losses) }),
      Arena.el('td', { text: String(r.points) }),
      Arena.el('td', { text: r.elo === undefined || r.elo === null ? '-' : `${Arena.num(r.elo, 0)} \u00b1 ${Arena.num(r.elo_error, 0)}` }),
      Arena.el('td', { text: r.los === undefined || r.los === null ? '-' : `${Arena.num(100 * r.los, 0)}%` }))));
  }

  function gamesTable(t, games) {
    const head = Arena.el('tr', {}, ...['game', 'variant', 'players', 'result', 'plies', 'reason', '']
      .map((h) => Arena.el('th', { text: h })));
    return Arena.el('table', { class: 'data games' }, head, ...games.map((g) => Arena.el('tr', {},
      Arena.el('td', {}, Arena.el('a', { href: `${t.url}game/${encodeURIComponent(g.id)}`, text: g.id })),
      Arena.el('td', { text: g.variant }), Arena.el('td', { text: `${g.first} - ${g.second}` }),
      Arena.el('td', { text: g.in_flight ? 'playing' : (g.result || '*') }), Arena.el('td', { text: String(g.plies) }),
      Arena.el('td', { class: 'muted', text: g.reason || '' }),
      Arena.el('td', {}, Arena.el('a', { href: `${t.url}api/games/${encodeURIComponent(g.id)}.pgn`, download: `${t.slug}-${g.id}.pgn`, text: 'PGN' })))));
  }

  async function loadGames(t) {
    try {
      const r = await fetch(`${t.url}api/games`);
      if (r.ok) gameLists.set(t.slug, await r.json());
    } catch (e) { /* shown as not loaded; the next poll tries again */ }
  }

  // How long ago a Unix time was, in the largest whole unit (a run that died shows its age).
  function age(unix) {
    const s = Math.max(0, Math.round(Date.now() / 1000 - unix));
    if (s < 120) return `${s} s`;
    if (s < 7200) return `${Math.round(s / 60)} min`;
    return s < 172800 ? `${Math.round(s / 3600)} h` : `${Math.round(s / 86400)} days`;
  }

  function card(t) {
    const total = t.games_total || 0, done = t.games_done || 0;
    const info = [];
    if (t.variants) info.push(`variants: ${t.variants.join(', ')}`);
    if (t.agents) info.push(`agents: ${t.agents.join(', ')}`);
    if (t.models && t.models.length) info.push(`models: ${t.models.join(', ')}`);
    const details = Arena.el('details', { class: 'game-list' }, Arena.el('summary', { text: `Games (${done} of ${total})` }));
    if (open.has(t.slug)) details.open = true;
    const games = gameLists.get(t.slug);
    if (details.open) details.append(games ? gamesTable(t, games) : Arena.el('p', { class: 'muted', text: 'loading' }));
    details.addEventListener('toggle', () => {
      // Also fired for the `open` set just above, when the card is drawn again: nothing changed.
      if (details.open === open.has(t.slug)) return;
      if (details.open) open.add(t.slug); else open.delete(t.slug);
      if (details.open) loadGames(t).then(render);
    });
    return Arena.el('section', { class: 'tournament', 'data-slug': t.slug },
      Arena.el('h2', {}, Arena.el('a', { href: t.url, text: t.name }), ' ',
        Arena.el('span', { class: `status status-${t.status}`, text: t.status })),
      Arena.el('div', { class: 'muted', text: info.join(' \u00b7 ') }),
      Arena.el('div', { class: 'progress' }, Arena.el('div', { class: 'bar', style: `width: ${total ? (100 * done) / total : 0}%` })),
      Arena.el('div', { text: `${done} of ${total} games done, ${t.games_in_flight || 0} in flight, ${t.moves || 0} moves` +
        (t.status === 'running' && t.last_event_time ? ` \u00b7 last event ${age(t.last_event_time)} ago` : '') +
        (t.status === 'stopped' ? ' \u00b7 no run is writing it (killed?): arena run --resume on its folder continues it' : '') }),
      Arena.el('p', {}, Arena.el('a', { href: t.url, text: 'Overview' }), ' ',
        Arena.el('a', { href: `${t.url}dashboard`, text: 'Serving' })),
      (t.standings || []).length ? standingsTable(t.standings) : Arena.el('p', { class: 'muted', text: 'No standings yet.' }),
      details);
  }

  let last = [];
  function render() {
    const box = document.getElementById('tournaments');
    box.replaceChildren(...last.map(card));
    if (!last.length) box.append(Arena.el('p', { class: 'muted', text: 'No tournament.' }));
  }

  async function poll() {
    try {
      const r = await fetch('/api/tournaments');
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      last = await r.json();
      await Promise.all(last.filter((t) => open.has(t.slug)).map(loadGames));
      setStatus('live');
      render();
    } catch (e) {
      setStatus('reconnecting');
    }
    setTimeout(poll, 2000);
  }
  poll();
})();
