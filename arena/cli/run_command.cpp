// `arena run CONFIG`: loads and checks the tournament config (every error at once, exit 2),
// writes the resolved config next to the results, opens the models the participants use,
// and runs (or resumes) the tournament until it is done or Ctrl-C stops it cleanly, after
// which it prints the command that resumes it. `--check` only validates. When the tournament
// ends with the board view up, the view stays up for `--linger` seconds (by default until Ctrl-C
// when run from a terminal, not at all otherwise) so the final boards and standings can be read.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "arena/cli/command.h"
#include "arena/cli/process_env.h"
#include "arena/config/loader.h"
#include "arena/config/resolved.h"
#include "arena/models/default_model.h"
#include "arena/models/model_registry.h"
#include "arena/models/run_setup.h"
#include "arena/server/board_server.h"
#include "arena/tournament/run_lock.h"
#include "arena/tournament/runner.h"

namespace arena::cli {

namespace {

struct RunFlags {
  std::string config;
  bool check = false;
  std::optional<std::string> output;
  std::optional<int32_t> web_port;
  std::vector<std::string> allowed_hosts, allowed_origins;  // added to web.allowed_hosts / _origins
  std::optional<uint64_t> seed;
  std::optional<int32_t> concurrency;
  std::optional<int32_t> games;
  std::optional<std::string> resume;
  std::string log_level = "info";
  bool quiet = false;
  std::optional<double> linger;  // seconds the board view outlives the run; < 0 = until Ctrl-C
};

// Set by SIGINT / SIGTERM; the runner polls it and stops cleanly. A signal handler can only
// touch a lock-free atomic, hence this one file-level variable.
std::atomic<bool> g_stop{false};

extern "C" void on_stop_signal(int) {
  g_stop.store(true);
  constexpr char kMessage[] =
      "\narena run: stopping: recording the games in flight (Ctrl-C again quits at once)\n";
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
}

// Installs the stop handlers for its lifetime (one-shot: a second signal has its default effect).
class StopSignals {
 public:
  StopSignals() {
    struct sigaction action = {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ = {}, old_term_ = {};
};

int fail(const std::string& message) {
  fmt::print(stderr, "arena run: error: {}\n", message);
  return 1;
}

// Keeps the board view at `url` up after the tournament: for `linger` seconds (< 0: until
// Ctrl-C; unset: until Ctrl-C when stdin and stderr are terminals, else not at all).
void linger_board(const std::string& url, std::optional<double> linger) {
  const bool interactive = ::isatty(STDIN_FILENO) && ::isatty(STDERR_FILENO);
  const double seconds = linger.value_or(interactive ? -1.0 : 0.0);
  if (seconds == 0) return;
  if (seconds < 0)
    fmt::print(stderr, "arena run: the board view stays at {} until Ctrl-C\n", url);
  else
    fmt::print(stderr, "arena run: the board view stays at {} for {:g} s (Ctrl-C ends it)\n", url, seconds);
  g_stop.store(false);
  StopSignals signals;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!g_stop.load() && (seconds < 0 || std::chrono::steady_clock::now() < until))
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

// The shell-quoted word `s` (for the printed resume command).
std::string shell_word(const std::string& s) {
  if (!s.empty() &&
      s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./+=:@") ==
          std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Refuses to resume into `dir` with a config that would play a different tournament.
std::optional<std::string> check_resume(const std::filesystem::path& dir, const config::Config& now) {
  const auto saved = dir / config::kResolvedConfigFile;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(saved, ec))
    return fmt::format("cannot resume: {} has no {} (is it the results folder of an arena run?)",
                       dir.string(), config::kResolvedConfigFile);
  config::LoadOptions options;
  options.check_files = false;
  options.get_env = process_env;
  const auto before = config::load_config(saved, options);
  if (!before)
    return fmt::format("cannot resume: the saved config {} does not load:\n{}", saved.string(),
                       config::format_diagnostics(before.error()));
  const auto diffs = config::diff_configs(*before, now);
  if (diffs.empty()) return std::nullopt;
  return fmt::format(
      "cannot resume {}: the config differs from the one the tournament started with in {} field{} "
      "(only output, web and concurrency may change):\n{}",
      dir.string(), diffs.size(), diffs.size() == 1 ? "" : "s", config::format_diff(diffs));
}

// The config of `f` with the command line's overrides; its warnings and errors printed (nullopt
// for errors).
std::optional<config::Config> load(const RunFlags& f) {
  config::LoadOptions options;
  options.get_env = process_env;
  options.default_model_path = models::default_model_path(f.config, process_env);
  options.overrides.output_dir = f.resume ? f.resume : f.output;
  options.overrides.web_port = f.web_port;
  options.overrides.allowed_hosts = f.allowed_hosts;
  options.overrides.allowed_origins = f.allowed_origins;
  options.overrides.seed = f.seed;
  options.overrides.concurrency = f.concurrency;
  options.overrides.games_per_pairing = f.games;
  std::vector<config::Diagnostic> warnings;
  options.warnings = &warnings;
  auto loaded = config::load_config(f.config, options);
  for (const auto& w : warnings)
    fmt::print(stderr, "{}\n", w.to_string().insert(w.to_string().find(": ") + 2, "warning: "));
  if (!loaded) {
    for (const auto& e : loaded.error()) fmt::print(stderr, "{}\n", e.to_string());
    fmt::print(stderr, "arena run: {} error{} in {}; docs/config.md describes every field\n",
               loaded.error().size(), loaded.error().size() == 1 ? "" : "s", f.config);
    return std::nullopt;
  }
  return std::move(*loaded);
}

// The output folder for a new run (created, with the resolved config) or a resumed one (checked),
// locked against a second run for as long as `lock` lives; what is wrong, or nullopt.
std::optional<std::string> prepare_output(const RunFlags& f, const config::Config& config,
                                          const std::filesystem::path& output_dir,
                                          std::optional<tournament::RunLock>& lock) {
  std::error_code ec;
  if (!f.resume) std::filesystem::create_directories(output_dir, ec);
  if (ec) return fmt::format("cannot create the output folder {}: {}", output_dir.string(), ec.message());
  if (std::filesystem::is_directory(output_dir, ec)) {
    auto locked = tournament::RunLock::acquire(output_dir);
    if (!locked) return locked.error();
    lock = std::move(*locked);
  }
  if (f.resume) return check_resume(output_dir, config);
  if (std::filesystem::exists(output_dir / "events.jsonl", ec))
    return fmt::format(
        "{} already holds a tournament: resume it with `arena run {} --resume {}`, or choose another folder "
        "with --output",
        output_dir.string(), shell_word(f.config), shell_word(output_dir.string()));
  std::ofstream out(output_dir / config::kResolvedConfigFile);
  out << config::resolved_yaml(config);
  if (!out) return fmt::format("cannot write {}", (output_dir / config::kResolvedConfigFile).string());
  return std::nullopt;
}

int run(const RunFlags& f) {
  if (f.quiet)
    spdlog::set_level(spdlog::level::warn);
  else
    spdlog::set_level(spdlog::level::from_str(f.log_level));

  auto loaded = load(f);
  if (!loaded) return kUsageExitCode;
  config::Config& config = *loaded;
  const std::string hash = config::config_hash(config);
  if (f.check) {
    fmt::print(
        "{}: ok: {} agents ({} playing), {} model{}, games: {}, format {}, {} games per pairing, hash {}\n",
        f.config, config.agents.size(), config.tournament.agents.size(), config.models.size(),
        config.models.size() == 1 ? "" : "s", config::join_names(config.tournament.games),
        config::to_string(config.tournament.format), config.tournament.games_per_pairing, hash);
    return 0;
  }

  const std::filesystem::path output_dir = config.output.dir;
  std::optional<tournament::RunLock> lock;  // held until the run returns
  if (auto refusal = prepare_output(f, config, output_dir, lock)) return fail(*refusal);

  auto setup = models::prepare_run(config, process_env);
  if (!setup) return fail(setup.error());

  tournament::RunOptions run_options;
  run_options.output_dir = output_dir;
  run_options.resume = f.resume.has_value();
  run_options.config_hash = hash;
  run_options.quiet = f.quiet;
  run_options.stop = &g_stop;
  run_options.get_env = process_env;
  run_options.ratings = config.ratings;
  // The board server: web.port != 0 starts it (bound to web.bind); its hub observes the tournament.
  // Declared after the models, so it stops before the engines it samples go away.
  std::unique_ptr<server::BoardServer> board;
  if (config.web.port != 0) {
    auto started = server::BoardServer::start(config.web, server::find_assets_dir(), (*setup)->engines);
    if (!started) return fail(started.error());
    board = std::move(*started);
    run_options.observer = board->observer();
    fmt::print(stderr, "arena run: board view at {}\n", board->url());
  }

  spdlog::info("config {} (hash {}); results and the resolved config in {}", f.config, hash,
               output_dir.string());
  g_stop.store(false);
  StopSignals signals;
  const auto summary = tournament::run_tournament(config.tournament, std::move((*setup)->participants),
                                                  std::move((*setup)->engines), run_options);
  std::fflush(stdout);  // the runner's standings first, then the resume command last
  if (!summary) return fail(summary.error());
  if (summary->interrupted) {
    fmt::print(stderr,
               "arena run: interrupted after {} of {} games; results so far are in {}\nresume with: arena "
               "run {} --resume {}\n",
               summary->games_done, summary->games_total, output_dir.string(), shell_word(f.config),
               shell_word(output_dir.string()));
    return 130;
  }
  fmt::print("arena run: {} games played{}; results in {}\n", summary->games_done,
             summary->sprt_stopped ? " (stopped early: the SPRT decided)" : "", output_dir.string());
  std::fflush(stdout);
  if (board) linger_board(board->url(), f.linger);
  return 0;
}

}  // namespace

void add_run_command(CLI::App& root, Action& action) {
  auto flags = std::make_shared<RunFlags>();
  RunFlags& f = *flags;
  auto* cmd = root.add_subcommand("run", "Run a tournament from a YAML config (docs/config.md)");
  cmd->add_option("config", f.config, "The tournament config (YAML)")->required();
  cmd->add_flag("--check", f.check, "Only validate the config (every error at once) and exit");
  cmd->add_option("--output", f.output, "Results folder (overrides output.dir)");
  cmd->add_option("--web-port", f.web_port, "Board server port, 0 = none (overrides web.port)");
  cmd->add_option("--allowed-host", f.allowed_hosts,
                  "A host name the board server also answers to (repeatable; adds to web.allowed_hosts)")
      ->expected(1)
      ->allow_extra_args(false)
      ->take_all();
  cmd->add_option("--allowed-origin", f.allowed_origins,
                  "A browser origin whose pages may open /ws (repeatable; adds to web.allowed_origins)")
      ->expected(1)
      ->allow_extra_args(false)
      ->take_all();
  cmd->add_option("--seed", f.seed, "Tournament seed (overrides tournament.seed)");
  cmd->add_option("--concurrency", f.concurrency, "Games in flight (overrides tournament.concurrency)");
  cmd->add_option("--games", f.games, "Games per pairing, even (overrides tournament.games_per_pairing)");
  cmd->add_option("--resume", f.resume, "Continue the interrupted tournament in this results folder");
  cmd->add_option("--log-level", f.log_level, "trace, debug, info, warn, error or off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
  cmd->add_flag("--quiet", f.quiet, "No status line or progress; warnings and errors only");
  cmd->add_option("--linger", f.linger,
                  "Seconds the board view stays up after the tournament ends; -1 = until Ctrl-C "
                  "(default: until Ctrl-C from a terminal, 0 otherwise)")
      ->check(number_in(-1, 1e9));
  cmd->callback([flags, &action] {
    if (flags->resume && flags->output && *flags->resume != *flags->output)
      throw CLI::ValidationError("--output", "give --resume DIR alone (the results folder is DIR)");
    action = [flags] { return run(*flags); };
  });
}

}  // namespace arena::cli
