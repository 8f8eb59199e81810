// The game-independent search behind search_position(): iterative deepening over a negamax
// alpha-beta with principal-variation windows, a transposition table, check extension, and a
// quiescence search over captures; moves are ordered by the table's move, MVV-LVA for captures,
// two killer moves per ply, then a history score. It runs on a Board adapter (chess_board.h,
// janggi_board.h) that supplies legal moves, make/unmake, evaluation and the rule endings.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "agents/search/search.h"

namespace agents::search {

// A fixed-capacity move list with a score per move for ordering.
template <typename Move>
struct MoveBuf {
  static constexpr int kCapacity = 384;
  std::array<Move, kCapacity> moves;
  std::array<int32_t, kCapacity> scores;
  int size = 0;

  void push(Move m) { moves[size++] = m; }
};

// What the search found, in the board's own move type.
template <typename Move>
struct SearchOutput {
  Move best{};
  bool has_move = false;
  int32_t score = 0;
  int32_t depth = 0;
  int64_t nodes = 0;
  std::vector<Move> pv;
  bool stopped = false;
  bool cancelled = false;
};

template <typename Board>
class AlphaBeta {
 public:
  using Move = typename Board::Move;

  AlphaBeta(Board& board, const SearchLimits& limits) : board_(board), limits_(limits) {
    table_ = std::make_unique<TableEntry[]>(kTableSize);
  }

  // Runs iterative deepening until the depth limit, or until a node, time or cancel limit stops
  // it; the result is the last completed iteration's (or the best root move found so far when
  // not even the first completed).
  SearchOutput<Move> run() {
    SearchOutput<Move> out;
    MoveBuf<Move> root;
    board_.legal_moves(root);
    if (root.size == 0) return out;
    // Equal moves are taken in a seeded order: shuffle first, then sort stably by score.
    std::mt19937_64 rng(limits_.seed);
    std::shuffle(root.moves.begin(), root.moves.begin() + root.size, rng);
    std::vector<std::pair<Move, int32_t>> order;
    for (int i = 0; i < root.size; ++i)
      order.emplace_back(root.moves[i], ordering_score(root.moves[i], Move{}, 0));
    std::stable_sort(order.begin(), order.end(), [](auto& a, auto& b) { return a.second > b.second; });
    out.best = order[0].first;
    out.has_move = true;

    const int max_depth = std::min<int>(limits_.depth.value_or(kMaxPly - 8), kMaxPly - 8);
    for (int depth = 1; depth <= std::max(1, max_depth); ++depth) {
      int32_t alpha = -kInfinity;
      const int32_t beta = kInfinity;
      Move iteration_best{};
      bool any = false;
      std::vector<std::pair<Move, int32_t>> scored;
      for (size_t i = 0; i < order.size(); ++i) {
        const Move m = order[i].first;
        board_.make(m);
        int32_t score;
        if (i == 0) {
          score = -search(depth - 1, 1, -beta, -alpha);
        } else {
          score = -search(depth - 1, 1, -alpha - 1, -alpha);
          if (!stop_ && score > alpha) score = -search(depth - 1, 1, -beta, -alpha);
        }
        board_.unmake();
        if (stop_) break;
        scored.emplace_back(m, score);
        if (score > alpha || !any) {
          alpha = std::max(alpha, score);
          iteration_best = m;
          any = true;
          pv_[0][0] = m;
          for (int k = 0; k < pv_length_[1]; ++k) pv_[0][k + 1] = pv_[1][k];
          pv_length_[0] = pv_length_[1] + 1;
        }
      }
      if (stop_) {
        // A partial iteration: the previous best is searched first, and a later move replaces it
        // only by scoring higher, so the partial result is at least as good as the last one.
        if (any) {
          out.best = iteration_best;
          out.score = alpha;
        }
        break;
      }
      out.best = iteration_best;
      out.score = alpha;
      out.depth = depth;
      out.pv.assign(pv_[0].begin(), pv_[0].begin() + pv_length_[0]);
      // The next iteration searches this one's moves best first (unsearched moves keep their order).
      std::stable_sort(scored.begin(), scored.end(), [](auto& a, auto& b) { return a.second > b.second; });
      order = scored;
      if (std::abs(alpha) >= kMateScore - kMaxPly && depth >= kMateScore - std::abs(alpha))
        break;  // mate found
    }
    if (out.pv.empty() || !(out.pv.front() == out.best)) out.pv = {out.best};
    out.nodes = nodes_;
    out.stopped = stop_;
    out.cancelled = cancelled_;
    return out;
  }

