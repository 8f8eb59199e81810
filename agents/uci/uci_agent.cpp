// UciAgent: the UCI protocol over a UciProcess, run on the agent's worker thread (see uci_agent.h).
#include "agents/uci/uci_agent.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <future>

#include "agents/agent_support.h"
#include "games/game.h"

namespace agents {
namespace {

using namespace std::chrono_literals;
using Read = uci::UciProcess::Read;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The executable `command` names: itself when it holds a '/', else the first match on `path`
// (':'-separated) or in /usr/games and /usr/local/games, where Debian puts engines.
std::expected<std::string, std::string> find_executable(const std::string& command, const std::string& path) {
  namespace fs = std::filesystem;
  auto usable = [](const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
  };
  if (command.find('/') != std::string::npos) {
    if (usable(command)) return command;
    return std::unexpected("engine '" + command + "' does not exist or is not executable");
  }
  std::vector<std::string> dirs;
  for (size_t start = 0; start <= path.size();) {
    const size_t end = std::min(path.find(':', start), path.size());
    if (end > start) dirs.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  dirs.insert(dirs.end(), {"/usr/games", "/usr/local/games"});
  for (const auto& dir : dirs)
    if (usable(fs::path(dir) / command)) return (fs::path(dir) / command).string();
  return std::unexpected("engine '" + command + "' not found on PATH or in /usr/games (is it installed?)");
}

MoveResult failure(FailureKind kind, std::string message) {
  MoveResult result;
  result.failure = MoveFailure{kind, std::move(message)};
  return result;
}

// Why the move of a `bestmove` line (`line`) cannot be played, or nullopt when it is legal.
std::optional<MoveFailure> check_bestmove(const MoveRequest& request, const std::string& variant,
                                          const std::string& line, const std::string& move) {
  if (move.empty() || move == "(none)" || move == "0000" || !uci::is_move_syntax(variant, move))
    return MoveFailure{FailureKind::Unparseable, fmt::format("engine answered '{}', not a move", line)};
  const auto legal = request.game->legal_moves();
  if (std::find(legal.begin(), legal.end(), move) == legal.end())
    return MoveFailure{FailureKind::Illegal, fmt::format("engine answered {}, which is not legal in {}", move,
                                                         request.game->fen())};
  return std::nullopt;
}

}  // namespace

std::expected<std::unique_ptr<Agent>, AgentError> make_uci_agent(const AgentConfig& config,
                                                                 const AgentEnvironment& env) {
  const auto& uci = std::get<UciAgentConfig>(config.params);
  const std::string who = "agent '" + config.name + "': ";
  if (uci.command.empty())
    return std::unexpected(AgentError{who + "a uci agent needs a command (the engine)"});
  if (uci.threads < 1 || uci.hash_mb < 1)
    return std::unexpected(AgentError{who + "threads and hash_mb must be positive"});
  if (uci.startup_timeout.count() < 1 || uci.move_margin.count() < 0)
    return std::unexpected(AgentError{who + "startup_timeout must be positive and move_margin not negative"});
  for (const auto& [name, value] : uci.options)
    if (auto problem = uci_option_problem(name, value)) return std::unexpected(AgentError{who + *problem});
  std::optional<std::string> path = env.get_env ? env.get_env("PATH") : std::nullopt;
  auto executable = find_executable(uci.command, path.value_or("/usr/local/bin:/usr/bin:/bin"));
  if (!executable) return std::unexpected(AgentError{who + executable.error()});
  auto agent = std::make_unique<UciAgent>(config.name, config.variants, uci, *executable);
  if (auto error = agent->start()) return std::unexpected(AgentError{who + *error});
  for (const auto& variant : config.variants)
    if (!agent->supports(variant))
      return std::unexpected(
          AgentError{who + "engine " + agent->engine_name() + " does not play " + variant});
  return agent;
}

UciAgent::UciAgent(std::string name, std::vector<std::string> variants, UciAgentConfig config,
                   std::string executable)
    : name_(std::move(name)),
      variants_(std::move(variants)),
      config_(std::move(config)),
      executable_(std::move(executable)) {}

UciAgent::~UciAgent() {
  closing_ = true;
  std::lock_guard lock(cancel_mutex_);
  if (current_cancel_) *current_cancel_ = true;
  // worker_ (declared last) is destroyed first; its jobs see closing_ and return at once.
}

std::optional<std::string> UciAgent::start() {
  if (auto error = launch()) return error->message;
  // The variants it plays: those of its UCI_Variant option that arena knows, or chess alone.
  const auto known = games::game_variants();
  const auto variant =
      std::find_if(options_.begin(), options_.end(), [](auto& o) { return o.name == "UCI_Variant"; });
  for (const auto& v : known)
    if (variant == options_.end()
            ? v == "chess"
            : std::find(variant->vars.begin(), variant->vars.end(), v) != variant->vars.end())
      playable_.insert(v);
  // Options the config asks for must exist (a typo would otherwise be silently ignored).
  for (const auto& [key, value] : config_.options)
    if (!has_option(key)) return fmt::format("engine {} has no option '{}'", engine_name_, key);
  if (config_.skill_level && !has_option("Skill Level"))
    return fmt::format("engine {} has no 'Skill Level' option", engine_name_);
  if (config_.elo && !has_option("UCI_Elo"))
    return fmt::format("engine {} has no 'UCI_Elo' option", engine_name_);
  return std::nullopt;
}

bool UciAgent::has_option(const std::string& name) const {
  return std::any_of(options_.begin(), options_.end(), [&](auto& o) { return o.name == name; });
}

bool UciAgent::supports(std::string_view variant) const {
  return playable_.contains(variant) && variant_allowed(variants_, variant);
}

int UciAgent::engine_pid() const {
  std::lock_guard lock(process_mutex_);
  return process_ && process_->open() ? process_->pid() : -1;
}

void UciAgent::drop_engine() {
  needs_restart_ = true;
  std::lock_guard lock(process_mutex_);
  if (process_) process_->kill();
}

std::optional<MoveFailure> UciAgent::launch() {
  {
    std::lock_guard lock(process_mutex_);
    process_.reset();  // kills and reaps the old one
    auto started = uci::UciProcess::start(executable_, config_.args);
    if (!started) return MoveFailure{FailureKind::Crashed, started.error()};
    process_ = std::move(*started);
  }
  needs_drain_ = false;
  needs_restart_ = false;
  variant_.clear();
  auto& p = *process_;
  p.send("uci");
  const auto until = Clock::now() + config_.startup_timeout;
  std::vector<uci::OptionInfo> options;
  std::string line, name;
  for (;;) {
    const Read r = p.read_line(line, until);
    if (r == Read::Timeout) {
      drop_engine();
      return MoveFailure{FailureKind::Timeout,
                         fmt::format("engine {} did not answer 'uci' with 'uciok' within {} ms", executable_,
                                     config_.startup_timeout.count())};
    }
    if (r != Read::Line)
      return MoveFailure{FailureKind::Crashed, "engine " + executable_ + " " + p.exit_reason()};
    if (line.rfind("id name ", 0) == 0) name = line.substr(8);
    if (auto option = uci::parse_option(line)) options.push_back(std::move(*option));
    if (line == "uciok") break;
  }
  // A restart runs the same binary: the first handshake's name and options stay (read elsewhere).
  if (options_.empty()) options_ = std::move(options);
  if (engine_name_.empty()) engine_name_ = name.empty() ? executable_ : name;
  auto set = [&](const std::string& name, const std::string& value) {
    if (has_option(name)) p.send("setoption name " + name + " value " + value);
  };
  set("Threads", std::to_string(config_.threads));
  set("Hash", std::to_string(config_.hash_mb));
  if (config_.skill_level) set("Skill Level", std::to_string(*config_.skill_level));
  if (config_.elo) {
    set("UCI_LimitStrength", "true");
    set("UCI_Elo", std::to_string(*config_.elo));
  }
  for (const auto& [key, value] : config_.options) set(key, value);
  return sync(config_.startup_timeout, nullptr);
}

std::optional<MoveFailure> UciAgent::sync(std::chrono::milliseconds timeout,
                                          const std::atomic<bool>* cancel) {
  auto& p = *process_;
  p.send("isready");
  const auto until = Clock::now() + timeout;
  std::string line;
  for (;;) {
    const Read r = p.read_line(line, until, cancel);
    if (r == Read::Line && line == "readyok") break;
    if (r == Read::Line) continue;  // a late bestmove or info of an earlier search
    if (r == Read::Cancelled)
      return MoveFailure{FailureKind::Cancelled, "cancelled while waiting for readyok"};
    if (r == Read::Timeout) {
      drop_engine();
      return MoveFailure{FailureKind::Timeout, fmt::format("engine {} did not answer 'isready' within {} ms",
                                                           engine_name_, timeout.count())};
    }
    return MoveFailure{FailureKind::Crashed, "engine " + engine_name_ + " " + p.exit_reason()};
  }
  return std::nullopt;
}

std::optional<MoveFailure> UciAgent::new_game(const GameStart& start) {
  if (!supports(start.variant))
    return MoveFailure{FailureKind::BackendError,
                       fmt::format("{} does not play {}", engine_name_, start.variant)};
  std::promise<std::optional<MoveFailure>> done;
  auto result = done.get_future();
  worker_.post([&] {
    try {
      if (needs_restart_ || !process_ || !process_->open()) {
        if (auto error = launch()) {
          done.set_value(error);
          return;
        }
      }
      done.set_value(begin_game(start.variant));
    } catch (const std::exception& e) {
      done.set_value(MoveFailure{FailureKind::Crashed, std::string("starting the game failed: ") + e.what()});
    }
  });
  return result.get();  // the job is bounded by the timeouts above
}

std::optional<MoveFailure> UciAgent::begin_game(const std::string& variant) {
  variant_ = variant;
  if (has_option("UCI_Variant")) process_->send("setoption name UCI_Variant value " + variant);
  process_->send("ucinewgame");
  return sync(config_.startup_timeout, nullptr);
}

void UciAgent::end_game(const GameEnd&) {}

std::shared_ptr<MoveTicket> UciAgent::start_move(const MoveRequest& request) {
  auto ticket = std::make_shared<MoveTicket>();
  ticket->set_on_ready(request.on_ready);
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  ticket->set_cancel_hook([cancel] { *cancel = true; });
  worker_.post([this, ticket, cancel, request] {
    const auto started = Clock::now();
    MoveResult result;
    if (closing_ || *cancel) {
      result = failure(FailureKind::Cancelled, "cancelled before the engine was asked");
    } else {
      {
        std::lock_guard lock(cancel_mutex_);
        current_cancel_ = cancel;
      }
      result = play(request, *cancel);
      std::lock_guard lock(cancel_mutex_);
      current_cancel_.reset();
    }
    result.total_seconds = seconds_since(started);
    ticket->resolve(std::move(result));
    if (needs_drain_) drain();
  });
  return ticket;
}

void UciAgent::drain() {
  needs_drain_ = false;
  if (!process_ || needs_restart_) return;
  // Engines answer `stop` at once; one that does not within a second is not trusted again.
  const auto until = Clock::now() + 1000ms;
  std::string line;
  for (;;) {
    const Read r = process_->read_line(line, until, &closing_);
    if (r == Read::Line && uci::parse_bestmove(line)) return;
    if (r == Read::Line) continue;
    if (r != Read::Closed) drop_engine();
    return;
  }
}

MoveResult UciAgent::play(const MoveRequest& request, const std::atomic<bool>& cancel) {
  if (!request.game) return failure(FailureKind::BackendError, "no position was given");
  if (needs_restart_)
    return failure(FailureKind::Crashed, "engine " + engine_name_ + " was stopped after an earlier failure");
  if (!process_ || !process_->open())
    return failure(FailureKind::Crashed, "engine " + engine_name_ + " is not running" +
                                             (process_ ? " (" + process_->exit_reason() + ")" : ""));
  auto& p = *process_;
  const GameLine game = game_line(request);
  if (game.variant != variant_) {  // asked without new_game (or for another variant): set it up
    if (!supports(game.variant))
      return failure(FailureKind::BackendError,
                     fmt::format("{} does not play {}", engine_name_, game.variant));
    if (auto error = begin_game(game.variant)) return failure(error->kind, error->message);
  }
  const auto now = Clock::now();
  // (A request without a deadline gets a minute.)
  const auto deadline = request.deadline == Clock::time_point{} ? now + 60s : request.deadline;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
  const std::string position = uci::position_command(game.start_fen, game.moves);
  // The engine's own budget ends a little before the deadline (a tenth of the time left, at most
  // 50 ms): a configured movetime beyond that is shortened to it.
  const auto budget = std::max(10ms, left - std::min(50ms, left / 10));
  std::optional<std::chrono::milliseconds> movetime = config_.movetime;
  if (movetime) movetime = std::min(*movetime, budget);
  const std::string go = uci::go_command({movetime, config_.depth, config_.nodes}, request.clock, budget);
  MoveResult result;
  result.prompt = position + "\n" + go;
  p.send(position);
  p.send(go);
  return read_answer(request, game.variant, deadline + config_.move_margin, cancel, std::move(result));
}

MoveResult UciAgent::read_answer(const MoveRequest& request, const std::string& variant,
                                 Clock::time_point until, const std::atomic<bool>& cancel,
                                 MoveResult result) {
  auto& p = *process_;
  std::string line, last_info;
  for (;;) {
    const Read r = p.read_line(line, until, &cancel);
    if (r == Read::Closed) {
      result.failure = MoveFailure{FailureKind::Crashed, "engine " + engine_name_ + " " + p.exit_reason()};
      return result;
    }
    if (r == Read::Timeout) {
      p.send("stop");
      drop_engine();
      result.failure =
          MoveFailure{FailureKind::Timeout, fmt::format("engine {} gave no bestmove by the deadline "
                                                        "(+{} ms margin)",
                                                        engine_name_, config_.move_margin.count())};
      result.raw = last_info;
      return result;
    }
    if (r == Read::Cancelled) {
      p.send("stop");
      if (closing_)
        drop_engine();
      else
        needs_drain_ = true;  // the stopped search's bestmove is read after the ticket resolves
      result.failure = MoveFailure{FailureKind::Cancelled, "cancelled while the engine was thinking"};
      result.raw = last_info;
      return result;
    }
    if (auto best = uci::parse_bestmove(line)) {
      result.raw = last_info.empty() ? line : last_info + "\n" + line;
      result.failure = check_bestmove(request, variant, line, *best);
      if (result.failure)
        drop_engine();
      else
        result.move = *best;
      return result;
    }
    if (line.rfind("info", 0) == 0) {
      if (auto score = uci::parse_info_score(line)) {
        result.score_cp = score->cp;
        result.mate_in = score->mate;
        last_info = line;
      }
      continue;
    }
    if (!uci::is_engine_message(line)) {
      drop_engine();
      result.raw = line;
      result.failure =
          MoveFailure{FailureKind::Unparseable,
                      fmt::format("engine wrote '{}', which is not a UCI message", line.substr(0, 200))};
      return result;
    }
  }
}

}  // namespace agents
