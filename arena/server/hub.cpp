// The hub's state kept from tournament events, its snapshots and the fan-out to clients.
#include "arena/server/hub.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "arena/server/board_json.h"
#include "arena/server/json_fields.h"
#include "arena/tournament/pgn_writer.h"

namespace arena::server {

using nlohmann::json;

namespace {

// Events a congested client may miss (it re-synchronises with a snapshot).
bool droppable(const std::string& type) {
  return type == "metrics" || type == "move";
}

// Whether a client watching `sub` wants `event`.
bool wants(const Subscription& sub, const json& event) {
  const std::string type = string_field(event, "type");
  switch (sub.view) {
    case Subscription::View::Overview:
      return type != "metrics";
    case Subscription::View::Dashboard:
      return type == "metrics" || type == "tournament_start" || type == "tournament_end";
    case Subscription::View::Game:
      if (type == "move" || type == "game_start" || type == "game_end")
        return string_field(event, "game") == sub.game;
      return type != "metrics";
  }
  return false;
}

std::shared_ptr<const std::string> frame(std::string_view type, int64_t seq, const std::string& body_key,
                                         const std::string& body) {
  return std::make_shared<const std::string>(
      fmt::format("{{\"type\":\"{}\",\"seq\":{},\"{}\":{}}}", type, seq, body_key, body));
}

}  // namespace

Hub::Hub(std::function<void(std::function<void()>)> post, double history_seconds)
    : post_(std::move(post)), history_seconds_(history_seconds) {}

void Hub::on_event(const tournament::Event& event) {
  post_([this, event] {
    try {
      ingest(event);
    } catch (const std::exception& e) {
      spdlog::warn("web: a {} event the hub cannot use: {}", tournament::type_name(event.body), e.what());
    }
  });
}

void Hub::post_reset() {
  post_([this] { reset(); });
}

void Hub::reset() {
  tournament_.reset();
  tournament_end_.reset();
  book_ = tournament::GameBook();
  boards_.clear();
  order_.clear();
  standings_ = {};
  metrics_.clear();
  external_metrics_time_.clear();
  num_moves_ = num_failures_ = 0;
  last_event_time_ = 0;
  // A snapshot resets what a page shows (feed.js renders each snapshot afresh). deliver() may
  // close a client, which calls leave(): iterate over a copy of the keys.
  std::vector<HubClient*> targets;
  for (const auto& entry : clients_) targets.push_back(entry.first);
  for (HubClient* client : targets)
    if (auto it = clients_.find(client); it != clients_.end()) send_snapshot(client, it->second);
}

Hub::MoveView Hub::replay(Board& board, const std::string& variant, const tournament::Event& event,
                          const tournament::MoveEvent& move) {
  // The hub keeps its own board of each game in flight (for the board JSON's ply, last move and
  // outcome): the event's move is played on it, or, for a move it cannot play (a resumed game),
  // the board is re-seated from the event's FEN. Whether the move gives check is an attack query
  // on that board; the move's notation comes with the event.
  MoveView view{event.seq, event.time, std::nullopt, {}};
  // An event without the move's notation (it is optional in the log) gets it from the board.
  if (board.game && move.human.empty()) view.human = board.game->to_human(move.uci).value_or("");
  if (board.game && !move.uci.empty() && board.game->apply(move.uci).has_value()) {
    if (!move.fen.empty() && board.game->fen() != move.fen) board.game.reset();
  } else {
    board.game.reset();
  }
  if (!board.game && !move.fen.empty()) {
    auto game = games::make_game(variant.empty() ? "chess" : variant, move.fen);
    if (game) board.game = std::move(*game);
  }
  if (board.game) view.check_square = board.game->check_square();
  return view;
}

bool Hub::apply_game(const tournament::Event& event) {
  if (const auto* start = std::get_if<tournament::GameStart>(&event.body)) {
    if (start->game.empty()) return false;
    if (!book_.find(start->game)) order_.push_back(start->game);
    book_.apply(event);
    auto game = games::make_game(start->variant.empty() ? "chess" : start->variant, start->start_fen);
    boards_[start->game] = Board{game ? std::move(*game) : nullptr, {}};
    return true;
  }
  if (const auto* move = std::get_if<tournament::MoveEvent>(&event.body)) {
    const tournament::GameRecord* record = book_.apply(event);
    if (!record) return false;  // a move of a game never started (or over): nothing to attach it to
    Board& board = boards_[move->game];
    board.moves.push_back(replay(board, record->start.variant, event, *move));
    ++num_moves_;
    if (move->failure) ++num_failures_;
    return true;
  }
  const auto& end = std::get<tournament::GameEnd>(event.body);
  if (!book_.apply(event)) return false;
  boards_[end.game].game.reset();
  return true;
}

void Hub::apply_metrics(const tournament::Event& event, const tournament::MetricsEvent& m) {
  if (m.source != "server") external_metrics_time_[m.model] = event.time;
  auto& samples = metrics_[m.model];
  samples.push_back(event);
  while (!samples.empty() && samples.front().time < event.time - history_seconds_) samples.pop_front();
}

bool Hub::apply(const tournament::Event& event) {
  using namespace tournament;
  return std::visit(
      [&]<typename T>(const T& body) {
        if constexpr (std::is_same_v<T, TournamentStart>) {
          tournament_ = event;
          tournament_end_.reset();
        } else if constexpr (std::is_same_v<T, TournamentEnd>) {
          tournament_end_ = body;
        } else if constexpr (std::is_same_v<T, StandingsEvent>) {
          standings_ = body;
        } else if constexpr (std::is_same_v<T, MetricsEvent>) {
          apply_metrics(event, body);
        } else {
          return apply_game(event);
        }
        return true;
      },
      event.body);
}

const Hub::MoveView& Hub::view_of(const Board& board, size_t ply_index) {
  // Events that reuse a game's index under another id share one record but not one board: a
  // move without its view gets an empty one.
  static const MoveView kNone;
  return ply_index < board.moves.size() ? board.moves[ply_index] : kNone;
}

json Hub::move_json(const tournament::MoveEvent& move, const MoveView& view) const {
  json j = tournament::Event{view.seq, view.time, move};
  j["check_square"] = view.check_square ? json(*view.check_square) : json();
  if (!view.human.empty()) j["human"] = view.human;
  return j;
}

json Hub::event_json(const tournament::Event& event) const {
  if (const auto* move = std::get_if<tournament::MoveEvent>(&event.body))
    if (const auto it = boards_.find(move->game); it != boards_.end() && !it->second.moves.empty())
      return move_json(*move, it->second.moves.back());
  return event;
}

void Hub::ingest(const tournament::Event& event) {
  if (!apply(event)) return;
  last_event_time_ = std::max(last_event_time_, event.time);
  broadcast(event, event_json(event));
}

void Hub::broadcast(const tournament::Event& event, const json& body_json) {
  if (clients_.empty()) return;
  const std::string body = body_json.dump(-1, ' ', false, json::error_handler_t::replace);
  const bool may_drop = droppable(tournament::type_name(event.body));
  // deliver() may close a client, which calls leave(); iterate over a copy of the keys.
  std::vector<HubClient*> targets;
  for (const auto& [client, state] : clients_)
    if (wants(state.sub, body_json)) targets.push_back(client);
  for (HubClient* client : targets) {
    auto it = clients_.find(client);
    if (it == clients_.end()) continue;
    const int64_t seq = ++it->second.seq;
    client->deliver(frame("event", seq, "event", body), may_drop);
  }
}

void Hub::join(HubClient* client) {
  ClientState& state = clients_[client];
  send_snapshot(client, state);
}

void Hub::leave(HubClient* client) {
  clients_.erase(client);
}

void Hub::send_snapshot(HubClient* client, ClientState& state) {
  const int64_t seq = ++state.seq;
  json snap = snapshot(state.sub);
  const std::string body = snap.dump(-1, ' ', false, json::error_handler_t::replace);
  client->deliver(frame("snapshot", seq, "snapshot", body), false);
}

void Hub::handle_message(HubClient* client, std::string_view text) {
  auto it = clients_.find(client);
  if (it == clients_.end()) return;
  const json message = json::parse(text, nullptr, false);
  auto reply_error = [&](const std::string& why) {
    json error = {{"type", "error"}, {"message", why}};
    client->deliver(std::make_shared<const std::string>(error.dump()), false);
  };
  if (!message.is_object() || !message.contains("type") || !message["type"].is_string())
    return reply_error("a message must be a JSON object with a string \"type\"");
  const std::string type = message["type"];
  if (type == "ping") {
    client->deliver(std::make_shared<const std::string>(R"({"type":"pong"})"), false);
  } else if (type == "resync") {
    send_snapshot(client, it->second);
  } else if (type == "subscribe") {
    const std::string view = string_field(message, "view", "overview");
    Subscription sub;
    if (view == "overview") {
      sub.view = Subscription::View::Overview;
    } else if (view == "dashboard") {
      sub.view = Subscription::View::Dashboard;
    } else if (view == "game") {
      sub.view = Subscription::View::Game;
      sub.game = string_field(message, "game");
      if (sub.game.empty()) return reply_error("subscribe to view \"game\" needs a \"game\" id");
    } else {
      return reply_error("unknown view \"" + view + "\" (overview, game, dashboard)");
    }
    it->second.sub = sub;
    send_snapshot(client, it->second);
  } else {
    reply_error("unknown message type \"" + type + "\" (subscribe, resync, ping)");
  }
}

json Hub::game_summary(const tournament::GameRecord& record, const Board& board) const {
  const tournament::GameStart& start = record.start;
  json s = {{"id", start.game},         {"index", start.index},         {"variant", start.variant},
            {"first", start.first},     {"second", start.second},       {"start_fen", start.start_fen},
            {"opening", start.opening}, {"plies", record.moves.size()}, {"in_flight", !record.end}};
  const auto clock = [](const tournament::ClockMs& c) { return c ? json(*c) : json(); };
  if (record.moves.empty()) {
    s["fen"] = start.start_fen;
    s["last_move"] = nullptr;
    s["check_square"] = nullptr;
    s["clock_ms"] = clock(start.clock_ms);
  } else {
    const tournament::MoveEvent& last = record.moves.back();
    const MoveView& view = view_of(board, record.moves.size() - 1);
    s["fen"] = last.fen;
    s["last_move"] = last.uci;
    s["last_human"] = view.human.empty() ? last.human : view.human;
    s["check_square"] = view.check_square ? json(*view.check_square) : json();
    s["clock_ms"] = clock(last.clock_ms);
  }
  if (board.game) s["board"] = board_json(board.game->board_view());
  s["result"] = record.end ? json(record.end->result) : json();
  s["reason"] = record.end ? json(record.end->reason) : json();
  s["termination"] = record.end ? json(record.end->termination) : json();
  return s;
}

json Hub::tournament_json() const {
  const TournamentStats st = stats();
  json t = tournament_ ? json(*tournament_) : json::object();
  t.erase("seq");
  t.erase("type");
  t["games_total"] = st.games_total;
  t["games_done"] = st.games_done;
  t["games_in_flight"] = st.games_in_flight;
  t["moves"] = st.moves;
  t["finished"] = tournament_end_.has_value();
  t["interrupted"] = tournament_end_ && tournament_end_->interrupted;
  t["last_event_time"] = last_event_time_ > 0 ? json(last_event_time_) : json();
  return t;
}

json Hub::games_json() const {
  json list = json::array();
  for (const std::string& id : order_) list.push_back(game_summary(*book_.find(id), boards_.at(id)));
  return list;
}

std::optional<json> Hub::game_json(const std::string& id) const {
  const tournament::GameRecord* record = book_.find(id);
  if (!record) return std::nullopt;
  const Board& board = boards_.at(id);
  json g = game_summary(*record, board);
  g["clock_start_ms"] = record->start.clock_ms ? json(*record->start.clock_ms) : json();
  json moves = json::array();
  for (size_t i = 0; i < record->moves.size(); ++i)
    moves.push_back(move_json(record->moves[i], view_of(board, i)));
  g["moves"] = std::move(moves);
  // The tournament's PGN writer (games.pgn's notation); a game it cannot replay has none.
  auto pgn = tournament::game_to_pgn(*record, tournament::PgnContext{});
  g["pgn"] = pgn ? *pgn : std::string();
  return g;
}

json Hub::standings_json() const {
  return json(standings_)["rows"];
}

json Hub::metrics_history_json(double since) const {
  json models = json::object();
  for (const auto& [model, samples] : metrics_) {
    json list = json::array();
    for (const tournament::Event& s : samples)
      if (s.time >= since) list.push_back(s);
    models[model] = std::move(list);
  }
  return json{{"models", models}, {"history_seconds", history_seconds_}};
}

TournamentStats Hub::stats() const {
  TournamentStats st;
  st.games_total = tournament_ ? std::get<tournament::TournamentStart>(tournament_->body).num_games : 0;
  for (const std::string& id : order_) (book_.find(id)->end ? st.games_done : st.games_in_flight)++;
  st.games_total = std::max(st.games_total, st.games_done + st.games_in_flight);
  st.moves = num_moves_;
  st.failures = num_failures_;
  st.ws_clients = static_cast<int64_t>(clients_.size());
  return st;
}

bool Hub::has_recent_external_metrics(const std::string& model, double now, double seconds) const {
  auto it = external_metrics_time_.find(model);
  return it != external_metrics_time_.end() && now - it->second < seconds;
}

json Hub::snapshot(const Subscription& sub) const {
  json snap = {{"tournament", tournament_json()}, {"standings", standings_json()}};
  switch (sub.view) {
    case Subscription::View::Overview: {
      snap["view"] = "overview";
      json in_flight = json::array(), finished = json::array();
      for (const std::string& id : order_) {
        const tournament::GameRecord& record = *book_.find(id);
        (record.end ? finished : in_flight).push_back(game_summary(record, boards_.at(id)));
      }
      // The most recent results only: the full list is /api/games.
      if (finished.size() > 50) finished.erase(finished.begin(), finished.end() - 50);
      snap["games"] = std::move(in_flight);
      snap["finished"] = std::move(finished);
      break;
    }
    case Subscription::View::Game: {
      snap["view"] = "game";
      auto game = game_json(sub.game);
      snap["game_id"] = sub.game;
      snap["game"] = game ? *game : json();
      break;
    }
    case Subscription::View::Dashboard:
      snap["view"] = "dashboard";
      snap["metrics"] = metrics_history_json()["models"];
      break;
  }
  return snap;
}

}  // namespace arena::server
