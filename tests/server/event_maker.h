// Tournament events for the server tests, shaped as docs/events.md writes them, from real games
// (games::make_game) played with seeded random legal moves.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>
#include <string>

#include "arena/tournament/events.h"
#include "games/game.h"

namespace arena::test {

// The typed event of a JSON event (as the hub gets it from the runner); fails the test when the
// JSON is not one.
inline tournament::Event event(const nlohmann::json& j) {
  auto e = tournament::parse_event(j);
  if (!e) throw std::runtime_error(e.error());
  return *e;
}

class EventMaker {
 public:
  nlohmann::json base(const std::string& type) {
    return {{"seq", ++seq_}, {"time", time_ += 0.25}, {"type", type}};
  }

  nlohmann::json tournament_start(int num_games) {
    auto e = base("tournament_start");
    e.update({{"config_hash", "abc"},
              {"arena_version", "test"},
              {"seed", 1},
              {"variants", {"chess", "janggi"}},
              {"agents", {"alpha", "beta"}},
              {"models", {"m"}},
              {"num_games", num_games}});
    return e;
  }

  // Starts a game of `variant`: the game is kept for the moves.
  nlohmann::json game_start(const std::string& id, const std::string& variant, int index = 0) {
    auto game = games::make_game(variant);
    game_ = std::move(*game);
    id_ = id;
    auto e = base("game_start");
    e.update({{"game", id},
              {"index", index},
              {"variant", variant},
              {"first", "alpha"},
              {"second", "beta"},
              {"start_fen", game_->fen()},
              {"opening", ""},
              {"clock_ms", {60000, 60000}}});
    return e;
  }

  // A random legal move of the current game (raw answer padded to `raw_bytes`).
  nlohmann::json random_move(size_t raw_bytes = 16) {
    const auto legal = game_->legal_moves();
    std::uniform_int_distribution<size_t> pick(0, legal.size() - 1);
    const std::string uci = legal[pick(rng_)];
    const std::string human = *game_->to_human(uci);
    const bool first = game_->side_to_move() == games::Side::First;
    (void)game_->apply(uci);
    auto e = base("move");
    std::string raw = "I play " + uci + ". ";
    if (raw.size() < raw_bytes) raw.append(raw_bytes - raw.size(), 'x');
    e.update({{"game", id_},
              {"ply", game_->ply()},
              {"side", first ? "first" : "second"},
              {"agent", first ? "alpha" : "beta"},
              {"uci", uci},
              {"human", human},
              {"fen", game_->fen()},
              {"raw", raw},
              {"reasoning", "because"},
              {"latency_s", 0.5},
              {"ttft_s", 0.1},
              {"queue_s", 0.01},
              {"prompt_tokens", 300},
              {"cached_tokens", 256},
              {"completion_tokens", 5},
              {"retries", 0},
              {"clock_ms", {59000, 58000}},
              {"substitute", nullptr},
              {"failure", nullptr}});
    return e;
  }

  nlohmann::json game_end(const std::string& result = "1/2-1/2",
                          const std::string& reason = "adjudicated draw") {
    auto e = base("game_end");
    e.update({{"game", id_}, {"result", result}, {"reason", reason}, {"plies", game_->ply()}});
    return e;
  }

  nlohmann::json standings() {
    auto e = base("standings");
    e["rows"] = {{{"agent", "alpha"},
                  {"games", 1},
                  {"wins", 0},
                  {"draws", 1},
                  {"losses", 0},
                  {"points", 0.5},
                  {"elo", 0.0},
                  {"elo_error", 350.0},
                  {"los", 0.5},
                  {"draw_ratio", 1.0}},
                 {{"agent", "beta"},
                  {"games", 1},
                  {"wins", 0},
                  {"draws", 1},
                  {"losses", 0},
                  {"points", 0.5},
                  {"elo", 0.0},
                  {"elo_error", 350.0},
                  {"los", 0.5},
                  {"draw_ratio", 1.0}}};
    return e;
  }

  nlohmann::json metrics(const std::string& model, int queue) {
    auto e = base("metrics");
    e.update({{"model", model},
              {"queue", queue},
              {"running", 3},
              {"batch", 3.0},
              {"ttft_p50", 0.05},
              {"ttft_p99", 0.2},
              {"prompt_tps", 900.0},
              {"gen_tps", 40.0},
              {"kv_used", 10},
              {"kv_total", 100},
              {"prefix_hit_rate", 0.8},
              {"preemptions", 0},
              {"deadline_misses", 0},
              {"engine_deadline_misses", 0}});
    return e;
  }

  games::Game& game() { return *game_; }
  double time() const { return time_; }

 private:
  int64_t seq_ = 0;
  double time_ = 1.8e9;
  std::string id_;
  std::unique_ptr<games::Game> game_;
  std::mt19937 rng_{7};
};

}  // namespace arena::test
