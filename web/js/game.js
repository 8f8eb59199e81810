// The game page: one game's board (the current position at once, then live), its players and
// clocks, the move list in SAN / Korean notation, stepping back and forth through the moves, and
// each move's raw answer, reasoning, retries and latency on click; with a referee, the evaluation
// graph under the board (click a ply to jump there), the judgments in the move list (?! ? ??) and
// the referee's best move in the shown position as an arrow.
'use strict';

(() => {
  const id = decodeURIComponent(location.pathname.slice(Arena.base.length).replace(/^\/game\/?/, '')) ||
    new URLSearchParams(location.search).get('id') || '';
  const state = { game: null, moves: [], ply: 0, follow: true, quality: [] };

  document.getElementById('pgn-link').href = `${Arena.base}/api/games/${encodeURIComponent(id)}.pgn`;

  function current() { return state.ply > 0 ? state.moves[state.ply - 1] : null; }

  function renderBoard() {
    const g = state.game;
    if (!g) return;
    const m = current();
    const fen = m ? m.fen : g.start_fen || g.fen;
    const svg = ArenaBoard.draw(document.getElementById('board'), {
      variant: g.variant, fen, lastMove: m ? m.uci : null, checkSquare: m ? m.check_square : null,
      arrow: m ? m.referee_best : null,
    });
    svg.id = 'board-svg';
    svg.dataset.ply = String(state.ply);
    document.body.dataset.ply = String(state.ply);
    document.body.dataset.plies = String(state.moves.length);
    document.getElementById('ply-label').textContent = `${state.ply} / ${state.moves.length}`;
    const names = Arena.sideNames(g.variant);
    const clocks = m ? m.clock_ms : g.clock_start_ms;
    const top = document.getElementById('player-top'), bottom = document.getElementById('player-bottom');
    top.querySelector('.name').textContent = `${names[1]}: ${g.second}`;
    bottom.querySelector('.name').textContent = `${names[0]}: ${g.first}`;
    top.className = 'player side-second';
    bottom.className = 'player side-first';
    top.querySelector('.clock').textContent = clocks ? Arena.clock(clocks[1]) : '';
    bottom.querySelector('.clock').textContent = clocks ? Arena.clock(clocks[0]) : '';
    for (const cell of document.querySelectorAll('#moves td.mv'))
      cell.classList.toggle('selected', Number(cell.dataset.ply) === state.ply);
    renderEval();
    renderDetail();
  }

  // The referee's score per ply from the first side's view, clamped to +-10 pawns; shown only
  // when the tournament has a referee.
  function renderEval() {
    const box = document.getElementById('eval-graph');
    box.hidden = !state.moves.some((m) => 'referee_cp' in m);
    if (box.hidden) return;
    ArenaPlot.evalGraph(box, {
      values: [null, ...state.quality.map((q) => q.white)], limit: 1000,
      marks: ['', ...state.quality.map((q) => q.glyph)], selected: state.ply,
      onPick: (ply) => { state.ply = ply; state.follow = ply === state.moves.length; renderBoard(); },
    });
  }

  function renderMoves() {
    const table = document.getElementById('moves');
    const rows = [];
    const secondFirst = state.game && / b /.test(` ${(state.game.start_fen || '').split(' ')[1] || ''} `);
    let row = null, number = 1;
    state.quality = ArenaQuality.judgeMoves(state.game, state.moves);
    state.moves.forEach((m, i) => {
      const side = m.side || ((i % 2 === 0) !== secondFirst ? 'first' : 'second');
      if (side === 'first' || !row) {
        row = Arena.el('tr', {}, Arena.el('td', { class: 'num', text: `${number}.` }));
        rows.push(row);
        if (side === 'second') row.append(Arena.el('td', { class: 'mv', text: '...' }));
      }
      const glyph = state.quality[i].glyph;
      const label = (m.human || m.uci) + glyph + (m.failure ? ' \u26A0' : '') + (m.substitute ? ' \u2020' : '');
      const cell = Arena.el('td', { class: glyph ? `mv judgment-${ArenaQuality.names[glyph]}` : 'mv',
        'data-ply': String(i + 1), text: label,
        onclick: () => { state.ply = i + 1; state.follow = state.ply === state.moves.length; renderBoard(); } });
      row.append(cell);
      if (side === 'second') { row = null; number++; }
    });
    table.replaceChildren(...rows);
  }

  function renderDetail() {
    const box = document.getElementById('move-detail');
    const m = current();
    if (!m) { box.replaceChildren(Arena.el('p', { class: 'muted', text: 'Start position.' })); return; }
    const rows = [
      ['move', `${m.ply}. ${m.human || ''} (${m.uci})`], ['agent', m.agent],
      ['latency', `${Arena.num(m.latency_s, 3)} s (queue ${Arena.num(m.queue_s, 3)} s, TTFT ${Arena.num(m.ttft_s, 3)} s)`],
      ['tokens', `prompt ${m.prompt_tokens ?? '-'} (cached ${m.cached_tokens ?? '-'}), completion ${m.completion_tokens ?? '-'}`],
      ['retries', String(m.retries ?? 0)],
    ];
    if ('referee_cp' in m) {
      const q = state.quality[state.ply - 1] || {};
      rows.push(['referee', `${ArenaQuality.scoreText(q.after ?? m.referee_cp)} for the mover` +
        (q.glyph ? ` (${ArenaQuality.names[q.glyph]}, from ${ArenaQuality.scoreText(q.before)})` : '') +
        (m.referee_best ? `; best reply ${m.referee_best}` : '')]);
    }
    if (m.substitute) rows.push(['substitute', m.substitute]);
    if (m.failure) rows.push(['failure', `${m.failure.kind}: ${m.failure.message}`]);
    const table = Arena.el('table', { class: 'kv' }, ...rows.map(([k, v]) =>
      Arena.el('tr', {}, Arena.el('th', { text: k }), Arena.el('td', { text: v }))));
    box.replaceChildren(table,
      Arena.el('h3', { text: 'Raw answer' }), Arena.el('pre', { class: 'raw', text: m.raw || '' }),
      ...(m.reasoning ? [Arena.el('h3', { text: 'Reasoning' }), Arena.el('pre', { class: 'raw', text: m.reasoning })] : []));
  }

  function renderMeta() {
    const g = state.game;
    document.getElementById('game-title').textContent = `${g.id}: ${g.first} vs ${g.second}`;
    document.getElementById('game-meta').textContent = `${g.variant}${g.opening ? ' \u00b7 ' + g.opening : ''}`;
    document.getElementById('result').textContent =
      g.result ? `Result ${g.result}${g.reason ? ' (' + g.reason + ')' : ''}` : 'in progress';
  }

  function step(delta) {
    state.ply = Math.max(0, Math.min(state.moves.length, state.ply + delta));
    state.follow = state.ply === state.moves.length;
    renderBoard();
  }
  document.getElementById('first').onclick = () => step(-1e9);
  document.getElementById('prev').onclick = () => step(-1);
  document.getElementById('next').onclick = () => step(1);
  document.getElementById('last').onclick = () => step(1e9);
  document.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowLeft') step(-1);
    else if (e.key === 'ArrowRight') step(1);
    else if (e.key === 'Home') step(-1e9);
    else if (e.key === 'End') step(1e9);
  });

  new ArenaFeed({ view: 'game', game: id }, {
    snapshot(snap) {
      if (!snap.game) {
        document.getElementById('game-title').textContent = `No game '${id}' (yet)`;
        return;
      }
      state.game = snap.game;
      state.moves = snap.game.moves || [];
      if (state.follow || state.ply > state.moves.length) state.ply = state.moves.length;
      renderMeta(); renderMoves(); renderBoard();
    },
    event(ev) {
      if (ev.game !== id) return;
      if (ev.type === 'game_start') {
        state.game = { id, variant: ev.variant, first: ev.first, second: ev.second, start_fen: ev.start_fen,
          fen: ev.start_fen, opening: ev.opening, clock_start_ms: ev.clock_ms, result: null };
        state.moves = []; state.ply = 0; state.follow = true;
      } else if (ev.type === 'move' && state.game) {
        state.moves.push(ev);
        if (state.follow) state.ply = state.moves.length;
      } else if (ev.type === 'game_end' && state.game) {
        state.game.result = ev.result; state.game.reason = ev.reason; state.game.termination = ev.termination;
      }
      if (state.game) { renderMeta(); renderMoves(); renderBoard(); }
    },
  });
})();
