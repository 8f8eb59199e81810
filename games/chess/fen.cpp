// FEN reading (field by field, each error naming its field) and writing.
#include "games/chess/fen.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <vector>

#include "base/strings.h"
#include "games/fen_placement.h"

namespace games::chess {

namespace {

constexpr std::string_view kPieceLetters = "PNBRQK";
constexpr std::array<const char*, 6> kFieldNames{"piece placement", "side to move",   "castling",
                                                 "en passant",      "halfmove clock", "fullmove number"};
constexpr std::array<const char*, 6> kPieceNames{"pawn", "knight", "bishop", "rook", "queen", "king"};

std::unexpected<GameError> field_error(int field, const std::string& problem) {
  return std::unexpected(
      GameError{fmt::format("FEN field {} ({}): {}", field, kFieldNames[field - 1], problem)});
}

const char* color_name(Color c) {
  return c == White ? "white" : "black";
}

// Text for a message: the input quoted, shortened and with control bytes escaped.
std::string quoted(std::string_view text) {
  std::string out = "'";
  for (size_t i = 0; i < text.size() && i < 90; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    out += (c >= 32 && c < 127) ? std::string(1, char(c)) : fmt::format("\\x{:02x}", c);
  }
  return out + (text.size() > 90 ? "...'" : "'");
}

// A decimal number within [0, max], or nullopt.
std::optional<int> parse_count(std::string_view text, int max) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value <= max ? std::optional<int>(value) : std::nullopt;
}

bool is_piece_letter(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) &&
         kPieceLetters.find(char(std::toupper(static_cast<unsigned char>(c)))) != std::string_view::npos;
}

// Field 1 in chess words (see games/fen_placement.h).
std::unexpected<GameError> placement_error(const PlacementError& e) {
  switch (e.kind) {
    case PlacementError::Kind::RankCount:
      return field_error(
          1, fmt::format("expected 8 ranks separated by '/', got {} in {}", e.count, quoted(e.text)));
    case PlacementError::Kind::RankWidth:
      return field_error(1,
                         fmt::format("rank {} ({}) describes {} squares, expected 8", e.rank, quoted(e.text),
                                     e.count > 8 ? "more than 8" : std::to_string(e.count)));
    case PlacementError::Kind::BadCharacter:
    case PlacementError::Kind::AdjacentCounts:
      break;
  }
  return field_error(1, fmt::format("unexpected character {} in rank {} (expected one of PNBRQK pnbrqk 1-8)",
                                    quoted(e.text), e.rank));
}

std::expected<void, GameError> parse_placement(std::string_view field, Position& pos) {
  const auto letters = read_placement(field, BoardSize{8, 8, true}, is_piece_letter);
  if (!letters) return placement_error(letters.error());
  for (const PlacedLetter& l : *letters) {
    const auto type = PieceType(kPieceLetters.find(char(std::toupper(static_cast<unsigned char>(l.letter)))));
    const Color color = std::isupper(static_cast<unsigned char>(l.letter)) ? White : Black;
    pos.put_piece(make_piece(color, type), make_square(l.file, l.rank));
  }
  for (Color c : {White, Black}) {
    if (const int kings = popcount(pos.pieces(c, King)); kings != 1)
      return field_error(1, fmt::format("{} has {} kings, expected exactly 1", color_name(c), kings));
    if (const Bitboard stray = pos.pieces(c, Pawn) & (rank_bb(0) | rank_bb(7)))
      return field_error(1,
                         fmt::format("a {} pawn stands on {} (pawns cannot stand on the first or last rank)",
                                     color_name(c), square_name(lsb(stray))));
    // Promoted pieces (beyond the initial 1 queen, 2 rooks, 2 bishops, 2 knights) replace pawns.
    const int pawns = popcount(pos.pieces(c, Pawn));
    int extra = 0;
    for (PieceType t : {Knight, Bishop, Rook, Queen})
      extra += std::max(0, popcount(pos.pieces(c, t)) - (t == Queen ? 1 : 2));
    if (pawns > 8 || pawns + extra > 8)
      return field_error(
          1, fmt::format("{} has {} pawns and {} promoted pieces; together at most 8 are possible",
                         color_name(c), pawns, extra));
  }
  return {};
}

