// Game records from events (see game_record.h).
#include "arena/tournament/game_record.h"

namespace arena::tournament {
namespace {

template <typename T>
T get_or(const nlohmann::json& j, const char* key, T fallback) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    return fallback;
  }
}

std::optional<std::array<int64_t, 2>> clock_of(const nlohmann::json& j) {
  const auto it = j.find("clock_ms");
  if (it == j.end() || !it->is_array() || it->size() != 2) return std::nullopt;
  return std::array<int64_t, 2>{(*it)[0].get<int64_t>(), (*it)[1].get<int64_t>()};
}

}  // namespace

void GameBook::apply(const nlohmann::json& e) {
  const std::string type = get_or<std::string>(e, "type", "");
  if (type == "game_start") {
    GameRecord g;
    g.index = get_or<int32_t>(e, "index", 0);
    g.pair = get_or<int32_t>(e, "pair", -1);
    g.id = get_or<std::string>(e, "game", "");
    g.variant = get_or<std::string>(e, "variant", "");
    g.first = get_or<std::string>(e, "first", "");
    g.second = get_or<std::string>(e, "second", "");
    g.start_fen = get_or<std::string>(e, "start_fen", "");
    g.opening = get_or<std::string>(e, "opening", "");
    g.clock_ms = clock_of(e);
    g.start_time = get_or<double>(e, "time", 0.0);
    index_of_[g.id] = g.index;
    if (const auto old = games_.find(g.index); old != games_.end() && old->second.finished()) --num_finished_;
    games_[g.index] = std::move(g);
    return;
  }
  if (type != "move" && type != "game_end") return;
  const auto id = index_of_.find(get_or<std::string>(e, "game", ""));
  if (id == index_of_.end()) return;
  GameRecord& g = games_[id->second];
  if (g.ended) return;
  if (type == "move") {
    MoveRecord m;
    m.ply = get_or<int32_t>(e, "ply", int32_t(g.moves.size()) + 1);
    m.first_side = get_or<std::string>(e, "side", "first") == "first";
    m.agent = get_or<std::string>(e, "agent", "");
    m.uci = get_or<std::string>(e, "uci", "");
    m.human = get_or<std::string>(e, "human", "");
    m.latency_s = get_or<double>(e, "latency_s", 0.0);
    m.ttft_s = get_or<double>(e, "ttft_s", 0.0);
    m.queue_s = get_or<double>(e, "queue_s", 0.0);
    m.prompt_tokens = get_or<int32_t>(e, "prompt_tokens", 0);
    m.cached_tokens = get_or<int32_t>(e, "cached_tokens", 0);
    m.completion_tokens = get_or<int32_t>(e, "completion_tokens", 0);
    m.retries = get_or<int32_t>(e, "retries", 0);
    m.clock_ms = clock_of(e);
    m.substitute = get_or<std::string>(e, "substitute", "");
    if (const auto f = e.find("failure"); f != e.end() && f->is_object()) {
      m.failure_kind = get_or<std::string>(*f, "kind", "");
      m.failure_message = get_or<std::string>(*f, "message", "");
    }
    if (const auto s = e.find("score_cp"); s != e.end() && s->is_number_integer())
      m.score_cp = s->get<int32_t>();
    g.moves.push_back(std::move(m));
  } else {
    g.ended = true;
    g.result = get_or<std::string>(e, "result", "*");
    g.reason = get_or<std::string>(e, "reason", "");
    g.termination = get_or<std::string>(e, "termination", "");
    g.failure_agent = get_or<std::string>(e, "failure_agent", "");
    g.failure_kind = get_or<std::string>(e, "failure_kind", "");
    g.end_time = get_or<double>(e, "time", 0.0);
    if (g.finished()) ++num_finished_;
    for (const auto& m : g.moves) {
      SideUsage& u = g.usage[m.first_side ? 0 : 1];
      ++u.moves;
      u.retries += m.retries;
      u.illegal += m.retries + ((m.failure_kind == "illegal" || m.failure_kind == "unparseable") ? 1 : 0);
      u.failures += m.failure_kind.empty() ? 0 : 1;
      u.latency_s += m.latency_s;
      u.prompt_tokens += m.prompt_tokens;
      u.cached_tokens += m.cached_tokens;
      u.completion_tokens += m.completion_tokens;
    }
  }
}

const GameRecord* GameBook::finished(int32_t index) const {
  const auto it = games_.find(index);
  return it != games_.end() && it->second.finished() ? &it->second : nullptr;
}

}  // namespace arena::tournament
