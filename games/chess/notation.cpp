// UCI and SAN writing and reading. Reading never guesses: the text is matched against the legal
// moves, and when nothing matches, the error says which piece could not go where, and why.
#include "games/chess/notation.h"

#include <fmt/format.h>

#include <cctype>
#include <optional>
#include <vector>

#include "games/chess/movegen.h"

namespace games::chess {

namespace {

constexpr std::string_view kPieceLetters = "PNBRQK";
constexpr const char* kPieceNames[] = {"pawn", "knight", "bishop", "rook", "queen", "king"};

const char* color_name(Color c) {
  return c == White ? "white" : "black";
}

std::string printable(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size() && i < 40; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    out += (c >= 32 && c < 127) ? std::string(1, char(c)) : fmt::format("\\x{:02x}", c);
  }
  return text.size() > 40 ? out + "..." : out;
}

std::unexpected<GameError> illegal(std::string_view text, const std::string& why) {
  return std::unexpected(GameError{fmt::format("illegal move {}: {}", printable(text), why)});
}

std::optional<PieceType> promotion_piece(char c) {
  switch (std::tolower(static_cast<unsigned char>(c))) {
    case 'n':
      return Knight;
    case 'b':
      return Bishop;
    case 'r':
      return Rook;
    case 'q':
      return Queen;
    default:
      return std::nullopt;
  }
}

// Whether the piece on `from` could move to `to` if checks did not matter.
bool can_reach(const Position& pos, Square from, Square to) {
  const Piece p = pos.piece_on(from);
  const Color us = color_of(p);
  if (pos.pieces(us) & square_bb(to)) return false;
  const Bitboard occupied = pos.pieces();
  switch (type_of(p)) {
    case Pawn: {
      if (pawn_attacks(us, from) & square_bb(to))
        return (pos.pieces(~us) & square_bb(to)) || to == pos.ep_square();
      const Square one = from + pawn_push(us);
      if (to == one) return !(occupied & square_bb(one));
      return relative_rank(us, from) == 1 && to == one + pawn_push(us) &&
             !(occupied & (square_bb(one) | square_bb(to)));
    }
    case Knight:
      return knight_attacks(from) & square_bb(to);
    case Bishop:
      return bishop_attacks(from, occupied) & square_bb(to);
    case Rook:
      return rook_attacks(from, occupied) & square_bb(to);
    case Queen:
      return queen_attacks(from, occupied) & square_bb(to);
    case King:
      return king_attacks(from) & square_bb(to);
  }
  return false;
}

// Why the side to move cannot castle on `king_side` now.
std::string castling_problem(const Position& pos, bool king_side) {
  const Color us = pos.side_to_move();
  const uint8_t right = us == White ? (king_side ? WhiteKingSide : WhiteQueenSide)
                                    : (king_side ? BlackKingSide : BlackQueenSide);
  const char* side = king_side ? "king-side" : "queen-side";
  if (!(pos.castling_rights() & right))
    return fmt::format("{} has no right to castle {}", color_name(us), side);
  if (pos.in_check()) return fmt::format("{} cannot castle out of check", color_name(us));
  return fmt::format(
      "{} cannot castle {} now: a square between king and rook is occupied, or the king would "
      "pass through or land on an attacked square",
      color_name(us), side);
}

// Why a move of the piece on `from` to `to`, which no legal move matches, is illegal.
std::string move_problem(const Position& pos, Square from, Square to) {
  const Color us = pos.side_to_move();
  const Piece p = pos.piece_on(from);
  if (p == NoPiece) return fmt::format("there is no piece on {}", square_name(from));
  const std::string piece = fmt::format("the {} on {}", kPieceNames[type_of(p)], square_name(from));
  if (color_of(p) != us)
    return fmt::format("{} is {}'s, and it is {}'s move", piece, color_name(~us), color_name(us));
  if (type_of(p) == King && rank_of(from) == rank_of(to) && std::abs(file_of(to) - file_of(from)) == 2)
    return castling_problem(pos, file_of(to) > file_of(from));
  if (!can_reach(pos, from, to)) return fmt::format("{} cannot reach {}", piece, square_name(to));
  if (pos.in_check())
    return fmt::format("the {} king is in check and this move does not end the check", color_name(us));
  return fmt::format("it would leave the {} king in check", color_name(us));
}

std::expected<Move, GameError> parse_uci(const Position& pos, std::string_view text) {
  const Square from = *parse_square(text.substr(0, 2)), to = *parse_square(text.substr(2, 2));
  const std::optional<PieceType> promo = text.size() == 5 ? promotion_piece(text[4]) : std::nullopt;
  MoveList legal;
  generate_legal(pos, legal);
  bool needs_promotion = false;
  for (Move m : legal) {
    if (m.from() != from) continue;
    // Castling may also be written as the king taking its own rook ("e1h1").
    const bool castles_onto_rook =
        m.kind() == MoveKind::Castling &&
        to == pos.castling_rook(file_of(m.to()) == 6
                                    ? (pos.side_to_move() == White ? WhiteKingSide : BlackKingSide)
                                    : (pos.side_to_move() == White ? WhiteQueenSide : BlackQueenSide));
    if (m.to() != to && !castles_onto_rook) continue;
    if (m.kind() == MoveKind::Promotion) {
      needs_promotion = true;
      if (promo && m.promotion() == *promo) return m;
    } else if (!promo) {
      return m;
    }
  }
  if (needs_promotion)
    return illegal(text,
                   fmt::format("a pawn reaching the last rank must promote: write {0}q, {0}r, {0}b or {0}n",
                               text.substr(0, 4)));
  if (promo) {
    const Piece p = pos.piece_on(from);
    if (p != NoPiece && type_of(p) == Pawn && color_of(p) == pos.side_to_move() && can_reach(pos, from, to) &&
        relative_rank(pos.side_to_move(), to) != 7)
      return illegal(text, "only a pawn reaching the last rank promotes");
  }
  return illegal(text, move_problem(pos, from, to));
}

// The parts of a SAN move: piece, optional origin file/rank, destination, promotion.
struct SanParts {
  PieceType piece = Pawn;
  int from_file = -1, from_rank = -1;
  Square to = kNoSquare;
  std::optional<PieceType> promotion;
};

std::optional<SanParts> split_san(std::string_view s) {
  SanParts parts;
  // Promotion at the end: "=Q", "Q" (sloppy "e8Q"), "(Q)" or "/Q".
  if (s.size() >= 4 && s.back() == ')' && s[s.size() - 3] == '(') s.remove_suffix(1);
  if (s.size() >= 3 && promotion_piece(s.back())) {
    const char before = s[s.size() - 2];
    if (before == '=' || before == '/' || before == '(' || std::isdigit(static_cast<unsigned char>(before))) {
      parts.promotion = promotion_piece(s.back());
      s.remove_suffix(std::isdigit(static_cast<unsigned char>(before)) ? 1 : 2);
    }
  }
  if (s.size() < 2) return std::nullopt;
  const auto to = parse_square(s.substr(s.size() - 2));
  if (!to) return std::nullopt;
  parts.to = *to;
  s.remove_suffix(2);
  if (!s.empty() && (s.back() == 'x' || s.back() == ':' || s.back() == '-')) s.remove_suffix(1);
  // The piece letter; lowercase is accepted where it cannot be a file (n, r, q, k).
  if (!s.empty()) {
    const char letter = s.front() == 'n' || s.front() == 'r' || s.front() == 'q' || s.front() == 'k'
                            ? char(std::toupper(static_cast<unsigned char>(s.front())))
                            : s.front();
    if (std::isupper(static_cast<unsigned char>(letter))) {
      const auto at = kPieceLetters.find(letter);
      if (at == std::string_view::npos) return std::nullopt;
      parts.piece = PieceType(at);
      s.remove_prefix(1);
    }
  }
  if (!s.empty() && s.front() >= 'a' && s.front() <= 'h')
    parts.from_file = s.front() - 'a', s.remove_prefix(1);
  if (!s.empty() && s.front() >= '1' && s.front() <= '8')
    parts.from_rank = s.front() - '1', s.remove_prefix(1);
  if (!s.empty()) return std::nullopt;
  return parts;
}

std::expected<Move, GameError> parse_san(const Position& pos, std::string_view original, std::string_view s) {
  const Color us = pos.side_to_move();
  MoveList legal;
  generate_legal(pos, legal);

  // Castling: O-O / O-O-O, also written with zeros or lowercase o.
  std::string upper;
  for (char c : s) upper += c == '0' || c == 'o' ? 'O' : c;
  if (upper == "O-O" || upper == "O-O-O" || upper == "OO" || upper == "OOO") {
    const bool king_side = upper.size() <= 3 && upper != "OOO";
    for (Move m : legal)
      if (m.kind() == MoveKind::Castling && (file_of(m.to()) == 6) == king_side) return m;
    return illegal(original, castling_problem(pos, king_side));
  }

  const auto parts = split_san(s);
  if (!parts)
    return std::unexpected(
        GameError{fmt::format("cannot read '{}' as a move: expected UCI such as e2e4 or e7e8q, or SAN such "
                              "as Nf3, exd5, e8=Q or O-O",
                              printable(original))});

  std::vector<Move> matches;
  bool needs_promotion = false;
  for (Move m : legal) {
    if (m.to() != parts->to || m.kind() == MoveKind::Castling) continue;
    if (type_of(pos.piece_on(m.from())) != parts->piece) continue;
    if (parts->from_file >= 0 && file_of(m.from()) != parts->from_file) continue;
    if (parts->from_rank >= 0 && rank_of(m.from()) != parts->from_rank) continue;
    if (m.kind() == MoveKind::Promotion && !parts->promotion) {
      needs_promotion = true;
      continue;
    }
    if (parts->promotion && (m.kind() != MoveKind::Promotion || m.promotion() != *parts->promotion)) continue;
    matches.push_back(m);
  }
  if (matches.size() == 1) return matches.front();
  if (matches.size() > 1) {
    std::string options;
    for (Move m : matches) {
      if (!options.empty()) options += " or ";
      options += to_san(pos, m);
    }
    return std::unexpected(
        GameError{fmt::format("ambiguous move {}: it could be {}", printable(original), options)});
  }
  if (needs_promotion)
    return illegal(original, "a pawn reaching the last rank must promote: add =Q, =R, =B or =N");
  if (parts->promotion && parts->piece != Pawn) return illegal(original, "only pawns promote");

  // Nothing legal matches: find a piece that fits the description to explain why.
  const std::string what = fmt::format("{} {}", color_name(us), kPieceNames[parts->piece]);
  for (Bitboard b = pos.pieces(us, parts->piece); b;) {
    const Square from = pop_lsb(b);
    if (parts->from_file >= 0 && file_of(from) != parts->from_file) continue;
    if (parts->from_rank >= 0 && rank_of(from) != parts->from_rank) continue;
    if (can_reach(pos, from, parts->to)) {
      if (parts->promotion && relative_rank(us, parts->to) != 7)
        return illegal(original, "only a pawn reaching the last rank promotes");
      return illegal(original, move_problem(pos, from, parts->to));
    }
  }
  return illegal(original, fmt::format("no {} can move to {}", what, square_name(parts->to)));
}

bool is_uci_shape(std::string_view s) {
  if (s.size() != 4 && s.size() != 5) return false;
  if (!parse_square(s.substr(0, 2)) || !parse_square(s.substr(2, 2))) return false;
  return s.size() == 4 || promotion_piece(s[4]);
}

}  // namespace

