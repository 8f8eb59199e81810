// Plots in SVG, no library: time series (a few named series over a time window, with y-axis
// bounds, a time axis in minutes ago, a legend and the latest values), and a game's evaluation
// graph (the referee's score per ply, clickable).
'use strict';

const ArenaPlot = (() => {
  const SVG = 'http://www.w3.org/2000/svg';
  const el = (name, attrs, text) => {
    const n = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) n.setAttribute(k, v);
    if (text !== undefined) n.textContent = text;
    return n;
  };
  const missing = (v) => v === null || v === undefined || !isFinite(v);
  const plain = (v) => {
    if (missing(v)) return '-';
    const a = Math.abs(v);
    if (a >= 10000) return `${(v / 1000).toFixed(0)}k`;
    if (a >= 1000) return `${(v / 1000).toFixed(1)}k`;
    if (a >= 10 || Number.isInteger(v)) return v.toFixed(0);
    return v.toFixed(a >= 1 ? 1 : 2);
  };
  // Seconds in human units: 850 us, 60 ms, 1.2 s.
  const seconds = (v) => {
    if (missing(v)) return '-';
    const a = Math.abs(v);
    if (a === 0) return '0';
    if (a < 1e-3) return `${(v * 1e6).toFixed(0)} us`;
    if (a < 1) return `${(v * 1e3).toFixed(a < 0.01 ? 1 : 0)} ms`;
    return `${v.toFixed(a < 10 ? 2 : 1)} s`;
  };
  // A fraction 0..1 as a percentage.
  const percent = (v) => (missing(v) ? '-' : `${(100 * v).toFixed(0)}%`);

  // Draws into `container`: opts {title, unit, series: [{name, color, points: [[t, v|null]...]}],
  // now (Unix s), window (s), yMin (default 0), yMax (optional), format (value -> text: the axis
  // and the legend; default a plain number)}.
  function draw(container, opts) {
    const fmt = opts.format || plain;
    const W = 360, H = 150, L = 44, R = 8, T = 22, B = 20;
    const now = opts.now, span = opts.window || 3600;
    const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'plot' });
    svg.appendChild(el('text', { x: L, y: 14, class: 'plot-title' }, opts.title + (opts.unit ? ` (${opts.unit})` : '')));
    let lo = opts.yMin ?? 0, hi = opts.yMax ?? null, max = -Infinity;
    for (const s of opts.series) for (const [t, v] of s.points) if (v !== null && t >= now - span) max = Math.max(max, v);
    if (hi === null) hi = max > lo ? max * 1.1 : lo + 1;
    const x = (t) => L + ((t - (now - span)) / span) * (W - L - R);
    const y = (v) => T + (1 - (v - lo) / (hi - lo)) * (H - T - B);
    svg.appendChild(el('rect', { x: L, y: T, width: W - L - R, height: H - T - B, class: 'plot-area' }));
    for (const v of [lo, (lo + hi) / 2, hi]) {
      svg.appendChild(el('line', { x1: L, x2: W - R, y1: y(v), y2: y(v), class: 'plot-grid' }));
      svg.appendChild(el('text', { x: L - 4, y: y(v) + 3, 'text-anchor': 'end', class: 'plot-axis' }, fmt(v)));
    }
    // Time axis: seconds ago for a short window, minutes ago for a long one.
    const unit = span <= 600 ? 1 : 60, suffix = unit === 1 ? 's' : 'm';
    for (let i = 0; i <= 4; i++) {
      const t = now - span + (i * span) / 4;
      svg.appendChild(el('text', { x: x(t), y: H - 6, 'text-anchor': 'middle', class: 'plot-axis' },
        i === 4 ? 'now' : `-${Math.round((span - (i * span) / 4) / unit)}${suffix}`));
    }
    let lx = W - R;
    opts.series.slice().reverse().forEach((s) => {
      let d = '', pen = false;
      for (const [t, v] of s.points) {
        if (t < now - span || v === null || v === undefined) { pen = false; continue; }
        d += `${pen ? 'L' : 'M'}${x(t).toFixed(1)},${y(Math.min(v, hi)).toFixed(1)}`;
        pen = true;
      }
      svg.appendChild(el('path', { d, class: 'plot-line', stroke: s.color }));
      const last = [...s.points].reverse().find((p) => p[1] !== null && p[1] !== undefined);
      const label = `${s.name} ${last ? fmt(last[1]) : '-'}`;
      const text = el('text', { x: lx, y: 14, 'text-anchor': 'end', class: 'plot-legend', fill: s.color }, label);
      svg.appendChild(text);
      lx -= label.length * 5.6 + 10;
    });
    container.replaceChildren(svg);
    return svg;
  }

  // The evaluation graph of a game into `container`: opts {values: [score per ply 0..n from the
  // first side's view, or null], limit (the clamp, e.g. 1000 cp), marks: [glyph per ply or ''],
  // selected (ply), onPick(ply)}. Above the middle line the first side is better; a click picks
  // the nearest ply.
  const JUDGMENT = { '?!': 'inaccuracy', '?': 'mistake', '??': 'blunder' };
  function evalGraph(container, opts) {
    const W = 360, H = 110, L = 28, R = 6, T = 6, B = 14;
    const n = Math.max(1, opts.values.length - 1), lim = opts.limit;
    const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'plot eval-plot' });
    const x = (p) => L + (p / n) * (W - L - R);
    const y = (v) => T + (1 - (Math.max(-lim, Math.min(lim, v)) + lim) / (2 * lim)) * (H - T - B);
    svg.appendChild(el('rect', { x: L, y: T, width: W - L - R, height: H - T - B, class: 'plot-area' }));
    for (const v of [lim, 0, -lim])
      svg.appendChild(el('text', { x: L - 3, y: y(v) + 3, 'text-anchor': 'end', class: 'plot-axis' },
        v === 0 ? '0' : `${v > 0 ? '+' : '-'}${lim / 100}`));
    svg.appendChild(el('line', { x1: L, x2: W - R, y1: y(0), y2: y(0), class: 'plot-grid' }));
    // The line, and the area between it and 0 (one closed shape per run of known scores).
    let d = '', fill = '', last = null;
    opts.values.forEach((v, p) => {
      const known = v !== null && v !== undefined;
      if (!known && last !== null) { fill += `L${x(last).toFixed(1)},${y(0).toFixed(1)}Z`; last = null; }
      if (!known) return;
      const pt = `${x(p).toFixed(1)},${y(v).toFixed(1)}`;
      d += `${last === null ? 'M' : 'L'}${pt}`;
      fill += last === null ? `M${x(p).toFixed(1)},${y(0).toFixed(1)}L${pt}` : `L${pt}`;
      last = p;
    });
    if (last !== null) fill += `L${x(last).toFixed(1)},${y(0).toFixed(1)}Z`;
    svg.appendChild(el('path', { d: fill, class: 'eval-fill' }));
    svg.appendChild(el('path', { d, class: 'plot-line eval-line' }));
    if (opts.selected !== undefined)
      svg.appendChild(el('line', { x1: x(opts.selected), x2: x(opts.selected), y1: T, y2: H - B, class: 'eval-cursor' }));
    opts.values.forEach((v, p) => {
      if (v === null || v === undefined) return;
      const mark = (opts.marks || [])[p] || '';
      svg.appendChild(el('circle', { cx: x(p).toFixed(1), cy: y(v).toFixed(1), r: mark ? 3 : 1.6, 'data-ply': String(p),
        class: `eval-point${mark ? ' judgment-' + JUDGMENT[mark] : ''}` }));
    });
    svg.appendChild(el('text', { x: L, y: H - 3, class: 'plot-axis' }, '0'));
    svg.appendChild(el('text', { x: W - R, y: H - 3, 'text-anchor': 'end', class: 'plot-axis' }, `ply ${n}`));
    svg.addEventListener('click', (e) => {
      const box = svg.getBoundingClientRect();
      const vx = ((e.clientX - box.left) / box.width) * W;
      if (opts.onPick) opts.onPick(Math.max(0, Math.min(n, Math.round(((vx - L) / (W - L - R)) * n))));
    });
    container.replaceChildren(svg);
    return svg;
  }

  return { draw, evalGraph, formats: { plain, seconds, percent } };
})();
