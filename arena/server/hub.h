// The board server's hub: a TournamentObserver that keeps the live picture of the tournament from
// its events (events.h): the games in the tournament's own game records (game_record.h) with a
// board per game in flight, standings, progress and the last hour of engine metrics samples; and
// fans the events out to the WebSocket clients as JSON (docs/events.md, plus each move's
// `check_square`).
//
// Threading: on_event may be called from any thread (the runner's); it only posts the event to
// the server's io thread. Everything else (ingest, the read accessors used by REST, client
// joins and messages) runs on that one io thread, so the state needs no lock. Arena code never
// calls into sessions: sessions register here as HubClients.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arena/tournament/game_record.h"
#include "arena/tournament/observer.h"
#include "games/game.h"

namespace arena::server {

// What a WebSocket client watches: the overview (every game, standings, progress), one game,
// or the serving dashboard (metrics samples).
struct Subscription {
  enum class View { Overview, Game, Dashboard };
  View view = View::Overview;
  std::string game;  // with View::Game
};

// A WebSocket session as the hub sees it.
class HubClient {
 public:
  virtual ~HubClient() = default;
  // Queues one text message. A `droppable` message may be skipped by a congested client
  // (returns false; the client then sees a gap in seq and asks for a new snapshot). A client
  // whose queue is full closes itself and returns false.
  virtual bool deliver(std::shared_ptr<const std::string> message, bool droppable) = 0;
};

// Progress numbers for /metrics and the overview.
struct TournamentStats {
  int64_t games_total = 0, games_done = 0, games_in_flight = 0, moves = 0, failures = 0;
  int64_t ws_clients = 0;
};

class Hub final : public tournament::TournamentObserver {
 public:
  // `post` runs a function on the server's io thread (tests may run it at once).
  explicit Hub(std::function<void(std::function<void()>)> post, double history_seconds = 3600);

  // Any thread: posts the event to the io thread.
  void on_event(const tournament::Event& event) override;
  // Any thread: the events so far are void (`arena view` found its log replaced by a new run's);
  // posts reset().
  void post_reset();

  // --- io thread only ---
  // Applies one event to the state and sends it to the clients that watch it.
  void ingest(const tournament::Event& event);
  // Forgets every event; each client keeps its subscription and gets a fresh snapshot.
  void reset();
  // A client connected: it watches the overview and gets its snapshot.
  void join(HubClient* client);
  // A client went away.
  void leave(HubClient* client);
  // A text message from a client: {"type":"subscribe","view":...,"game":...}, {"type":"resync"},
  // {"type":"ping"}; anything else gets an error message back.
  void handle_message(HubClient* client, std::string_view text);

  // The snapshot of `sub`, without seq (REST uses these too).
  nlohmann::json snapshot(const Subscription& sub) const;
  nlohmann::json tournament_json() const;
  nlohmann::json games_json() const;
  // One game with its moves and PGN; nullopt for an unknown id.
  std::optional<nlohmann::json> game_json(const std::string& id) const;
  nlohmann::json standings_json() const;
  // {"models": {model: [samples oldest first]}}, samples newer than `since` (Unix seconds).
  nlohmann::json metrics_history_json(double since = 0) const;
  TournamentStats stats() const;
  // Whether a metrics sample for `model` came from the tournament within `seconds` of `now`
  // (the server then does not add its own samples for it).
  bool has_recent_external_metrics(const std::string& model, double now, double seconds) const;

 private:
  // What the hub adds to a move event: the checked king's square, and the move's notation when
  // the event had none (both from the hub's board), with the event's seq and time.
  struct MoveView {
    std::optional<int64_t> seq;
    double time = 0;
    std::optional<std::string> check_square;
    std::string human;
  };
  struct Board {
    std::unique_ptr<games::Game> game;  // the live position (in flight only)
    std::vector<MoveView> moves;        // one per move of the game's record
  };
  struct ClientState {
    Subscription sub;
    int64_t seq = 0;  // the last seq sent to this client
  };

  // Applies one event; false for one the hub cannot attach (a move of a game never started).
  bool apply(const tournament::Event& event);
  bool apply_game(const tournament::Event& event);
  void apply_metrics(const tournament::Event& event, const tournament::MetricsEvent& m);
  // Replays the move on the game's board: its check square and notation.
  MoveView replay(Board& board, const std::string& variant, const tournament::Event& event,
                  const tournament::MoveEvent& move);
  // The view of the move at `ply_index` (0-based) of the board, or an empty one.
  static const MoveView& view_of(const Board& board, size_t ply_index);
  nlohmann::json move_json(const tournament::MoveEvent& move, const MoveView& view) const;
  nlohmann::json event_json(const tournament::Event& event) const;
  void send_snapshot(HubClient* client, ClientState& state);
  void broadcast(const tournament::Event& event, const nlohmann::json& body);
  nlohmann::json game_summary(const tournament::GameRecord& record, const Board& board) const;

  std::function<void(std::function<void()>)> post_;
  double history_seconds_;
  std::optional<tournament::Event> tournament_;  // the tournament_start event
  std::optional<tournament::TournamentEnd> tournament_end_;
  tournament::GameBook book_;
  std::map<std::string, Board> boards_;
  std::vector<std::string> order_;  // game ids in start order
  tournament::StandingsEvent standings_;
  std::map<std::string, std::deque<tournament::Event>> metrics_;
  std::map<std::string, double> external_metrics_time_;
  int64_t num_moves_ = 0, num_failures_ = 0;
  double last_event_time_ = 0;  // of the newest event applied (a stalled run shows its age)
  std::map<HubClient*, ClientState> clients_;
};

}  // namespace arena::server
