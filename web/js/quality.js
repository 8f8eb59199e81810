// Move quality on the game page, judged as the standings judge it (arena/tournament/move_quality.h,
// docs/config.md "Move quality"): each move's evals before and after from the mover's view (the
// previous move's referee_cp negated, its own referee_cp; the last move of a game the rules ended
// counts as a mate delivered or 0 for a draw), lichess's judgment (?! ? ??) from the drop in
// winning chances or its mate rules, and the referee's score per ply from the first side's view
// for the evaluation graph.
'use strict';

const ArenaQuality = (() => {
  const MATE = 20000, CEILING = 1000, SLOPE = 0.00368208;
  const isMate = (cp) => Math.abs(cp) >= MATE;
  const ceiled = (cp) => Math.max(-CEILING, Math.min(CEILING, cp));
  const chances = (cp) => 2 / (1 + Math.exp(-SLOPE * ceiled(cp))) - 1;
  const known = (v) => v !== null && v !== undefined;

  // lichess's glyph for a move from `before` to `after` (mover's view): '', '?!', '?' or '??'.
  function judge(before, after) {
    if (!isMate(before) && !isMate(after)) {
      const drop = chances(before) - chances(after);
      return drop >= 0.3 ? '??' : drop >= 0.2 ? '?' : drop >= 0.1 ? '?!' : '';
    }
    if (!isMate(before) && after <= -MATE) return before < -999 ? '?!' : before < -700 ? '?' : '??';
    if (before >= MATE && after < MATE) {
      const left = isMate(after) ? 0 : after;
      return left > 999 ? '?!' : left > 700 ? '?' : '??';
    }
    return '';
  }

  // The mover's score after the last move of `game` when the rules ended it there, or null.
  function rulesEnd(game, moves) {
    if (!game || !game.result || game.result === '*' || game.termination !== 'normal') return null;
    const last = moves[moves.length - 1];
    if (!last) return null;
    if (game.result === '1/2-1/2') return 0;
    return (game.result === '1-0') === (last.side === 'first') ? 30000 : -30000;
  }

  // Per move (same order as `moves`): {before, after, white, glyph}; `white` is the score after the
  // move from the first side's view (null when unknown), `glyph` '' unless the move was scored.
  function judgeMoves(game, moves) {
    const end = rulesEnd(game, moves);
    return moves.map((m, i) => {
      const prev = i > 0 ? moves[i - 1].referee_cp : null;
      const before = known(prev) ? -prev : null;
      let after = known(m.referee_cp) ? m.referee_cp : null;
      if (after === null && i === moves.length - 1) after = end;
      const first = m.side ? m.side === 'first' : i % 2 === 0;
      const scored = before !== null && after !== null && !m.substitute;
      return { before, after, white: after === null ? null : first ? after : -after, glyph: scored ? judge(before, after) : '' };
    });
  }

  // A score for people: "+0.35", "-1.20", "#3" (the mover mates in 3), "#-2".
  function scoreText(cp) {
    if (!known(cp)) return '-';
    if (isMate(cp)) return cp > 0 ? `#${30000 - cp}` : `#-${30000 + cp}`;
    return `${cp >= 0 ? '+' : ''}${(cp / 100).toFixed(2)}`;
  }

  const NAMES = { '?!': 'inaccuracy', '?': 'mistake', '??': 'blunder' };
  return { judge, judgeMoves, scoreText, ceiled, names: NAMES };
})();