 private:
  static constexpr int32_t kInfinity = kMateScore + 1;
  static constexpr size_t kTableSize = size_t(1) << 17;  // 2 MiB of 16-byte entries
  enum Bound : uint8_t { kNone, kExact, kLower, kUpper };

  struct TableEntry {
    uint64_t key = 0;
    int16_t score = 0;
    uint16_t move = 0;
    int8_t depth = 0;
    Bound bound = kNone;
  };

  // Mate scores are stored relative to the node, and read back relative to the root.
  static int32_t to_table(int32_t score, int ply) {
    if (score >= kMateScore - kMaxPly) return score + ply;
    if (score <= -kMateScore + kMaxPly) return score - ply;
    return score;
  }
  static int32_t from_table(int32_t score, int ply) {
    if (score >= kMateScore - kMaxPly) return score - ply;
    if (score <= -kMateScore + kMaxPly) return score + ply;
    return score;
  }

  // Counts a node; sets stop_ when a limit is reached (the clock is read every 1024 nodes).
  bool count_node() {
    ++nodes_;
    if (limits_.nodes && nodes_ >= *limits_.nodes) stop_ = true;
    if ((nodes_ & 1023) == 0) {
      if (limits_.cancel && limits_.cancel->load(std::memory_order_relaxed)) stop_ = cancelled_ = true;
      if (limits_.stop && Clock::now() >= *limits_.stop) stop_ = true;
    }
    return stop_;
  }

  int32_t ordering_score(Move m, Move table_move, int ply) const {
    if (m == table_move) return 1 << 30;
    if (board_.is_tactical(m)) return (1 << 24) + board_.victim_value(m) * 16 - board_.attacker_value(m) / 16;
    if (ply < kMaxPly) {
      if (m == killers_[ply][0]) return (1 << 23) + 1;
      if (m == killers_[ply][1]) return 1 << 23;
    }
    return history_[board_.encode(m)] + board_.quiet_bonus(m);
  }

  // Moves the best-scored remaining move to position i.
  static void pick(MoveBuf<Move>& buf, int i) {
    int best = i;
    for (int j = i + 1; j < buf.size; ++j)
      if (buf.scores[j] > buf.scores[best]) best = j;
    if (best != i) {
      std::swap(buf.moves[i], buf.moves[best]);
      std::swap(buf.scores[i], buf.scores[best]);
    }
  }

