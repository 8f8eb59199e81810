// The tournament schedule: every game to play, in order, decided before the first move from the
// config and the seed alone (so a resumed run plays the same games with the same colours and
// openings). Pairings: round robin (each pair once), double round robin (each pair twice) or a
// gauntlet (one agent against each other one); each pairing plays `games_per_pairing` games per
// variant in colour-swapped pairs sharing one opening. Openings: the variant's start position,
// an EPD/FEN list, a PGN file (chess; the first `plies` plies of each game), or for janggi the 16
// Cho/Han horse-elephant setups; taken in order or shuffled by the seed.
#pragma once

#include <cstdint>
#include <expected>
#include <string>
#include <vector>

#include "arena/config/config.h"

namespace arena::tournament {

// One scheduled game.
struct ScheduledGame {
  int32_t index = 0;  // 0-based position in the schedule
  std::string variant;
  int32_t first = 0;   // participant index playing first (white / Cho)
  int32_t second = 0;  // participant index playing second
  std::string start_fen;
  std::string opening;  // a label: the EPD id, the PGN moves, the janggi setups ("" = start)
  int32_t pair = -1;    // games 2k and 2k+1 of one pairing and opening share a pair id; -1 = none
};

// A player as the scheduler sees it: its name and the variants it can play.
struct SchedulePlayer {
  std::string name;
  std::vector<std::string> variants;  // the variants of the tournament it plays
};

// One opening: a position and its label.
struct Opening {
  std::string fen;
  std::string label;
};

// Reads the openings for `variant` from `config` (file relative to the current directory, as the
// config loader resolves it); empty when the variant starts from its standard position. An error
// names the file and the line.
std::expected<std::vector<Opening>, std::string> load_openings(const config::OpeningsConfig& config,
                                                               const std::string& variant);

// The 16 janggi setups (Cho's x Han's horse-elephant arrangements) as openings.
std::vector<Opening> janggi_setup_openings(const std::string& variant);

// The full schedule, or what prevents it (fewer than two players for a variant, a bad opening file).
std::expected<std::vector<ScheduledGame>, std::string> make_schedule(
    const config::TournamentConfig& config, const std::vector<SchedulePlayer>& players);

// A 64-bit mix of the values (splitmix64 steps): the runner's seeded choices use it so that they
// depend on the seed, the game index and the ply only, never on timing.
uint64_t mix_seed(uint64_t a, uint64_t b, uint64_t c = 0);

}  // namespace arena::tournament