// Castling rights follow X-FEN as Stockfish reads them: 'K' ('Q') names the outermost rook on
// the king's h-side (a-side) of the back rank.
std::expected<void, GameError> parse_castling(std::string_view field, Position& pos) {
  if (field == "-") return {};
  uint8_t seen = 0;
  for (char c : field) {
    const auto at = std::string_view("KQkq").find(c);
    if (at == std::string_view::npos)
      return field_error(3, fmt::format("unexpected character {} (expected '-' or letters from KQkq)",
                                        quoted(std::string_view(&c, 1))));
    const uint8_t right = uint8_t(1 << at);
    if (seen & right) return field_error(3, fmt::format("'{}' appears twice in {}", c, quoted(field)));
    seen |= right;
    const Color color = at < 2 ? White : Black;
    const bool king_side = at % 2 == 0;
    const int back = color == White ? 0 : 7;
    const Square king = pos.king_square(color);
    if (rank_of(king) != back)
      return field_error(3, fmt::format("'{}' needs the {} king on rank {}, but it is on {}", c,
                                        color_name(color), back + 1, square_name(king)));
    Square rook = kNoSquare;
    for (int file = king_side ? 7 : 0; file != file_of(king); file += king_side ? -1 : 1)
      if (pos.piece_on(make_square(file, back)) == make_piece(color, Rook)) {
        rook = make_square(file, back);
        break;
      }
    if (rook == kNoSquare)
      return field_error(
          3, fmt::format("'{}' needs a {} rook on the {} side of the king on rank {}", c, color_name(color),
                         king_side ? "king's (h-file)" : "queen's (a-file)", back + 1));
    pos.add_castling_right(right, rook);
  }
  return {};
}

}  // namespace

char piece_char(Piece p) {
  if (p == NoPiece) return '.';
  const char c = kPieceLetters[type_of(p)];
  return color_of(p) == White ? c : char(std::tolower(c));
}

std::expected<Position, GameError> parse_fen(std::string_view fen) {
  const auto fields = base::split_words(fen);
  if (fields.empty()) return std::unexpected(GameError{"FEN is empty"});
  if (fields.size() < 4 || fields.size() > 6)
    return std::unexpected(GameError{fmt::format(
        "FEN has {} fields, expected 6 (piece placement, side to move, castling, en passant, halfmove clock, "
        "fullmove number; the last two may be left out)",
        fields.size())});

  Position pos;
  if (auto placed = parse_placement(fields[0], pos); !placed) return std::unexpected(placed.error());

  if (fields[1] != "w" && fields[1] != "b")
    return field_error(2, fmt::format("expected 'w' or 'b', got {}", quoted(fields[1])));
  const Color side = fields[1] == "w" ? White : Black;

  if (auto castling = parse_castling(fields[2], pos); !castling) return std::unexpected(castling.error());

  Square ep = kNoSquare;
  if (fields[3] != "-") {
    const auto square = parse_square(fields[3]);
    if (!square)
      return field_error(4, fmt::format("expected '-' or a square such as e3, got {}", quoted(fields[3])));
    if (relative_rank(side, *square) != 5)
      return field_error(4, fmt::format("{} is impossible with {} to move (expected a square on rank {})",
                                        fields[3], color_name(side), side == White ? 6 : 3));
    ep = *square;
  }

  int rule50 = 0, fullmove = 1;
  if (fields.size() > 4) {
    const auto value = parse_count(fields[4], 999999);
    if (!value)
      return field_error(5,
                         fmt::format("expected a whole number from 0 to 999999, got {}", quoted(fields[4])));
    rule50 = *value;
  }
  if (fields.size() > 5) {
    const auto value = parse_count(fields[5], 99999999);
    if (!value)
      return field_error(
          6, fmt::format("expected a whole number from 1 to 99999999, got {}", quoted(fields[5])));
    fullmove = std::max(1, *value);  // some writers put 0 here; read it as 1
  }

  pos.set_state(side, ep, rule50, fullmove);
  const Square their_king = pos.king_square(~side);
  if (pos.attackers_to(their_king, pos.pieces()) & pos.pieces(side))
    return std::unexpected(
        GameError{fmt::format("FEN describes an impossible position: {} is in check but it is {} to move",
                              color_name(~side), color_name(side))});
  return pos;
}

std::string to_fen(const Position& pos) {
  std::string fen;
  for (int rank = 7; rank >= 0; --rank) {
    int empty = 0;
    for (int file = 0; file < 8; ++file) {
      const Piece p = pos.piece_on(make_square(file, rank));
      if (p == NoPiece) {
        ++empty;
        continue;
      }
      if (empty) fen += char('0' + empty);
      empty = 0;
      fen += piece_char(p);
    }
    if (empty) fen += char('0' + empty);
    if (rank) fen += '/';
  }
  fen += pos.side_to_move() == White ? " w " : " b ";
  const uint8_t rights = pos.castling_rights();
  if (!rights) fen += '-';
  for (int i = 0; i < 4; ++i)
    if (rights & (1 << i)) fen += "KQkq"[i];
  fen += ' ';
  fen += pos.ep_square() == kNoSquare ? "-" : square_name(pos.ep_square());
  return fen + fmt::format(" {} {}", pos.rule50(), pos.fullmove());
}

}  // namespace games::chess
