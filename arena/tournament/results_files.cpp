// games.pgn and the standings files (see results_files.h).
#include "arena/tournament/results_files.h"

#include <fmt/core.h>

#include <fstream>

namespace arena::tournament {

std::expected<void, std::string> write_file_atomic(const std::filesystem::path& path,
                                                   const std::string& text) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return std::unexpected(fmt::format("cannot write '{}'", tmp.string()));
    out << text;
    if (!out.flush()) return std::unexpected(fmt::format("writing '{}' failed", tmp.string()));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return std::unexpected(fmt::format("cannot replace '{}': {}", path.string(), ec.message()));
  return {};
}

std::expected<void, std::string> append_pgn(const std::filesystem::path& dir, const GameRecord& game,
                                            const PgnContext& context) {
  auto text = game_to_pgn(game, context);
  if (!text) return std::unexpected(text.error());
  std::ofstream out(dir / "games.pgn", std::ios::binary | std::ios::app);
  if (!out) return std::unexpected(fmt::format("cannot write '{}'", (dir / "games.pgn").string()));
  out << *text;
  return {};
}

std::expected<void, std::string> rewrite_pgn(const std::filesystem::path& dir, const GameBook& book,
                                             const PgnContext& context) {
  std::string all;
  for (const auto& [index, game] : book.games()) {
    if (!game.finished()) continue;
    auto text = game_to_pgn(game, context);
    if (!text) return std::unexpected(text.error());
    all += *text;
  }
  return write_file_atomic(dir / "games.pgn", all);
}

std::expected<void, std::string> write_standings(const std::filesystem::path& dir,
                                                 const Standings& standings) {
  if (auto ok = write_file_atomic(dir / "standings.json", standings_json(standings).dump(2) + "\n"); !ok)
    return ok;
  if (auto ok = write_file_atomic(dir / "standings.md", standings_markdown(standings)); !ok) return ok;
  return write_file_atomic(dir / "standings.txt", standings_text(standings));
}

}  // namespace arena::tournament
