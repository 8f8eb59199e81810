// Janggi moves in the SAN that Fairy-Stockfish writes (and pychess-variants exports in its PGN):
// the piece letter (K general, A guard, E elephant, H horse, R chariot, C cannon, P soldier),
// the origin file, rank or square when another piece of the same kind could also reach the
// target, 'x' for a capture, the target square (files a-i, ranks 1-10), '+' or '#' for check or
// mate. A pass is the general moving to its own square ("Ke2").
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <vector>

namespace arena::tournament {

// The SAN of each UCI move of a janggi game under `variant` from `start_fen`, or the first move
// that is not legal.
std::expected<std::vector<std::string>, std::string> janggi_san_moves(std::string_view variant,
                                                                      std::string_view start_fen,
                                                                      const std::vector<std::string>& moves);

}  // namespace arena::tournament
