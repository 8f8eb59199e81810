// `arena perft`: move-generation node counts for any game variant, either one position
// (`--depth N [--fen FEN] [--divide]`) or a whole EPD suite of expected counts
// (`--epd FILE [--max-depth N]`, lines `FEN ;D1 n ;D2 n ...`), reporting every mismatch.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <expected>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "arena/cli/command.h"
#include "games/epd.h"
#include "games/game.h"

namespace arena::cli {

namespace {

struct PerftFlags {
  std::string game = "chess";
  std::string fen;
  std::string epd;
  int depth = -1;
  int max_depth = 99;
  bool divide = false;
};

int fail(const std::string& message) {
  fmt::print(stderr, "arena perft: error: {}\n", message);
  return 1;
}

// The EPD suite at `path` (games/epd.h: bounded lines, checked counts).
std::expected<std::vector<games::EpdEntry>, std::string> read_epd(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::unexpected(fmt::format("cannot read EPD file '{}'", path));
  return games::read_epd(in, path);
}

int run_epd(const PerftFlags& f) {
  const auto entries = read_epd(f.epd);
  if (!entries) return fail(entries.error());
  // Check every FEN before the (possibly long) counting starts.
  for (const auto& entry : *entries)
    if (auto game = games::make_game(f.game, entry.fen); !game)
      return fail(fmt::format("{}:{}: {}", f.epd, entry.line, game.error().message));
  int passed = 0, failed = 0;
  for (const auto& entry : *entries) {
    auto game = std::move(*games::make_game(f.game, entry.fen));
    for (const auto& [depth, expected] : entry.counts) {
      if (depth > f.max_depth) continue;
      const uint64_t found = game->perft(depth);
      if (found == expected) {
        ++passed;
        continue;
      }
      ++failed;
      fmt::print("mismatch: line {}: {} depth {}: expected {}, found {}\n", entry.line, entry.fen, depth,
                 expected, found);
    }
  }
  fmt::print("{} passed, {} failed\n", passed, failed);
  return failed ? 1 : 0;
}

int run_position(const PerftFlags& f) {
  auto game = games::make_game(f.game, f.fen);
  if (!game) return fail(game.error().message);
  uint64_t total = 0;
  if (f.divide) {
    for (const auto& [move, nodes] : (*game)->perft_divide(f.depth)) {
      fmt::print("{}: {}\n", move, nodes);
      total += nodes;
    }
    fmt::print("\n");
  } else {
    total = (*game)->perft(f.depth);
  }
  fmt::print("Nodes searched: {}\n", total);
  return 0;
}

}  // namespace

void add_perft_command(CLI::App& root, Action& action) {
  auto flags = std::make_shared<PerftFlags>();
  auto* cmd =
      root.add_subcommand("perft", "Count the leaf nodes of the legal-move tree (move generator check)");
  cmd->add_option("--game", flags->game, "Game variant")
      ->check(CLI::IsMember(games::game_variants()))
      ->capture_default_str();
  auto* fen = cmd->add_option("--fen", flags->fen, "Start position (default: the variant's start position)");
  auto* depth = cmd->add_option("--depth", flags->depth, "Plies to search")->check(CLI::Range(0, 20));
  auto* divide =
      cmd->add_flag("--divide", flags->divide, "Print the count below each legal move (UCI, sorted)");
  auto* epd = cmd->add_option("--epd", flags->epd, "Check every ';Dk n' count of every line of an EPD file");
  auto* max_depth =
      cmd->add_option("--max-depth", flags->max_depth, "With --epd: skip counts deeper than this")
          ->check(CLI::Range(1, 20));
  epd->excludes(fen)->excludes(depth)->excludes(divide);
  max_depth->needs(epd);
  divide->needs(depth);
  cmd->callback([flags, depth, epd, &action] {
    if (depth->count() == 0 && epd->count() == 0) throw CLI::RequiredError("--depth or --epd");
    if (flags->divide && flags->depth < 1)
      throw CLI::ValidationError("--divide", "needs --depth of at least 1");
    action = [flags] { return flags->epd.empty() ? run_position(*flags) : run_epd(*flags); };
  });
}

}  // namespace arena::cli
