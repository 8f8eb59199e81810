// Game records from events (see game_record.h).
#include "arena/tournament/game_record.h"

namespace arena::tournament {
namespace {

bool is_illegal(const std::optional<agents::MoveFailure>& f) {
  return f && (f->kind == agents::FailureKind::Illegal || f->kind == agents::FailureKind::Unparseable);
}

// Sums each side's numbers over the game's moves.
void add_usage(GameRecord& g) {
  for (const MoveEvent& m : g.moves) {
    SideUsage& u = g.usage[m.first_side ? 0 : 1];
    ++u.moves;
    u.retries += m.retries;
    u.illegal += m.retries + (is_illegal(m.failure) ? 1 : 0);
    u.failures += m.failure ? 1 : 0;
    u.latency_s += m.latency_s;
    u.prompt_tokens += m.prompt_tokens;
    u.cached_tokens += m.cached_tokens;
    u.completion_tokens += m.completion_tokens;
  }
}

}  // namespace

const std::string& GameRecord::result() const {
  static const std::string kUnfinished = "*";
  return end ? end->result : kUnfinished;
}

const GameRecord* GameBook::apply(const Event& e) {
  if (const auto* start = std::get_if<GameStart>(&e.body)) {
    GameRecord g;
    g.start = *start;
    g.start_time = e.time;
    index_of_[start->game] = start->index;
    if (const auto old = games_.find(start->index); old != games_.end() && old->second.finished())
      --num_finished_;
    GameRecord& slot = games_[start->index] = std::move(g);
    return &slot;
  }
  const auto* move = std::get_if<MoveEvent>(&e.body);
  const auto* end = std::get_if<GameEnd>(&e.body);
  if (!move && !end) return nullptr;
  const auto id = index_of_.find(move ? move->game : end->game);
  if (id == index_of_.end()) return nullptr;
  GameRecord& g = games_[id->second];
  if (g.end) return nullptr;
  if (move) {
    g.moves.push_back(*move);
    return &g;
  }
  g.end = *end;
  g.end_time = e.time;
  if (g.finished()) ++num_finished_;
  add_usage(g);
  return &g;
}

const GameRecord* GameBook::find(const std::string& id) const {
  const auto it = index_of_.find(id);
  if (it == index_of_.end()) return nullptr;
  const auto game = games_.find(it->second);
  return game == games_.end() ? nullptr : &game->second;
}

const GameRecord* GameBook::finished(int32_t index) const {
  const auto it = games_.find(index);
  return it != games_.end() && it->second.finished() ? &it->second : nullptr;
}

}  // namespace arena::tournament