  int32_t search(int depth, int ply, int32_t alpha, int32_t beta) {
    pv_length_[ply] = 0;
    if (const auto ending = board_.rule_score(ply)) return *ending;
    const bool in_check = board_.in_check();
    if (in_check && ply < kMaxPly / 2) ++depth;  // check extension
    if (depth <= 0 || ply >= kMaxPly - 1) return quiesce(ply, alpha, beta);
    if (count_node()) return 0;

    const uint64_t key = board_.key();
    TableEntry& entry = table_[key & (kTableSize - 1)];
    Move table_move{};
    if (entry.key == key && entry.bound != kNone) {
      table_move = board_.decode(entry.move);
      const int32_t s = from_table(entry.score, ply);
      if (entry.depth >= depth && beta - alpha == 1) {
        if (entry.bound == kExact || (entry.bound == kLower && s >= beta) ||
            (entry.bound == kUpper && s <= alpha))
          return s;
      }
    }

    MoveBuf<Move> buf;
    board_.legal_moves(buf);
    if (buf.size == 0) return board_.no_moves_score(ply);
    for (int i = 0; i < buf.size; ++i) buf.scores[i] = ordering_score(buf.moves[i], table_move, ply);

    const int32_t alpha_in = alpha;
    int32_t best = -kInfinity;
    Move best_move = buf.moves[0];
    for (int i = 0; i < buf.size; ++i) {
      pick(buf, i);
      const Move m = buf.moves[i];
      board_.make(m);
      int32_t score;
      if (i == 0) {
        score = -search(depth - 1, ply + 1, -beta, -alpha);
      } else {
        score = -search(depth - 1, ply + 1, -alpha - 1, -alpha);
        if (!stop_ && score > alpha && score < beta) score = -search(depth - 1, ply + 1, -beta, -alpha);
      }
      board_.unmake();
      if (stop_) return 0;
      if (score > best) {
        best = score;
        best_move = m;
        if (score > alpha) {
          alpha = score;
          pv_[ply][0] = m;
          for (int k = 0; k < pv_length_[ply + 1]; ++k) pv_[ply][k + 1] = pv_[ply + 1][k];
          pv_length_[ply] = pv_length_[ply + 1] + 1;
          if (alpha >= beta) {
            if (!board_.is_tactical(m)) {
              if (!(killers_[ply][0] == m)) {
                killers_[ply][1] = killers_[ply][0];
                killers_[ply][0] = m;
              }
              int32_t& h = history_[board_.encode(m)];
              h = std::min(h + depth * depth, int32_t(1) << 20);
            }
            break;
          }
        }
      }
    }
    entry.key = key;
    entry.score = int16_t(to_table(best, ply));
    entry.move = board_.encode(best_move);
    entry.depth = int8_t(depth);
    entry.bound = best >= beta ? kLower : best > alpha_in ? kExact : kUpper;
    return best;
  }

  int32_t quiesce(int ply, int32_t alpha, int32_t beta) {
    pv_length_[ply] = 0;
    if (count_node()) return 0;
    const bool in_check = board_.in_check();
    MoveBuf<Move> buf;
    int32_t best = -kInfinity;
    if (in_check) {
      board_.legal_moves(buf);  // every evasion
      if (buf.size == 0) return board_.no_moves_score(ply);
    } else {
      best = board_.evaluate();
      if (best >= beta || ply >= kMaxPly - 1) return best;
      alpha = std::max(alpha, best);
      board_.captures(buf);
    }
    if (ply >= kMaxPly - 1) return board_.evaluate();
    for (int i = 0; i < buf.size; ++i) buf.scores[i] = ordering_score(buf.moves[i], Move{}, kMaxPly);
    for (int i = 0; i < buf.size; ++i) {
      pick(buf, i);
      board_.make(buf.moves[i]);
      const auto ending = board_.rule_score(ply + 1);
      const int32_t score = ending ? -*ending : -quiesce(ply + 1, -beta, -alpha);
      board_.unmake();
      if (stop_) return 0;
      if (score > best) {
        best = score;
        if (score > alpha) {
          alpha = score;
          if (alpha >= beta) break;
        }
      }
    }
    return best;
  }

  Board& board_;
  const SearchLimits& limits_;
  std::unique_ptr<TableEntry[]> table_;
  std::array<std::array<Move, 2>, kMaxPly + 1> killers_{};
  std::array<int32_t, 1 << 16> history_{};
  std::array<std::array<Move, kMaxPly + 1>, kMaxPly + 1> pv_{};
  std::array<int, kMaxPly + 2> pv_length_{};
  int64_t nodes_ = 0;
  bool stop_ = false;
  bool cancelled_ = false;
};

// The report of `out`, with moves written by `uci` (a function of one move).
template <typename Move, typename Uci>
SearchReport make_report(const SearchOutput<Move>& out, Uci&& uci, double seconds) {
  SearchReport report;
  if (out.has_move) report.best_move = uci(out.best);
  report.score = out.score;
  if (std::abs(out.score) >= kMateScore - kMaxPly) {
    const int plies = kMateScore - std::abs(out.score);
    report.mate_in = out.score > 0 ? (plies + 1) / 2 : -(plies / 2);
  }
  report.depth = out.depth;
  report.nodes = out.nodes;
  report.seconds = seconds;
  for (const Move& m : out.pv) report.pv.push_back(uci(m));
  report.stopped = out.stopped;
  report.cancelled = out.cancelled;
  return report;
}

}  // namespace agents::search
