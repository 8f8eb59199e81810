// The tournament config as typed structs: what `arena run CONFIG` reads (arena/config/loader.h
// parses YAML into these, with every default filled in and every error reported with
// file:line:col). Each component receives only its own sub-struct: the model registry gets
// `models`, the agent factory each `AgentConfig`, the runner `tournament`, the server `web`.
// docs/config.md documents every field.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agents/agent_config.h"
#include "base/enum_names.h"
#include "engine/api.h"

namespace arena::config {

// One model of `models:`: a GGUF file and the knobs of the one engine serving it.
struct ModelConfig {
  std::string name;
  std::string path;             // resolved against the config file's folder
  std::string chat_template;    // "" = the file's own template
  int32_t threads = 0;          // 0 = all cores
  engine::EngineConfig engine;  // scheduler (max_num_seqs, max_num_batched_tokens, max_queue) and
                                // cache (block_size, dtype, kv_cache_bytes, prefix cache)
};

enum class Format { RoundRobin, DoubleRoundRobin, Gauntlet };
enum class OpeningOrder { Sequential, Random };
// What happens when an agent has not answered by the end of its move's time.
enum class DeadlinePolicy {
  Wait,         // keep waiting (only the clock, if any, can end the game)
  RandomMove,   // play a random legal move for it
  ForfeitMove,  // the move is lost: pass where the rules allow (janggi), otherwise random
  LossOnTime,   // the game is lost
};

// Each enum's names, as the YAML config spells them: the one table that to_string and parse read.
inline constexpr base::EnumTable<Format, 3> kFormatNames{{{Format::RoundRobin, "round_robin"},
                                                          {Format::DoubleRoundRobin, "double_round_robin"},
                                                          {Format::Gauntlet, "gauntlet"}}};
inline constexpr base::EnumTable<OpeningOrder, 2> kOpeningOrderNames{
    {{OpeningOrder::Sequential, "sequential"}, {OpeningOrder::Random, "random"}}};
inline constexpr base::EnumTable<DeadlinePolicy, 4> kDeadlinePolicyNames{
    {{DeadlinePolicy::Wait, "wait"},
     {DeadlinePolicy::RandomMove, "random_move"},
     {DeadlinePolicy::ForfeitMove, "forfeit_move"},
     {DeadlinePolicy::LossOnTime, "loss_on_time"}}};

const char* to_string(Format v);
const char* to_string(OpeningOrder v);
const char* to_string(DeadlinePolicy v);
std::optional<Format> parse_format(std::string_view s);
std::optional<OpeningOrder> parse_opening_order(std::string_view s);
std::optional<DeadlinePolicy> parse_deadline_policy(std::string_view s);

struct OpeningsConfig {
  std::string file;  // EPD/FEN lines or a PGN file ("" = the variant's start position)
  OpeningOrder order = OpeningOrder::Sequential;
  int32_t plies = 0;  // PGN openings: play at most this many plies of each (0 = all)
  // Janggi: play every game from one of the 16 Cho/Han horse-elephant setups, cycling.
  bool janggi_setups = false;
};

struct ClockConfig {
  std::chrono::milliseconds base{0};
  std::chrono::milliseconds increment{0};
};

struct AdjudicationConfig {
  int32_t max_plies = 400;  // a game still going after this many plies is a draw ("max plies")
  // Draw / resign by a referee engine's score, as cutechess's -draw / -resign.
  std::string referee;                       // name of a `uci` agent used as referee ("" = none)
  std::optional<int32_t> draw_move_number;   // draw rule: from this move number on,
  int32_t draw_move_count = 8;               // this many consecutive moves per side
  int32_t draw_score_cp = 10;                // with |score| <= this
  std::optional<int32_t> resign_move_count;  // resign rule: this many consecutive moves
  int32_t resign_score_cp = 1000;            // with score <= -this for the same side
  bool janggi_counting = true;               // janggi: material counting decides a max-plies game
  // The referee's agent config, copied from `agents:` by the loader once the name checks out
  // (not a field of its own: the runner starts the referee engine from it).
  std::optional<agents::AgentConfig> referee_agent;
};

struct SprtConfig {
  double elo0 = 0;
  double elo1 = 5;
  double alpha = 0.05;
  double beta = 0.05;
};

struct TournamentConfig {
  std::vector<std::string> games = {"chess"};  // variants played; games alternate between them
  Format format = Format::RoundRobin;
  std::string gauntlet_seed_agent;  // gauntlet: the agent that plays every other ("" = the first)
  std::vector<std::string> agents;  // participants by name ("" list = every agent of the config)
  int32_t games_per_pairing = 2;    // per variant; played in colour-swapped pairs (even)
  OpeningsConfig openings;
  int32_t concurrency = 4;                     // games in flight
  std::chrono::milliseconds tick{1000};        // tick period
  std::chrono::milliseconds move_deadline{0};  // 0 = one tick
  DeadlinePolicy deadline_policy = DeadlinePolicy::Wait;
  std::optional<ClockConfig> clock;
  AdjudicationConfig adjudication;
  std::optional<SprtConfig> sprt;  // two agents only: stop early when the test decides
  uint64_t seed = 1;
};

// ratings: the pool ratings over every game of the run (arena/tournament/pool_ratings.h).
struct RatingsConfig {
  std::map<std::string, double> anchors;             // agents held at these ratings
  double mean = 0;                                   // the pool's mean rating when there is no anchor
  std::optional<double> first_move_advantage = 0.0;  // Elo for every variant; null = fitted per variant
  int32_t simulations = 1000;                        // for the error bars (0 = none)
  double confidence = 95;                            // percent, of the error bars
};

struct OutputConfig {
  std::string dir = "results";  // resolved against the current directory
};

struct WebConfig {
  std::string bind = "127.0.0.1";
  int32_t port = 8080;  // 0 = no server
  // Host names the server also answers to, beyond its bind address (and localhost on a loopback
  // bind): the name a reverse proxy forwards. Lower-case (docs/security.md).
  std::vector<std::string> allowed_hosts;
  // Browser origins whose pages may open /ws and POST, beyond the server's own ("https://x.org").
  std::vector<std::string> allowed_origins;
};

struct Config {
  std::string source_path;  // the config file
  std::vector<ModelConfig> models;
  std::vector<agents::AgentConfig> agents;
  TournamentConfig tournament;
  RatingsConfig ratings;
  OutputConfig output;
  WebConfig web;
};

}  // namespace arena::config
