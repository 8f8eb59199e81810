// The browser checks of `arena view` (check.cjs URL OUTDIR view): the list page shows every
// tournament with its status and standings, its game list with PGN links; a tournament's overview
// under /t/<slug>/ links its games below that prefix; a game of the tournament still being
// written grows live on its page. Screenshots: view-list.png, view-overview.png, view-game.png.
'use strict';

const path = require('path');

module.exports = async function viewCheck({ page, base, outDir, check, live }) {
  await page.goto(base, { waitUntil: 'load' });
  await live();
  await page.waitForSelector('section.tournament', { timeout: 10000 });
  const cards = await page.$$eval('section.tournament', (n) => n.map((c) => ({
    slug: c.dataset.slug, status: c.querySelector('.status').textContent,
    rows: c.querySelectorAll('table.standings tr').length })));
  check(cards.length === 2, `the list shows both tournaments (${cards.map((c) => c.slug).join(', ')})`);
  const done = cards.find((c) => c.status === 'finished'), running = cards.find((c) => c.status === 'running');
  check(!!done && !!running, `one finished and one running (${cards.map((c) => c.status).join(', ')})`);
  check(!!done && done.rows >= 3, 'the finished one shows its standings');
  // Its game list: each game links to its page and its PGN.
  await page.click(`section.tournament[data-slug="${done.slug}"] details summary`);
  await page.waitForSelector(`section.tournament[data-slug="${done.slug}"] table.games a`, { timeout: 10000 });
  const pgnHref = await page.$eval(`section.tournament[data-slug="${done.slug}"] table.games a[download]`, (a) => a.getAttribute('href'));
  check(pgnHref.startsWith(`/t/${done.slug}/api/games/`), `a game's PGN link (${pgnHref})`);
  const pgn = await (await page.request.get(new URL(pgnHref, base).href)).text();
  check(pgn.includes('[Result '), 'the PGN downloads');
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(outDir, 'view-list.png'), fullPage: true });

  // The running tournament's overview: its games link below its prefix; the nav leads back.
  await page.goto(`${base}t/${running.slug}/`, { waitUntil: 'load' });
  await live();
  await page.waitForSelector('.game-card svg.board', { timeout: 10000 });
  const href = await page.$eval('.game-card', (a) => a.getAttribute('href'));
  check(href.startsWith(`/t/${running.slug}/game/`), `overview links games under the prefix (${href})`);
  check(await page.$$eval('header nav a', (n) => n.some((a) => a.getAttribute('href') === '/')), 'the nav links the list');
  await page.screenshot({ path: path.join(outDir, 'view-overview.png'), fullPage: true });

  // A game of the log being written: its moves at once, then more as the log grows.
  await page.goto(new URL(href, base).href, { waitUntil: 'load' });
  await live();
  await page.waitForSelector('#board-svg', { timeout: 10000 });
  const before = Number(await page.evaluate(() => document.body.dataset.plies));
  check(before >= 1, `the game page shows the moves so far (${before})`);
  await page.waitForFunction((p) => Number(document.body.dataset.plies) > p, before, { timeout: 15000 }).catch(() => {});
  const after = Number(await page.evaluate(() => document.body.dataset.plies));
  check(after > before, `the game grows live from the log (ply ${before} -> ${after})`);
  const link = await page.$eval('#pgn-link', (a) => a.getAttribute('href'));
  check(link.startsWith(`/t/${running.slug}/api/games/`), `the game's PGN link is under the prefix (${link})`);
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(outDir, 'view-game.png'), fullPage: true });
};
