// Forsyth-Edwards Notation in and out, with Stockfish's conventions: the en-passant square is
// written only when a legal en-passant capture exists, and a FEN without its two move counters
// (an EPD position) reads as "0 1". Every malformed or impossible FEN gets a message naming
// the field and the problem.
#pragma once

#include <expected>
#include <string>
#include <string_view>

#include "games/chess/position.h"
#include "games/game.h"

namespace games::chess {

// The standard starting position.
inline constexpr std::string_view kStartFen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

// Reads a FEN; rejects malformed text and positions the rules cannot reach (wrong number of
// kings, pawns on the back ranks, the side not to move in check, castling rights without the
// king and rook at home, more promoted pieces than missing pawns).
std::expected<Position, GameError> parse_fen(std::string_view fen);

// The position as FEN.
std::string to_fen(const Position& pos);

// The piece as its FEN letter (uppercase white), or '.' for NoPiece.
char piece_char(Piece p);

}  // namespace games::chess
