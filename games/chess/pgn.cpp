// PGN export (the standard's "export format" for tags and movetext) and a forgiving reader for
// the main line of each game.
#include "games/chess/pgn.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "games/chess/fen.h"
#include "games/chess/notation.h"

namespace games::chess {

namespace {

constexpr std::array<std::string_view, 7> kSevenTags{"Event", "Site",  "Date",  "Round",
                                                     "White", "Black", "Result"};

bool is_result(std::string_view s) {
  return s == "1-0" || s == "0-1" || s == "1/2-1/2" || s == "*";
}

std::string escape_tag(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    out += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return out;
}

// Reads the games of a PGN text one token at a time, tracking the line for error messages.
class PgnReader {
 public:
  explicit PgnReader(std::string_view text) : text_(text) {}

  std::expected<std::vector<PgnGame>, GameError> read_all() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\n') {
        ++line_;
        ++pos_;
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        ++pos_;
      } else if (c == '%' && (pos_ == 0 || text_[pos_ - 1] == '\n')) {
        skip_line();
      } else if (c == ';') {
        skip_line();
      } else if (c == '[') {
        if (auto ok = read_tag(); !ok) return std::unexpected(ok.error());
      } else if (c == '{') {
        if (auto ok = skip_until('}', "comment '{'"); !ok) return std::unexpected(ok.error());
      } else if (c == '(') {
        if (auto ok = skip_variation(); !ok) return std::unexpected(ok.error());
      } else if (c == ')' || c == '}' || c == ']') {
        return error(fmt::format("unexpected '{}'", c));
      } else {
        if (auto ok = read_token(); !ok) return std::unexpected(ok.error());
      }
    }
    if (auto ok = finish_game(); !ok) return std::unexpected(ok.error());
    return std::move(games_);
  }

 private:
  std::unexpected<GameError> error(const std::string& message) const {
    return std::unexpected(GameError{fmt::format("PGN line {}: {}", line_, message)});
  }

  void skip_line() {
    while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
  }

  std::expected<void, GameError> skip_until(char close, const char* what) {
    const int start_line = line_;
    for (++pos_; pos_ < text_.size(); ++pos_) {
      if (text_[pos_] == '\n') ++line_;
      if (text_[pos_] == close) {
        ++pos_;
        return {};
      }
    }
    line_ = start_line;
    return error(fmt::format("{} is never closed", what));
  }

  // Skips a (possibly nested) variation, with the comments inside it.
  std::expected<void, GameError> skip_variation() {
    const int start_line = line_;
    int depth = 0;
    for (; pos_ < text_.size(); ++pos_) {
      const char c = text_[pos_];
      if (c == '\n') ++line_;
      if (c == '{') {
        if (auto ok = skip_until('}', "comment '{'"); !ok) return ok;
        --pos_;
      } else if (c == '(') {
        ++depth;
      } else if (c == ')' && --depth == 0) {
        ++pos_;
        return {};
      }
    }
    line_ = start_line;
    return error("variation '(' is never closed");
  }

  std::expected<void, GameError> read_tag() {
    if (moves_started_)
      if (auto ok = finish_game(); !ok) return ok;
    ++pos_;
    const size_t name_start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    const std::string name(text_.substr(name_start, pos_ - name_start));
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
    if (name.empty() || pos_ >= text_.size() || text_[pos_] != '"')
      return error("malformed tag pair: expected [Name \"value\"]");
    std::string value;
    for (++pos_; pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n'; ++pos_) {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      value += text_[pos_];
    }
    if (pos_ >= text_.size() || text_[pos_] != '"')
      return error(fmt::format("tag {} has no closing '\"'", name));
    ++pos_;
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
    if (pos_ >= text_.size() || text_[pos_] != ']')
      return error(fmt::format("tag {} has no closing ']'", name));
    ++pos_;
    in_game_ = true;
    if (name == "FEN") game_.start_fen = value;
    if (name == "Result" && is_result(value)) game_.result = value;
    game_.tags.emplace_back(name, value);
    return {};
  }

  std::expected<void, GameError> read_token() {
    const size_t start = pos_;
    while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_])) &&
           std::string_view("{}()[];").find(text_[pos_]) == std::string_view::npos)
      ++pos_;
    std::string_view token = text_.substr(start, pos_ - start);
    if (is_result(token)) {
      in_game_ = true;
      game_.result = std::string(token);
      return finish_game();
    }
    if (token.front() == '$') return {};  // a numeric annotation glyph
    // A move number ("12.", "12...", possibly glued to the move: "12.Nf3").
    if (std::isdigit(static_cast<unsigned char>(token.front()))) {
      size_t digits = 0;
      while (digits < token.size() && std::isdigit(static_cast<unsigned char>(token[digits]))) ++digits;
      if (digits == token.size() || token[digits] == '.') {
        token.remove_prefix(digits);
        while (!token.empty() && token.front() == '.') token.remove_prefix(1);
      }
    }
    while (!token.empty() && token.front() == '.') token.remove_prefix(1);
    if (token.empty() || token.find_first_not_of("!?") == std::string_view::npos) return {};
    return play(token);
  }

  std::expected<void, GameError> play(std::string_view token) {
    if (!moves_started_) {
      in_game_ = moves_started_ = true;
      const auto start = parse_fen(game_.start_fen.empty() ? kStartFen : std::string_view(game_.start_fen));
      if (!start)
        return error(fmt::format("game {}: bad FEN tag: {}", games_.size() + 1, start.error().message));
      position_ = *start;
    }
    const auto move = parse_move(position_, token);
    if (!move)
      return error(fmt::format("game {}, move {}{} {}: {}", games_.size() + 1, position_.fullmove(),
                               position_.side_to_move() == White ? "." : "...", token, move.error().message));
    game_.moves.push_back(to_uci(*move));
    UndoInfo undo;
    position_.make_move(*move, undo);
    return {};
  }

  // Ends the game being read; a game without moves has its FEN tag checked here (one with moves
  // had it checked at its first move), so no game is returned that cannot be replayed.
  std::expected<void, GameError> finish_game() {
    if (in_game_ && !moves_started_ && !game_.start_fen.empty())
      if (const auto start = parse_fen(game_.start_fen); !start)
        return error(fmt::format("game {}: bad FEN tag: {}", games_.size() + 1, start.error().message));
    if (in_game_) games_.push_back(std::move(game_));
    game_ = PgnGame{};
    in_game_ = moves_started_ = false;
    return {};
  }

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  std::vector<PgnGame> games_;
  PgnGame game_;
  Position position_;
  bool in_game_ = false;        // tags or moves of game_ have been read
  bool moves_started_ = false;  // position_ holds game_'s current position
};

}  // namespace

