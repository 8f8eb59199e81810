// Fairy-Stockfish SAN for janggi (see janggi_san.h).
#include "arena/tournament/janggi_san.h"

#include <fmt/core.h>

#include "games/janggi/fen.h"
#include "games/janggi/movegen.h"
#include "games/janggi/rules.h"

namespace arena::tournament {
namespace {

using namespace games::janggi;

char san_letter(PieceType t) {
  constexpr char kLetters[] = "?KAEHRCP";
  return kLetters[t & 7];
}

std::string file_name(Square s) {
  return std::string(1, char('a' + file_of(s)));
}
std::string rank_name(Square s) {
  return std::to_string(rank_of(s) + 1);
}

std::string san(Position& pos, const Rules& rules, Move m, const MoveList& legal) {
  const Piece piece = pos.piece_on(m.from);
  const PieceType type = type_of(piece);
  std::string out(1, san_letter(type));
  if (!m.is_pass()) {
    // Other pieces of the same kind that could go to the same square.
    bool any = false, same_file = false, same_rank = false;
    for (Move o : legal) {
      if (o.is_pass() || o.to != m.to || o.from == m.from || type_of(pos.piece_on(o.from)) != type) continue;
      any = true;
      same_file = same_file || file_of(o.from) == file_of(m.from);
      same_rank = same_rank || rank_of(o.from) == rank_of(m.from);
    }
    if (any) {
      if (!same_file)
        out += file_name(m.from);
      else if (!same_rank)
        out += rank_name(m.from);
      else
        out += file_name(m.from) + rank_name(m.from);
    }
    if (pos.piece_on(m.to) != NoPiece) out += 'x';
  }
  out += square_name(m.to);
  pos.do_move(m);
  if (pos.in_check()) {
    MoveList replies;
    generate_legal(pos, rules, replies);
    out += replies.size > 0 ? '+' : '#';
  }
  pos.undo_move();
  return out;
}

}  // namespace

std::expected<std::vector<std::string>, std::string> janggi_san_moves(std::string_view variant,
                                                                      std::string_view start_fen,
                                                                      const std::vector<std::string>& moves) {
  const auto rules = rules_for_variant(variant);
  if (!rules) return std::unexpected(fmt::format("unknown janggi variant '{}'", variant));
  const std::string fen = start_fen.empty() ? games::janggi::start_fen() : std::string(start_fen);
  auto parsed = parse_fen(fen);
  if (!parsed) return std::unexpected(parsed.error().message);
  Position pos = std::move(*parsed);
  std::vector<std::string> out;
  for (const auto& text : moves) {
    MoveList legal;
    generate_legal(pos, *rules, legal);
    const Move* found = nullptr;
    for (const Move& m : legal)
      if (move_name(m) == text) found = &m;
    if (!found) return std::unexpected(fmt::format("move {} (ply {}) is not legal", text, out.size() + 1));
    const Move m = *found;
    out.push_back(san(pos, *rules, m, legal));
    pos.do_move(m);
  }
  return out;
}

}  // namespace arena::tournament
