// The overview page: every game in flight as a small live board, the standings table, the
// tournament's progress and the most recent results, kept current from the live feed.
'use strict';

(() => {
  const state = { tournament: {}, games: new Map(), finished: [], standings: [] };

  function renderProgress() {
    const t = state.tournament || {};
    const total = t.games_total || 0, done = t.games_done || 0;
    document.getElementById('progress-bar').style.width = total ? `${(100 * done) / total}%` : '0%';
    document.getElementById('progress-text').textContent =
      `${done} of ${total} games done, ${state.games.size} in flight, ${t.moves || 0} moves` +
      (t.finished ? (t.interrupted ? ' (interrupted)' : ' (finished)') : '');
    const info = [];
    if (t.variants) info.push(`variants: ${t.variants.join(', ')}`);
    if (t.agents) info.push(`agents: ${t.agents.join(', ')}`);
    if (t.models && t.models.length) info.push(`models: ${t.models.join(', ')}`);
    document.getElementById('tournament-info').textContent = info.join(' \u00b7 ');
  }

  function card(g) {
    const names = Arena.sideNames(g.variant);
    const boardBox = Arena.el('div', { class: 'mini-board' });
    const node = Arena.el('a', { class: 'game-card', href: `${Arena.base}/game/${encodeURIComponent(g.id)}`, 'data-game': g.id },
      Arena.el('div', { class: 'card-title' }, Arena.el('b', { text: g.id }), ` ${g.variant}`),
      boardBox,
      Arena.el('div', { class: 'card-players' },
        Arena.el('span', { class: 'side-first', text: `${names[0]}: ${g.first}` }),
        Arena.el('span', { class: 'side-second', text: `${names[1]}: ${g.second}` })),
      Arena.el('div', { class: 'card-status', text: `ply ${g.plies}` + (g.last_human ? ` \u00b7 ${g.last_human}` : '') }));
    ArenaBoard.draw(boardBox, { variant: g.variant, fen: g.fen, lastMove: g.last_move, checkSquare: g.check_square });
    return node;
  }

  function renderGames() {
    const box = document.getElementById('games');
    box.replaceChildren(...[...state.games.values()].map(card));
    if (!state.games.size) box.append(Arena.el('p', { class: 'muted', text: 'No game in flight.' }));
  }

  function renderStandings() {
    const table = document.getElementById('standings');
    const rated = state.standings.some((r) => r.rating !== undefined && r.rating !== null);
    // Move quality, when the tournament has a referee (its rows carry `acpl`).
    const quality = state.standings.some((r) => 'acpl' in r);
    const head = Arena.el('tr', {}, ...['#', 'agent', 'games', '+', '=', '-', 'points', 'Elo', 'LOS',
      ...(rated ? ['rating'] : []), ...(quality ? ['ACPL', 'accuracy'] : [])].map((h) => Arena.el('th', { text: h })));
    // The pool rating over every game (Ordo's model): ">R" is a floor, "<R" a ceiling.
    const rating = (r) => (r.rating === undefined || r.rating === null ? '-'
      : `${r.rating_bound || ''}${Arena.num(r.rating, 0)}` +
        (r.rating_error === undefined || r.rating_error === null ? '' : ` \u00b1 ${Arena.num(r.rating_error, 0)}`));
    const rows = state.standings.map((r, i) => Arena.el('tr', {},
      Arena.el('td', { text: String(i + 1) }), Arena.el('td', { text: r.agent }),
      Arena.el('td', { text: String(r.games) }), Arena.el('td', { text: String(r.wins) }),
      Arena.el('td', { text: String(r.draws) }), Arena.el('td', { text: String(r.losses) }),
      Arena.el('td', { text: String(r.points) }),
      Arena.el('td', { text: r.elo === undefined ? '-' : `${Arena.num(r.elo, 0)} \u00b1 ${Arena.num(r.elo_error, 0)}` }),
      Arena.el('td', { text: r.los === undefined || r.los === null ? '-' : `${Arena.num(100 * r.los, 0)}%` }),
      ...(rated ? [Arena.el('td', { class: 'rating', text: rating(r) })] : []),
      ...(quality ? [Arena.el('td', { class: 'acpl', text: Arena.num(r.acpl, 1) }),
        Arena.el('td', { class: 'accuracy', text: r.accuracy === null || r.accuracy === undefined ? '-' : `${Arena.num(r.accuracy, 1)}%` })] : [])));
    table.replaceChildren(head, ...rows);
  }

  function renderResults() {
    const table = document.getElementById('results');
    const rows = state.finished.slice(-15).reverse().map((g) => Arena.el('tr', {},
      Arena.el('td', {}, Arena.el('a', { href: `${Arena.base}/game/${encodeURIComponent(g.id)}`, text: g.id })),
      Arena.el('td', { text: g.variant }), Arena.el('td', { text: `${g.first} - ${g.second}` }),
      Arena.el('td', { text: g.result || '*' }), Arena.el('td', { class: 'muted', text: g.reason || '' })));
    table.replaceChildren(...rows);
  }

  function renderAll() { renderProgress(); renderGames(); renderStandings(); renderResults(); }

  new ArenaFeed({ view: 'overview' }, {
    snapshot(snap) {
      state.tournament = snap.tournament || {};
      state.games = new Map((snap.games || []).map((g) => [g.id, g]));
      state.finished = snap.finished || [];
      state.standings = snap.standings || [];
      renderAll();
    },
    event(ev) {
      if (ev.type === 'tournament_start') {
        Object.assign(state.tournament, ev);
      } else if (ev.type === 'game_start') {
        state.games.set(ev.game, { id: ev.game, variant: ev.variant, first: ev.first, second: ev.second,
          fen: ev.start_fen, start_fen: ev.start_fen, plies: 0, last_move: null, check_square: null });
        state.tournament.games_in_flight = state.games.size;
        renderGames();
      } else if (ev.type === 'move') {
        const g = state.games.get(ev.game);
        if (!g) return;
        Object.assign(g, { fen: ev.fen, plies: ev.ply, last_move: ev.uci, last_human: ev.human, check_square: ev.check_square });
        state.tournament.moves = (state.tournament.moves || 0) + 1;
        const old = document.querySelector(`.game-card[data-game="${CSS.escape(ev.game)}"]`);
        if (old) old.replaceWith(card(g)); else renderGames();
      } else if (ev.type === 'game_end') {
        const g = state.games.get(ev.game);
        state.games.delete(ev.game);
        if (g) state.finished.push({ ...g, result: ev.result, reason: ev.reason });
        state.tournament.games_done = (state.tournament.games_done || 0) + 1;
        renderGames(); renderResults();
      } else if (ev.type === 'standings') {
        state.standings = ev.rows || [];
        renderStandings();
      } else if (ev.type === 'tournament_end') {
        state.tournament.finished = true;
        state.tournament.interrupted = ev.interrupted;
      }
      renderProgress();
    },
  });
})();
