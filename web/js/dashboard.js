// The serving dashboard: for every engine, live plots of TTFT p50/p99, queue depth and running
// requests, batch size, prompt and generation tokens/s, KV blocks used (and the sliding-window layers'
// own blocks where an engine keeps them apart), prefix-cache hit rate,
// preemptions and deadline misses over the last hour (kept by the server's hub); and for every
// replica of a fleet (samples with source "replica"), its requests in flight, mean TTFT, requests
// and errors, the prefix hit rate it reports, and whether it is in the fleet.
'use strict';

(() => {
  const WINDOW = 3600;
  const models = new Map();  // model -> [samples]
  const PLOTS = [
    { key: 'ttft', title: 'TTFT', format: ArenaPlot.formats.seconds, series: [['p50', 'ttft_p50', '#1f77b4'], ['p99', 'ttft_p99', '#d62728']] },
    { key: 'queue', title: 'Requests', series: [['waiting', 'queue', '#ff7f0e'], ['running', 'running', '#2ca02c']] },
    { key: 'batch', title: 'Batch size', unit: 'seqs/step', series: [['batch', 'batch', '#9467bd']] },
    { key: 'tps', title: 'Throughput', unit: 'tokens/s', series: [['prompt', 'prompt_tps', '#8c564b'], ['gen', 'gen_tps', '#17becf']] },
    { key: 'kv', title: 'KV blocks', series: [['used', 'kv_used', '#e377c2'], ['total', 'kv_total', '#7f7f7f'],
      ['window used', 'kv_window_used', '#ff9896'], ['window total', 'kv_window_total', '#c7c7c7']] },
    { key: 'hit', title: 'Prefix-cache hit rate', yMax: 1, format: ArenaPlot.formats.percent, series: [['hit', 'prefix_hit_rate', '#bcbd22']] },
    { key: 'pre', title: 'Preemptions', unit: 'per sample', series: [['preemptions', 'preemptions', '#d62728']] },
    { key: 'miss', title: 'Deadline misses', unit: 'total', series: [['runner', 'deadline_misses', '#ff7f0e'], ['engine', 'engine_deadline_misses', '#1f77b4']] },
  ];
  const REPLICA_PLOTS = [
    { key: 'inflight', title: 'In flight', unit: 'requests', series: [['in flight', 'running', '#2ca02c']] },
    { key: 'ttft', title: 'TTFT (mean)', format: ArenaPlot.formats.seconds, series: [['mean', 'ttft_p50', '#1f77b4']] },
    { key: 'requests', title: 'Requests', unit: 'per sample', series: [['sent', 'requests', '#8c564b'], ['errors', 'errors', '#d62728']] },
    { key: 'hit', title: 'Prefix hit rate (reported)', yMax: 1, format: ArenaPlot.formats.percent, series: [['hit', 'prefix_hit_rate', '#bcbd22']] },
    { key: 'healthy', title: 'In the fleet', yMax: 1, series: [['healthy', 'healthy_value', '#17becf']] },
  ];
  const isReplica = (samples) => samples.length > 0 && samples[samples.length - 1].source === 'replica';
  const plotsOf = (samples) => (isReplica(samples) ? REPLICA_PLOTS : PLOTS);

  function panel(model, samples) {
    let node = document.querySelector(`.engine[data-model="${CSS.escape(model)}"]`);
    if (node) return node;
    const heading = isReplica(samples) ? `Replica: ${model}` : `Engine: ${model}`;
    node = Arena.el('section', { class: 'engine', 'data-model': model }, Arena.el('h2', { text: heading }));
    const grid = Arena.el('div', { class: 'plot-grid' });
    for (const p of plotsOf(samples)) grid.append(Arena.el('div', { class: 'plot-box', 'data-plot': p.key }));
    node.append(grid);
    document.getElementById('engines').append(node);
    return node;
  }

  // The sliding layers' own blocks are plotted only for engines that have them.
  const OPTIONAL = new Set(['kv_window_used', 'kv_window_total']);
  const shown = (series, samples) => series.filter(([, field]) => !OPTIONAL.has(field) || samples.some((s) => s[field] !== undefined));
  const value = (s, field) => (field === 'healthy_value' ? (s.healthy ? 1 : 0) : s[field] ?? null);

  function render(model) {
    const samples = models.get(model) || [];
    const node = panel(model, samples);
    const now = samples.length ? Math.max(Date.now() / 1000, samples[samples.length - 1].time) : Date.now() / 1000;
    // The window grows with the data: a minute at least, the last hour at most.
    const span = samples.length ? now - samples[0].time : 0;
    const window = Math.min(WINDOW, Math.max(60, Math.ceil(span / 60) * 60));
    for (const p of plotsOf(samples)) {
      const box = node.querySelector(`[data-plot="${p.key}"]`);
      ArenaPlot.draw(box, { title: p.title, unit: p.unit, now, window, yMax: p.yMax, format: p.format,
        series: shown(p.series, samples).map(([name, field, color]) => ({ name, color, points: samples.map((s) => [s.time, value(s, field)]) })) });
    }
    document.body.dataset.samples = String(samples.length);
  }

  function renderAll() {
    if (!models.size) {
      document.getElementById('engines').replaceChildren(Arena.el('p', { class: 'muted', text: 'No engine samples yet.' }));
      return;
    }
    if (!document.querySelector('.engine')) document.getElementById('engines').replaceChildren();
    for (const model of models.keys()) render(model);
  }

  let pending = false;
  const schedule = () => { if (!pending) { pending = true; requestAnimationFrame(() => { pending = false; renderAll(); }); } };

  new ArenaFeed({ view: 'dashboard' }, {
    snapshot(snap) {
      models.clear();
      document.getElementById('engines').replaceChildren();
      for (const [model, samples] of Object.entries(snap.metrics || {})) models.set(model, samples);
      renderAll();
    },
    event(ev) {
      if (ev.type !== 'metrics') return;
      const list = models.get(ev.model) || [];
      list.push(ev);
      while (list.length && list[0].time < ev.time - WINDOW) list.shift();
      models.set(ev.model, list);
      schedule();
    },
  });
})();
