// Board drawing in SVG, no library: chess (8x8 squares) and janggi (9x10 intersections with the
// palace diagonals and the river band), from a FEN, with last-move and check highlights and an
// arrow for a suggested move (the referee's best move on the game page).
// Janggi pieces are octagons of three sizes with their Hanja, Cho blue and Han red.
'use strict';

const ArenaBoard = (() => {
  const SVG = 'http://www.w3.org/2000/svg';

  const isJanggi = (variant) => typeof variant === 'string' && variant.startsWith('janggi');

  // The piece letters of a FEN's placement field, top rank first: grid[row][file] = letter or ''.
  function parseFen(fen, files, ranks) {
    const placement = String(fen || '').split(' ')[0];
    const rows = placement.split('/');
    const grid = [];
    for (let r = 0; r < ranks; r++) {
      const row = [];
      const text = rows[r] || '';
      for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (c >= '0' && c <= '9') {
          let n = c.charCodeAt(0) - 48;
          while (i + 1 < text.length && text[i + 1] >= '0' && text[i + 1] <= '9') n = n * 10 + (text.charCodeAt(++i) - 48);
          for (let k = 0; k < n; k++) row.push('');
        } else if (/[A-Za-z]/.test(c)) {
          row.push(c);
        }
      }
      while (row.length < files) row.push('');
      grid.push(row.slice(0, files));
    }
    return grid;
  }

  // "e2" / "a10" -> {file, rank} (0-based, rank 0 = the first side's back rank), or null.
  function parseSquare(name) {
    const m = /^([a-i])(\d{1,2})$/.exec(name || '');
    if (!m) return null;
    return { file: m[1].charCodeAt(0) - 97, rank: parseInt(m[2], 10) - 1 };
  }

  // A UCI move's two squares, or null.
  function parseMove(uci) {
    const m = /^([a-i]\d{1,2})([a-i]\d{1,2})/.exec(uci || '');
    if (!m) return null;
    return { from: parseSquare(m[1]), to: parseSquare(m[2]) };
  }

  function el(name, attrs, text) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // An arrow for the move `uci` from point `a` to point `b` (square centres), over the pieces.
  function arrow(svg, a, b, S, uci) {
    const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy) || 1;
    const ux = dx / len, uy = dy / len, head = S * 0.4, half = S * 0.22;
    const tip = { x: b.x - ux * S * 0.1, y: b.y - uy * S * 0.1 };
    const base = { x: tip.x - ux * head, y: tip.y - uy * head };
    const g = el('g', { class: 'best-move', 'data-move': uci });
    g.appendChild(el('line', { x1: a.x, y1: a.y, x2: base.x, y2: base.y, 'stroke-width': S * 0.16 }));
    const corner = (side) => `${(base.x - side * uy * half).toFixed(1)},${(base.y + side * ux * half).toFixed(1)}`;
    g.appendChild(el('polygon', { points: `${tip.x.toFixed(1)},${tip.y.toFixed(1)} ${corner(1)} ${corner(-1)}` }));
    svg.appendChild(g);
  }

  // Filled chess glyphs for both sides; the fill tells the side.
  const CHESS_GLYPH = { k: '\u265A', q: '\u265B', r: '\u265C', b: '\u265D', n: '\u265E', p: '\u265F' };

  function drawChess(svg, opts) {
    const S = 40, files = 8, ranks = 8, M = 14;
    svg.setAttribute('viewBox', `0 0 ${files * S + M} ${ranks * S + M}`);
    const grid = parseFen(opts.fen, files, ranks);
    const move = parseMove(opts.lastMove);
    const check = parseSquare(opts.checkSquare);
    const at = (file, rank) => ({ x: M + file * S, y: (ranks - 1 - rank) * S });
    for (let rank = 0; rank < ranks; rank++)
      for (let file = 0; file < files; file++) {
        const { x, y } = at(file, rank);
        svg.appendChild(el('rect', { x, y, width: S, height: S, class: (file + rank) % 2 ? 'sq-light' : 'sq-dark' }));
      }
    if (move)
      for (const sq of [move.from, move.to]) {
        const { x, y } = at(sq.file, sq.rank);
        svg.appendChild(el('rect', { x, y, width: S, height: S, class: 'last-move' }));
      }
    if (check) {
      const { x, y } = at(check.file, check.rank);
      svg.appendChild(el('circle', { cx: x + S / 2, cy: y + S / 2, r: S * 0.48, class: 'check' }));
    }
    for (let row = 0; row < ranks; row++)
      for (let file = 0; file < files; file++) {
        const letter = grid[row][file];
        if (!letter) continue;
        const white = letter === letter.toUpperCase();
        const { x, y } = at(file, ranks - 1 - row);
        svg.appendChild(el('text', {
          x: x + S / 2, y: y + S * 0.78, 'text-anchor': 'middle', 'font-size': S * 0.86,
          class: white ? 'piece-white' : 'piece-black', 'data-piece': letter,
        }, CHESS_GLYPH[letter.toLowerCase()] || '?'));
      }
    const best = parseMove(opts.arrow);
    if (best) {
      const centre = (sq) => { const p = at(sq.file, sq.rank); return { x: p.x + S / 2, y: p.y + S / 2 }; };
      arrow(svg, centre(best.from), centre(best.to), S, opts.arrow);
    }
    for (let f = 0; f < files; f++)
      svg.appendChild(el('text', { x: M + f * S + S / 2, y: ranks * S + 11, class: 'coord', 'text-anchor': 'middle' },
        String.fromCharCode(97 + f)));
    for (let r = 0; r < ranks; r++)
      svg.appendChild(el('text', { x: 3, y: (ranks - 1 - r) * S + S / 2 + 4, class: 'coord' }, String(r + 1)));
  }

  // Janggi: Hanja per FEN letter (Cho uppercase, Han lowercase) and the octagon size class.
  const HANJA = {
    K: '\u695A', A: '\u58EB', B: '\u8C61', N: '\u99AC', R: '\u8ECA', C: '\u5305', P: '\u5352',
    k: '\u6F22', a: '\u58EB', b: '\u8C61', n: '\u99AC', r: '\u8ECA', c: '\u5305', p: '\u5175',
  };
  const JANGGI_SIZE = { k: 0.46, r: 0.38, c: 0.38, n: 0.38, b: 0.38, a: 0.30, p: 0.30 };

  function octagon(cx, cy, radius) {
    const pts = [];
    for (let i = 0; i < 8; i++) {
      const a = Math.PI / 8 + (i * Math.PI) / 4;
      pts.push(`${(cx + radius * Math.cos(a)).toFixed(1)},${(cy + radius * Math.sin(a)).toFixed(1)}`);
    }
    return pts.join(' ');
  }

  function drawJanggi(svg, opts) {
    const S = 40, files = 9, ranks = 10, M = 28;
    const W = (files - 1) * S + 2 * M, H = (ranks - 1) * S + 2 * M;
    svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    svg.appendChild(el('rect', { x: 0, y: 0, width: W, height: H, class: 'janggi-bg' }));
    const at = (file, rank) => ({ x: M + file * S, y: M + (ranks - 1 - rank) * S });
    // The river: a band between ranks 5 and 6 (the lines run through it, as on a janggi board).
    svg.appendChild(el('rect', { x: M, y: M + 4 * S, width: (files - 1) * S, height: S, class: 'river' }));
    for (let r = 0; r < ranks; r++) {
      const a = at(0, r), b = at(files - 1, r);
      svg.appendChild(el('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: 'grid' }));
    }
    for (let f = 0; f < files; f++) {
      const a = at(f, 0), b = at(f, ranks - 1);
      svg.appendChild(el('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: 'grid' }));
    }
    // Palaces: files d-f, ranks 1-3 and 8-10, with their diagonals.
    for (const [r0, r1] of [[0, 2], [7, 9]]) {
      for (const [p, q] of [[at(3, r0), at(5, r1)], [at(5, r0), at(3, r1)]])
        svg.appendChild(el('line', { x1: p.x, y1: p.y, x2: q.x, y2: q.y, class: 'grid palace' }));
    }
    const move = parseMove(opts.lastMove);
    if (move)
      for (const sq of [move.from, move.to]) {
        const { x, y } = at(sq.file, sq.rank);
        svg.appendChild(el('circle', { cx: x, cy: y, r: S * 0.49, class: 'last-move' }));
      }
    const check = parseSquare(opts.checkSquare);
    if (check) {
      const { x, y } = at(check.file, check.rank);
      svg.appendChild(el('circle', { cx: x, cy: y, r: S * 0.56, class: 'check' }));
    }
    const grid = parseFen(opts.fen, files, ranks);
    for (let row = 0; row < ranks; row++)
      for (let file = 0; file < files; file++) {
        const letter = grid[row][file];
        if (!letter) continue;
        const cho = letter === letter.toUpperCase();
        const { x, y } = at(file, ranks - 1 - row);
        const radius = S * (JANGGI_SIZE[letter.toLowerCase()] || 0.34);
        const g = el('g', { class: cho ? 'jp cho' : 'jp han', 'data-piece': letter });
        g.appendChild(el('polygon', { points: octagon(x, y, radius), class: 'jp-body' }));
        g.appendChild(el('text', { x, y: y + radius * 0.36, 'text-anchor': 'middle', 'font-size': radius * 1.05, class: 'jp-text' },
          HANJA[letter] || letter));
        svg.appendChild(g);
      }
    const best = parseMove(opts.arrow);
    if (best) arrow(svg, at(best.from.file, best.from.rank), at(best.to.file, best.to.rank), S, opts.arrow);
    for (let f = 0; f < files; f++)
      svg.appendChild(el('text', { x: M + f * S, y: H - 6, class: 'coord', 'text-anchor': 'middle' }, String.fromCharCode(97 + f)));
    for (let r = 0; r < ranks; r++)
      svg.appendChild(el('text', { x: 4, y: M + (ranks - 1 - r) * S + 4, class: 'coord' }, String(r + 1)));
  }

  // Draws the position into `container` (replacing what was there); returns the SVG element.
  // opts: {variant, fen, lastMove (UCI), checkSquare ("e1"), arrow (UCI), size (CSS width)}.
  function draw(container, opts) {
    const svg = el('svg', { xmlns: SVG, class: 'board ' + (isJanggi(opts.variant) ? 'board-janggi' : 'board-chess'),
      'data-fen': opts.fen || '', 'data-variant': opts.variant || '' });
    if (opts.size) svg.style.width = opts.size;
    if (isJanggi(opts.variant)) drawJanggi(svg, opts); else drawChess(svg, opts);
    container.replaceChildren(svg);
    return svg;
  }

  return { draw, parseFen, parseMove, parseSquare, isJanggi };
})();