std::string to_uci(Move m) {
  std::string text = square_name(m.from()) + square_name(m.to());
  if (m.kind() == MoveKind::Promotion) text += "nbrq"[m.promotion() - Knight];
  return text;
}

std::string to_san(const Position& pos, Move m) {
  std::string san;
  if (m.kind() == MoveKind::Castling) {
    san = file_of(m.to()) == 6 ? "O-O" : "O-O-O";
  } else {
    const PieceType piece = type_of(pos.piece_on(m.from()));
    const bool capture = pos.piece_on(m.to()) != NoPiece || m.kind() == MoveKind::EnPassant;
    if (piece == Pawn) {
      if (capture) san += char('a' + file_of(m.from()));
    } else {
      san += kPieceLetters[piece];
      // Disambiguate by file, else by rank, else by both.
      MoveList legal;
      generate_legal(pos, legal);
      bool clash = false, same_file = false, same_rank = false;
      for (Move other : legal) {
        if (other.to() != m.to() || other.from() == m.from() || type_of(pos.piece_on(other.from())) != piece)
          continue;
        clash = true;
        same_file |= file_of(other.from()) == file_of(m.from());
        same_rank |= rank_of(other.from()) == rank_of(m.from());
      }
      if (clash && (!same_file || same_rank)) san += char('a' + file_of(m.from()));
      if (clash && same_file) san += char('1' + rank_of(m.from()));
    }
    if (capture) san += 'x';
    san += square_name(m.to());
    if (m.kind() == MoveKind::Promotion) san += std::string("=") + kPieceLetters[m.promotion()];
  }
  Position after = pos;
  UndoInfo undo;
  after.make_move(m, undo);
  if (after.in_check()) san += has_legal_move(after) ? '+' : '#';
  return san;
}

std::expected<Move, GameError> parse_move(const Position& pos, std::string_view text) {
  std::string_view s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (s.empty())
    return std::unexpected(GameError{"empty move: expected UCI such as e2e4 or SAN such as Nf3"});
  if (is_uci_shape(s)) return parse_uci(pos, s);
  // Drop what SAN may carry after the move: check marks, annotations, "e.p.".
  if (s.ends_with("e.p.")) s.remove_suffix(4);
  while (!s.empty() &&
         (s.back() == '+' || s.back() == '#' || s.back() == '!' || s.back() == '?' || s.back() == ' '))
    s.remove_suffix(1);
  return parse_san(pos, text, s);
}

}  // namespace games::chess