std::string PgnGame::tag(std::string_view name) const {
  for (const auto& [key, value] : tags)
    if (key == name) return value;
  return "";
}

std::string pgn_result(const Outcome& outcome) {
  switch (outcome.result) {
    case Outcome::Result::FirstWins:
      return "1-0";
    case Outcome::Result::SecondWins:
      return "0-1";
    case Outcome::Result::Draw:
      return "1/2-1/2";
    case Outcome::Result::Ongoing:
      break;
  }
  return "*";
}

std::expected<std::vector<PgnGame>, GameError> read_pgn(std::string_view text) {
  return PgnReader(text).read_all();
}

std::expected<std::string, GameError> write_pgn(const PgnGame& game) {
  if (!is_result(game.result))
    return std::unexpected(GameError{
        fmt::format("PGN result '{}' is not one of 1-0, 0-1, 1/2-1/2, *", escape_tag(game.result))});
  auto start = parse_fen(game.start_fen.empty() ? kStartFen : std::string_view(game.start_fen));
  if (!start) return std::unexpected(start.error());
  Position pos = *start;

  std::string out;
  for (std::string_view name : kSevenTags) {
    std::string value = name == "Result" ? game.result : game.tag(name);
    if (value.empty()) value = name == "Date" ? "????.??.??" : "?";
    out += fmt::format("[{} \"{}\"]\n", name, escape_tag(value));
  }
  if (!game.start_fen.empty()) out += fmt::format("[SetUp \"1\"]\n[FEN \"{}\"]\n", to_fen(pos));
  for (const auto& [name, value] : game.tags) {
    const bool written = name == "SetUp" || name == "FEN" || name == "Termination" ||
                         std::find(kSevenTags.begin(), kSevenTags.end(), name) != kSevenTags.end();
    if (!written) out += fmt::format("[{} \"{}\"]\n", name, escape_tag(value));
  }
  std::string termination = game.tag("Termination");
  if (termination.empty()) termination = game.result == "*" ? "unterminated" : "normal";
  out += fmt::format("[Termination \"{}\"]\n\n", escape_tag(termination));

  // Movetext: tokens separated by spaces, lines at most 80 characters.
  std::string line;
  const auto emit = [&](const std::string& token) {
    if (!line.empty() && line.size() + 1 + token.size() > 80) {
      out += line + '\n';
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += token;
  };
  for (size_t i = 0; i < game.moves.size(); ++i) {
    const auto move = parse_move(pos, game.moves[i]);
    if (!move)
      return std::unexpected(
          GameError{fmt::format("move {} ({}): {}", i + 1, game.moves[i], move.error().message)});
    if (pos.side_to_move() == White)
      emit(fmt::format("{}.", pos.fullmove()));
    else if (i == 0)
      emit(fmt::format("{}...", pos.fullmove()));
    emit(to_san(pos, *move));
    UndoInfo undo;
    pos.make_move(*move, undo);
  }
  emit(game.result);
  return out + line + "\n\n";
}

}  // namespace games::chess
