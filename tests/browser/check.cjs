// The board view in a real browser: headless Debian Chromium (driven by playwright-core over the
// DevTools protocol) opens the overview, a chess game, a janggi game and the serving dashboard of
// a running server, checks the DOM (boards drawn, the game page's board changing after a live
// move, its evaluation graph, judgments and best-move arrow, a click on the graph jumping to that
// ply, plots filled), and saves screenshots. With `view`, the server is `arena view`'s instead
// (view_check.cjs): its list of tournaments, a tournament's overview and a game growing live.
// Usage: node check.cjs URL OUTDIR [view]
// Exit 0 when every check passed; 1 with the failed checks on stderr.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

const [, , base, outDir, mode] = process.argv;
if (!base || !outDir) {
  console.error('usage: node check.cjs URL OUTDIR [view]');
  process.exit(2);
}
fs.mkdirSync(outDir, { recursive: true });
const failures = [];
const check = (ok, what) => { console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`); if (!ok) failures.push(what); };

(async () => {
  // A fresh profile in a temporary folder (playwright passes it as --user-data-dir).
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'arena-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
           '--disable-sync', '--no-first-run'],
  });
  const page = browser.pages()[0] || await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  const live = () => page.waitForFunction(() => document.body.dataset.feed === 'live', null, { timeout: 10000 });
  if (mode === 'view') await require('./view_check.cjs')({ page, base, outDir, check, live });
  else await checkRun(page, live);

  check(errors.length === 0, `no script errors${errors.length ? ': ' + errors.join(' | ') : ''}`);
  await browser.close();
  fs.rmSync(profile, { recursive: true, force: true });
  if (failures.length) {
    console.error(`browser check: ${failures.length} failed`);
    process.exit(1);
  }
  console.log('browser check: all passed');
})().catch((e) => {
  console.error('browser check crashed:', e);
  process.exit(1);
});

// `arena run`'s board view: overview, a chess and a janggi game, the dashboard.
async function checkRun(page, live) {

  // Overview: small boards of the games in flight, the standings.
  await page.goto(base, { waitUntil: 'load' });
  await live();
  await page.waitForSelector('.game-card svg.board', { timeout: 10000 });
  const cards = await page.$$eval('.game-card', (n) => n.map((c) => c.dataset.game));
  check(cards.length >= 2, `overview shows the games in flight (${cards.join(', ')})`);
  check(await page.$$eval('.game-card svg.board-janggi', (n) => n.length) >= 1, 'overview draws a janggi board');
  check(await page.$$eval('.game-card svg.board-chess', (n) => n.length) >= 1, 'overview draws a chess board');
  check(await page.$$eval('#standings tr', (n) => n.length) >= 2, 'overview shows the standings');
  const heads = await page.$$eval('#standings th', (n) => n.map((h) => h.textContent));
  check(heads.includes('ACPL') && heads.includes('accuracy'), `overview standings have ACPL and accuracy (${heads.join(' ')})`);
  check((await page.textContent('#standings td.acpl')) === '61.5', 'overview shows an agent\'s ACPL');
  await page.waitForTimeout(500);
  await page.screenshot({ path: path.join(outDir, 'overview.png'), fullPage: true });

  // A chess game: the current position at once, then the board changes after a live move.
  const games = await (await page.request.get(`${base}api/games`)).json();
  const chess = games.find((g) => g.in_flight && g.variant === 'chess');
  const janggi = games.find((g) => g.in_flight && g.variant.startsWith('janggi'));
  check(!!chess && !!janggi, 'a chess and a janggi game are in flight');
  for (const [g, name] of [[chess, 'chess'], [janggi, 'janggi']]) {
    if (!g) continue;
    await page.goto(`${base}game/${g.id}`, { waitUntil: 'load' });
    await live();
    await page.waitForSelector('#board-svg', { timeout: 10000 });
    const before = await page.$eval('#board-svg', (s) => ({ fen: s.dataset.fen, plies: Number(document.body.dataset.plies) }));
    check(before.plies >= 1, `${name} game page opened mid-way shows its ${before.plies} moves at once`);
    check(await page.$$eval('#board-svg [data-piece]', (n) => n.length) >= 20, `${name} board has its pieces`);
    await page.waitForFunction((p) => Number(document.body.dataset.plies) > p, before.plies, { timeout: 15000 })
      .catch(() => {});
    const after = await page.$eval('#board-svg', (s) => ({ fen: s.dataset.fen, plies: Number(document.body.dataset.plies) }));
    check(after.plies > before.plies && after.fen !== before.fen,
      `${name} board changed after a live move (ply ${before.plies} -> ${after.plies})`);
    check(await page.$$eval('#moves td.mv', (n) => n.length) >= after.plies, `${name} move list has every move`);
    // Stepping back shows the earlier position; a move's details appear on click.
    await page.click('#prev');
    const stepped = await page.$eval('#board-svg', (s) => s.dataset.fen);
    check(stepped !== after.fen, `${name}: stepping back changes the board`);
    await page.click('#moves td.mv[data-ply="1"]');
    check((await page.textContent('#move-detail')).includes('Raw answer'), `${name}: a move's raw answer on click`);
    // The evaluation graph: a point per scored ply, the blunder at ply 5 marked in the graph and
    // the move list; a click on ply 3's point shows ply 3 with the referee's best move as an arrow.
    await page.waitForSelector('#eval-graph svg.eval-plot', { timeout: 5000 }).catch(() => {});
    const points = await page.$$eval('#eval-graph circle.eval-point', (n) => n.length);
    check(points >= after.plies, `${name}: the evaluation graph has a point per ply (${points})`);
    check(await page.$$eval('#eval-graph circle.judgment-blunder[data-ply="5"]', (n) => n.length) === 1,
      `${name}: the graph marks ply 5's blunder`);
    const marked = await page.$eval('#moves td.mv[data-ply="5"]', (c) => ({ text: c.textContent, cls: c.className }));
    check(marked.text.includes('??') && marked.cls.includes('judgment-blunder'), `${name}: the move list marks ply 5 ?? (${marked.text})`);
    await page.click('#eval-graph circle[data-ply="3"]');
    await page.waitForFunction(() => document.body.dataset.ply === '3', null, { timeout: 3000 }).catch(() => {});
    check(await page.evaluate(() => document.body.dataset.ply) === '3', `${name}: a click on the graph jumps to ply 3`);
    const moves3 = (await (await page.request.get(`${base}api/games/${g.id}`)).json()).moves;
    const arrow = await page.$eval('#board-svg .best-move', (a) => a.dataset.move).catch(() => null);
    check(arrow && arrow === moves3[2].referee_best, `${name}: ply 3 shows the referee's best move ${moves3[2].referee_best} as an arrow (${arrow})`);
    check((await page.textContent('#move-detail')).includes('best reply'), `${name}: the move's details give the referee's score and best reply`);
    await page.screenshot({ path: path.join(outDir, `game-${name}-ply3.png`), fullPage: true });
    // The page judges as the standings do: tests/arena/move_quality_test.cpp's hand-worked cases.
    const judged = await page.evaluate(() => [[0, -50], [0, -60], [0, -120], [0, -170], [-120, 0], [-1200, -29990],
      [-800, -29990], [50, -29990], [29990, 1200], [29990, 800], [29990, -29995], [29995, 29990], [100, 29990],
      [-29995, -29998]].map(([b, a]) => ArenaQuality.judge(b, a)).join(' '));
    check(judged === ' ?! ? ??  ?! ? ?? ?! ? ??   ', `${name}: the page's judgments match move_quality.h's (${judged})`);
    await page.click('#last');
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(outDir, `game-${name}.png`), fullPage: true });
  }

  // Dashboard: every plot drawn with samples.
  await page.goto(`${base}dashboard`, { waitUntil: 'load' });
  await live();
  await page.waitForFunction(() => Number(document.body.dataset.samples || 0) >= 30, null, { timeout: 20000 }).catch(() => {});
  const plots = await page.$$eval('.plot-box svg.plot', (n) => n.length);
  check(plots >= 8, `dashboard draws its plots (${plots})`);
  const lines = await page.$$eval('.plot-line', (n) => n.filter((p) => (p.getAttribute('d') || '').includes('L')).length);
  check(lines >= 8, `dashboard plots have lines (${lines})`);
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(outDir, 'dashboard.png'), fullPage: true });
}
