// Janggi move notation: reading UCI and Korean numeric notation, writing numeric (see notation.h).
#include "games/janggi/notation.h"

#include <fmt/core.h>

#include <optional>

#include "base/strings.h"
#include "games/janggi/movegen.h"

namespace games::janggi {
namespace {

struct PieceName {
  std::string_view text;
  PieceType type;
};

// Names a move may give its piece: Korean, hanja, and the letters of FEN and Fairy-Stockfish's
// janggi notation (which writes E for the elephant and H for the horse).
constexpr PieceName kPieceNames[] = {
    {"궁", General},  {"楚", General}, {"漢", General}, {"사", Guard},   {"士", Guard},   {"상", Elephant},
    {"象", Elephant}, {"마", Horse},   {"馬", Horse},   {"차", Chariot}, {"車", Chariot}, {"포", Cannon},
    {"包", Cannon},   {"砲", Cannon},  {"졸", Soldier}, {"卒", Soldier}, {"병", Soldier}, {"兵", Soldier},
    {"K", General},   {"A", Guard},    {"B", Elephant}, {"E", Elephant}, {"N", Horse},    {"H", Horse},
    {"R", Chariot},   {"C", Cannon},   {"P", Soldier},  {"k", General},  {"a", Guard},    {"b", Elephant},
    {"e", Elephant},  {"n", Horse},    {"h", Horse},    {"r", Chariot},  {"c", Cannon},   {"p", Soldier},
};

std::string_view korean_name(PieceType t, Color c) {
  switch (t) {
    case General:
      return "궁";
    case Guard:
      return "사";
    case Elephant:
      return "상";
    case Horse:
      return "마";
    case Chariot:
      return "차";
    case Cannon:
      return "포";
    case Soldier:
      return c == Cho ? "졸" : "병";
    default:
      return "?";
  }
}

std::optional<PieceType> take_piece(std::string_view& text) {
  for (const PieceName& name : kPieceNames)
    if (text.starts_with(name.text)) {
      text.remove_prefix(name.text.size());
      return name.type;
    }
  return std::nullopt;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Two digits: row from Han's back rank (0 = tenth row) and file from Cho's left.
std::optional<Square> take_numeric_square(std::string_view& text) {
  if (text.size() < 2 || !is_digit(text[0]) || !is_digit(text[1]) || text[1] == '0') return std::nullopt;
  const int rank = (kNumRanks - (text[0] - '0')) % kNumRanks;
  const int file = text[1] - '1';
  text.remove_prefix(2);
  return make_square(file, rank);
}

// A file a-i and a rank 1-10.
std::optional<Square> take_uci_square(std::string_view& text) {
  if (text.size() < 2 || text[0] < 'a' || text[0] > 'i' || text[1] < '1' || text[1] > '9')
    return std::nullopt;
  int rank = text[1] - '1';
  size_t used = 2;
  if (text[1] == '1' && text.size() > 2 && text[2] == '0') {
    rank = 9;
    used = 3;
  }
  const Square s = make_square(text[0] - 'a', rank);
  text.remove_prefix(used);
  return s;
}

struct ReadMove {
  Square from = 0;
  Square to = 0;
  std::optional<PieceType> piece;  // the piece the text names, if any
};

std::optional<ReadMove> read_uci(std::string_view text) {
  ReadMove m;
  auto from = take_uci_square(text);
  auto to = from ? take_uci_square(text) : std::nullopt;
  if (!to || !text.empty()) return std::nullopt;
  m.from = *from;
  m.to = *to;
  return m;
}

// [piece] from [piece | '-' | 'x'] to ['+' | '#'], e.g. 02마83, H02-83, 0283.
std::optional<ReadMove> read_numeric(std::string_view text) {
  ReadMove m;
  m.piece = take_piece(text);
  const auto from = take_numeric_square(text);
  if (!from) return std::nullopt;
  if (const auto middle = take_piece(text)) {
    if (m.piece && *m.piece != *middle) return std::nullopt;
    m.piece = middle;
  } else if (text.starts_with('-') || text.starts_with('x')) {
    text.remove_prefix(1);
  }
  const auto to = take_numeric_square(text);
  if (!to) return std::nullopt;
  if (text == "+" || text == "#") text = {};
  if (!text.empty()) return std::nullopt;
  m.from = *from;
  m.to = *to;
  return m;
}

bool is_pass_word(std::string_view text) {
  if (text == "한수쉼" || text == "0000") return true;
  if (text.size() != 4) return false;
  for (size_t i = 0; i < 4; ++i)
    if ((text[i] | 0x20) != "pass"[i]) return false;
  return true;
}

std::unexpected<GameError> error(std::string message) {
  return std::unexpected(GameError{std::move(message)});
}

// The length of the valid UTF-8 sequence at the front of `text`, or 0 if it is not one.
size_t utf8_length(std::string_view text) {
  const unsigned char lead = static_cast<unsigned char>(text[0]);
  const size_t length = lead < 0x80           ? 1
                        : (lead >> 5) == 0x6  ? 2
                        : (lead >> 4) == 0xe  ? 3
                        : (lead >> 3) == 0x1e ? 4
                                              : 0;
  if (length == 0 || length > text.size()) return 0;
  for (size_t i = 1; i < length; ++i)
    if ((static_cast<unsigned char>(text[i]) >> 6) != 0x2) return 0;
  return length;
}

// Printable form of untrusted text for messages: about 32 bytes, with control bytes and bytes that
// are not valid UTF-8 escaped (so the message is always valid UTF-8, e.g. for JSON).
std::string quoted(std::string_view text) {
  std::string out = "'";
  size_t i = 0;
  while (i < text.size() && i < 32) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const size_t length = utf8_length(text.substr(i));
    if (length == 0 || c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    } else {
      out += text.substr(i, length);
      i += length;
    }
  }
  return out + (i < text.size() ? "...'" : "'");
}

std::string describe(Square s) {
  return fmt::format("{} ({})", square_name(s), numeric_square(s));
}

}  // namespace

std::string numeric_square(Square s) {
  return fmt::format("{}{}", (kNumRanks - rank_of(s)) % kNumRanks, file_of(s) + 1);
}

std::string numeric_move(const Position& pos, Move m) {
  if (m.is_pass()) return "한수쉼";
  const Piece p = pos.piece_on(m.from);
  return numeric_square(m.from) + std::string(korean_name(type_of(p), color_of(p))) + numeric_square(m.to);
}

std::expected<Move, GameError> parse_move_text(const Position& pos, const Rules& rules,
                                               std::string_view text) {
  Position scratch = pos;
  MoveList legal;
  generate_legal(scratch, rules, legal);
  if (legal.size == 0) return error("no move can be played: the game is over");
  const std::string_view trimmed = base::trim(text);
  const Color us = pos.side_to_move();
  const Square king = pos.king_square(us);
  std::optional<ReadMove> read;
  if (is_pass_word(trimmed)) read = ReadMove{king, king, General};
  if (!read) read = read_uci(trimmed);
  if (!read && trimmed.size() <= 6) {
    std::string lower(trimmed);
    for (char& c : lower) c = char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    read = read_uci(lower);
  }
  if (!read) read = read_numeric(trimmed);
  if (!read)
    return error(
        fmt::format("cannot read move {}: write UCI like b1c3 (a pass is the general's square twice, "
                    "e.g. e2e2) or numeric notation like 02마83",
                    quoted(trimmed)));
  const Move m{uint8_t(read->from), uint8_t(read->to)};
  const std::string name = move_name(m);
  const Piece p = pos.piece_on(m.from);
  if (p == NoPiece)
    return error(fmt::format("illegal move {}: there is no piece on {}", name, describe(m.from)));
  if (color_of(p) != us)
    return error(fmt::format("illegal move {}: the piece on {} is {}'s, but {} is to move", name,
                             describe(m.from), us == Cho ? "Han" : "Cho", us == Cho ? "Cho" : "Han"));
  if (read->piece && *read->piece != type_of(p))
    return error(fmt::format("illegal move {}: the piece on {} is a {} ({}), not a {} ({})", name,
                             describe(m.from), piece_type_name(type_of(p)), korean_name(type_of(p), us),
                             piece_type_name(*read->piece), korean_name(*read->piece, us)));
  if (legal.contains(m)) return m;
  if (m.is_pass()) {
    if (type_of(p) != General)
      return error(fmt::format("illegal move {}: a pass is written as the general's own square twice ({}{})",
                               name, square_name(king), square_name(king)));
    return error(
        fmt::format("illegal move {}: {} cannot pass while in check", name, us == Cho ? "Cho" : "Han"));
  }
  MoveList pseudo;
  generate_piece_moves(pos, pseudo);
  if (!pseudo.contains(m)) {
    const Piece target = pos.piece_on(m.to);
    const bool own = target != NoPiece && color_of(target) == us;
    return error(fmt::format("illegal move {}: the {} on {} cannot move to {}{}", name,
                             piece_type_name(type_of(p)), describe(m.from), describe(m.to),
                             own ? " (your own piece stands there)" : ""));
  }
  if (scratch.move_is_safe(m, false))
    return error(
        fmt::format("illegal move {}: the generals face each other (bikjang), so a move must break the "
                    "facing, or pass",
                    name));
  return error(
      fmt::format("illegal move {}: it would leave {}'s general in check", name, us == Cho ? "Cho" : "Han"));
}

}  // namespace games::janggi
