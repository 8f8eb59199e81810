// Janggi FEN as Fairy-Stockfish reads and writes it, and the 16 starting setups.
// "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1": ranks 10 to 1,
// files a to i, Cho uppercase (K general, A guard, B elephant, N horse, R chariot, C cannon,
// P soldier; E and H are read as elephant and horse), then side to move (w = Cho, b = Han),
// two '-' fields, the plies since the last capture and the move number.
#pragma once

#include <array>
#include <expected>
#include <string>
#include <string_view>

#include "games/game.h"
#include "games/janggi/position.h"

namespace games::janggi {

// Reads a FEN; the message names the field and what is wrong with it.
std::expected<Position, GameError> parse_fen(std::string_view fen);

// Writes the position as FEN.
std::string format_fen(const Position& pos);

// How a player sets up the horses (마) and elephants (상) of the back rank, read from that
// player's own left to right (for Han, from file i to file a).
enum class Setup {
  HorseElephantElephantHorse,  // 마상상마 (Fairy-Stockfish's default for both sides)
  ElephantHorseHorseElephant,  // 상마마상
  HorseElephantHorseElephant,  // 마상마상
  ElephantHorseElephantHorse,  // 상마상마
};
inline constexpr std::array<Setup, 4> kAllSetups = {
    Setup::HorseElephantElephantHorse, Setup::ElephantHorseHorseElephant, Setup::HorseElephantHorseElephant,
    Setup::ElephantHorseElephantHorse};

// The setup's Korean name, e.g. "마상상마".
std::string_view setup_name(Setup setup);

// The starting FEN with Cho using `cho` and Han using `han`.
std::string start_fen(Setup cho = Setup::HorseElephantElephantHorse,
                      Setup han = Setup::HorseElephantElephantHorse);

}  // namespace games::janggi
