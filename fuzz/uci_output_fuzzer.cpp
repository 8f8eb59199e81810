// Fuzz target: what a UCI engine writes, as the UCI agent reads it (agents/uci/uci_protocol.h):
// option declarations, info scores, bestmove, and the garbage check. The first byte picks the
// variant (chess or a janggi rule set) and a short walk of legal moves from its start (32
// positions, made once); the rest
// is engine output, one line per '\n'. Properties: an option has a non-empty name and a type
// without spaces; a score has cp or mate, and each lies in [-(2^31 - 1), 2^31 - 1] so that the
// adjudication may negate it or take its absolute value; a bestmove is one word, and it has move
// syntax exactly when it matches the variant's UCI move grammar (checked here independently);
// every legal move of the position has move syntax (else the agent would refuse a legal answer),
// and one that has is either legal or refused by the game with a message.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "agents/uci/uci_protocol.h"
#include "fuzz/fuzz_check.h"
#include "games/game.h"

namespace {

constexpr std::array<const char*, 4> kVariants{"chess", "janggi", "janggimodern", "janggicasual"};

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

// A square of the variant's board at the start of `s` (chess a-h 1-8, janggi a-i 1-10): its length.
size_t square(std::string_view s, bool chess) {
  const char last_file = chess ? 'h' : 'i';
  if (s.size() < 2 || s[0] < 'a' || s[0] > last_file) return 0;
  if (!chess && s.size() >= 3 && s[1] == '1' && s[2] == '0') return 3;
  if (s[1] < '1' || s[1] > (chess ? '8' : '9')) return 0;
  return 2;
}

// The UCI move grammar, written independently of uci_protocol.cpp: two squares, and for chess an
// optional promotion piece.
bool oracle_move_syntax(std::string_view variant, std::string_view m) {
  const bool chess = variant == "chess";
  const size_t a = square(m, chess);
  if (a == 0) return false;
  const size_t b = square(m.substr(a), chess);
  if (b == 0) return false;
  const std::string_view rest = m.substr(a + b);
  return rest.empty() || (chess && rest.size() == 1 && std::string_view("qrbn").find(rest[0]) != rest.npos);
}

bool in_score_range(const std::optional<int32_t>& v) {
  return !v || *v >= -std::numeric_limits<int32_t>::max();
}

// A position of the fuzzed variant: its start after a short walk of legal moves, made once (move
// generation is the expensive part under ASan; the target is the engine-output parser).
struct Position {
  std::unique_ptr<games::Game> game;
  std::vector<std::string> legal;
};

const Position& position(uint8_t selector) {
  static const auto positions = [] {
    std::vector<Position> out;
    for (int s = 0; s < 32; ++s) {  // selectors repeat every 32 values
      const char* variant = kVariants[s % kVariants.size()];
      auto made = games::make_game(variant);
      FUZZ_CHECK(made.has_value());
      Position p{std::move(*made), {}};
      for (int i = 0, n = (s >> 2) % 8; i < n; ++i) {
        const auto moves = p.game->legal_moves();
        if (moves.empty()) break;
        FUZZ_CHECK(p.game->apply(moves[(static_cast<size_t>(s) * 13 + i * 5) % moves.size()]).has_value());
      }
      p.legal = p.game->legal_moves();
      for (const auto& m : p.legal) FUZZ_CHECK(agents::uci::is_move_syntax(variant, m));
      out.push_back(std::move(p));
    }
    return out;
  }();
  return positions[selector % 32];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const Position& pos = position(data[0]);
  const std::string_view variant = kVariants[data[0] % kVariants.size()];
  const games::Game& game = *pos.game;
  const auto& legal = pos.legal;

  const auto text = fuzz::as_text(data + 1, size - 1);
  for (size_t start = 0; start <= text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;

    if (const auto option = agents::uci::parse_option(line)) {
      FUZZ_CHECK(!option->name.empty() && !is_space(option->name.front()) && !is_space(option->name.back()));
      FUZZ_CHECK(!option->type.empty() && std::none_of(option->type.begin(), option->type.end(), is_space));
      FUZZ_CHECK(line.find("option") != line.npos && line.find("type") != line.npos);
    }
    if (const auto score = agents::uci::parse_info_score(line)) {
      FUZZ_CHECK(score->cp || score->mate);
      FUZZ_CHECK(in_score_range(score->cp) && in_score_range(score->mate));
      FUZZ_CHECK(line.find("score") != line.npos);
    }
    if (const auto best = agents::uci::parse_bestmove(line)) {
      FUZZ_CHECK(std::none_of(best->begin(), best->end(), is_space));
      FUZZ_CHECK(line.find("bestmove") != line.npos);
      FUZZ_CHECK(agents::uci::is_engine_message(line));
      const bool syntax = agents::uci::is_move_syntax(variant, *best);
      FUZZ_CHECK(syntax == oracle_move_syntax(variant, *best));
      if (syntax) {
        // What the agent does next: a legal move is played, anything else is an illegal answer.
        const bool is_legal = std::find(legal.begin(), legal.end(), *best) != legal.end();
        const auto parsed = game.parse_move(*best);
        if (is_legal) FUZZ_CHECK(parsed.has_value() && *parsed == *best);
        if (!parsed) FUZZ_CHECK(!is_legal && !parsed.error().message.empty());
      }
    }
  }
  return 0;
}
