// games.pgn and the standings files (see results_files.h).
#include "arena/tournament/results_files.h"

#include <fmt/core.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace arena::tournament {

std::expected<void, std::string> write_file_atomic(const std::filesystem::path& path,
                                                   const std::string& text) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  // On any failure the temporary goes too: a full or read-only disk leaves only the last good
  // file (issue 25 found empty games.pgn.tmp / standings.json.tmp left beside the results).
  const auto failed = [&](std::string why) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    return std::unexpected(std::move(why));
  };
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return failed(fmt::format("cannot write '{}': {}", tmp.string(), std::strerror(errno)));
    out << text;
    if (!out.flush())
      return failed(fmt::format("writing '{}' failed: {}", tmp.string(), std::strerror(errno)));
    out.close();
    if (!out) return failed(fmt::format("writing '{}' failed: {}", tmp.string(), std::strerror(errno)));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return failed(fmt::format("cannot replace '{}': {}", path.string(), ec.message()));
  return {};
}

std::expected<void, std::string> append_pgn(const std::filesystem::path& dir, const GameRecord& game,
                                            const PgnContext& context) {
  auto text = game_to_pgn(game, context);
  if (!text) return std::unexpected(text.error());
  const std::filesystem::path path = dir / "games.pgn";
  std::error_code ec;
  const auto before = std::filesystem::exists(path, ec) ? std::filesystem::file_size(path, ec) : 0;
  std::ofstream out(path, std::ios::binary | std::ios::app);
  if (!out) return std::unexpected(fmt::format("cannot write '{}': {}", path.string(), std::strerror(errno)));
  out << *text;
  out.close();
  if (!out) {
    // No half game stays at the end (the file is rewritten from the log at the end of the run).
    const std::string why = std::strerror(errno);
    if (!ec) std::filesystem::resize_file(path, before, ec);
    return std::unexpected(fmt::format("writing '{}' failed: {}", path.string(), why));
  }
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
