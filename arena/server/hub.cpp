// The hub's state kept from tournament events, its snapshots and the fan-out to clients.
#include "arena/server/hub.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "arena/server/board_json.h"
#include "arena/server/game_pgn.h"
#include "arena/server/json_fields.h"

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

void Hub::on_event(const json& event) {
  post_([this, event] {
    try {
      ingest(event);
    } catch (const std::exception& e) {
      spdlog::warn("web: an event the hub cannot use ({}): {}", e.what(), event.dump().substr(0, 200));
    }
  });
}

void Hub::apply_move(GameRecord& record, json& event) {
  // The hub replays the move on its own board to know whether it gives check; a move it cannot
  // replay (a resumed game, a substitute it does not know) re-seats the board from the event's FEN.
  const std::string uci = string_field(event, "uci");
  const std::string fen = string_field(event, "fen");
  if (record.game && !uci.empty() && record.game->apply(uci).has_value()) {
    if (!fen.empty() && record.game->fen() != fen) record.game.reset();
  } else {
    record.game.reset();
  }
  if (!record.game && !fen.empty()) {
    auto game = games::make_game(string_field(record.start, "variant", "chess"), fen);
    if (game) record.game = std::move(*game);
  }
  if (record.game) {
    const games::BoardView view = record.game->board_view();
    event["check_square"] = view.check_square ? json(*view.check_square) : json();
    if (string_field(event, "human").empty() && view.last_move_human) event["human"] = *view.last_move_human;
  } else {
    event["check_square"] = nullptr;
  }
}

void Hub::ingest(json event) {
  if (!event.is_object()) return;
  const std::string type = string_field(event, "type");
  const double now = number_field(event, "time");
  if (type == "tournament_start") {
    tournament_ = event;
    tournament_end_ = nullptr;
  } else if (type == "tournament_end") {
    tournament_end_ = event;
  } else if (type == "game_start") {
    const std::string id = string_field(event, "game");
    if (id.empty()) return;
    GameRecord& record = games_[id];
    if (record.start.is_null()) order_.push_back(id);
    record.start = event;
    record.moves.clear();
    record.end = nullptr;
    auto game = games::make_game(string_field(event, "variant", "chess"), string_field(event, "start_fen"));
    record.game = game ? std::move(*game) : nullptr;
  } else if (type == "move") {
    auto it = games_.find(string_field(event, "game"));
    if (it == games_.end()) return;  // a move of a game never started: nothing to attach it to
    apply_move(it->second, event);
    it->second.moves.push_back(event);
    ++num_moves_;
    if (event.contains("failure") && !event["failure"].is_null()) ++num_failures_;
  } else if (type == "game_end") {
    auto it = games_.find(string_field(event, "game"));
    if (it == games_.end()) return;
    it->second.end = event;
    it->second.game.reset();
  } else if (type == "standings") {
    standings_ = event.value("rows", json::array());
  } else if (type == "metrics") {
    const std::string model = string_field(event, "model");
    if (string_field(event, "source") != "server") external_metrics_time_[model] = now;
    auto& samples = metrics_[model];
    samples.push_back(event);
    while (!samples.empty() && number_field(samples.front(), "time") < now - history_seconds_)
      samples.pop_front();
  } else {
    return;  // an unknown type is not forwarded
  }
  broadcast(event);
}

void Hub::broadcast(const json& event) {
  if (clients_.empty()) return;
  const std::string body = event.dump(-1, ' ', false, json::error_handler_t::replace);
  const bool may_drop = droppable(string_field(event, "type"));
  // deliver() may close a client, which calls leave(); iterate over a copy of the keys.
  std::vector<HubClient*> targets;
  for (const auto& [client, state] : clients_)
    if (wants(state.sub, event)) targets.push_back(client);
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

json Hub::game_summary(const std::string& id, const GameRecord& record) const {
  json s = {{"id", id},
            {"index", integer_field(record.start, "index")},
            {"variant", string_field(record.start, "variant")},
            {"first", string_field(record.start, "first")},
            {"second", string_field(record.start, "second")},
            {"start_fen", string_field(record.start, "start_fen")},
            {"opening", string_field(record.start, "opening")},
            {"plies", record.moves.size()},
            {"in_flight", record.end.is_null()}};
  if (record.moves.empty()) {
    s["fen"] = s["start_fen"];
    s["last_move"] = nullptr;
    s["check_square"] = nullptr;
    s["clock_ms"] = record.start.value("clock_ms", json());
  } else {
    const json& last = record.moves.back();
    s["fen"] = string_field(last, "fen");
    s["last_move"] = string_field(last, "uci");
    s["last_human"] = string_field(last, "human");
    s["check_square"] = last.value("check_square", json());
    s["clock_ms"] = last.value("clock_ms", json());
  }
  if (record.game) s["board"] = board_json(record.game->board_view());
  if (record.end.is_null()) {
    s["result"] = nullptr;
    s["reason"] = nullptr;
  } else {
    s["result"] = string_field(record.end, "result", "*");
    s["reason"] = string_field(record.end, "reason");
  }
  return s;
}

json Hub::tournament_json() const {
  const TournamentStats st = stats();
  json t = tournament_.is_null() ? json::object() : tournament_;
  t.erase("seq");
  t.erase("type");
  t["games_total"] = st.games_total;
  t["games_done"] = st.games_done;
  t["games_in_flight"] = st.games_in_flight;
  t["moves"] = st.moves;
  t["finished"] = !tournament_end_.is_null();
  t["interrupted"] = tournament_end_.is_null() ? false : bool_field(tournament_end_, "interrupted");
  return t;
}

json Hub::games_json() const {
  json list = json::array();
  for (const std::string& id : order_) list.push_back(game_summary(id, games_.at(id)));
  return list;
}

std::optional<json> Hub::game_json(const std::string& id) const {
  auto it = games_.find(id);
  if (it == games_.end()) return std::nullopt;
  json g = game_summary(id, it->second);
  g["clock_start_ms"] = it->second.start.value("clock_ms", json());
  g["moves"] = it->second.moves;
  g["pgn"] = game_pgn(it->second.start, it->second.moves, it->second.end);
  return g;
}

json Hub::standings_json() const {
  return standings_;
}

json Hub::metrics_history_json(double since) const {
  json models = json::object();
  for (const auto& [model, samples] : metrics_) {
    json list = json::array();
    for (const json& s : samples)
      if (number_field(s, "time") >= since) list.push_back(s);
    models[model] = std::move(list);
  }
  return json{{"models", models}, {"history_seconds", history_seconds_}};
}

TournamentStats Hub::stats() const {
  TournamentStats st;
  st.games_total = tournament_.is_null() ? 0 : integer_field(tournament_, "num_games");
  for (const auto& [id, record] : games_) (record.end.is_null() ? st.games_in_flight : st.games_done)++;
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
  json snap = {{"tournament", tournament_json()}, {"standings", standings_}};
  switch (sub.view) {
    case Subscription::View::Overview: {
      snap["view"] = "overview";
      json in_flight = json::array(), finished = json::array();
      for (const std::string& id : order_) {
        const GameRecord& record = games_.at(id);
        (record.end.is_null() ? in_flight : finished).push_back(game_summary(id, record));
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
