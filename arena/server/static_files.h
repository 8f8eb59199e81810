// The board view's static assets (HTML, CSS, JS) served from one folder. A request can never
// reach a file outside it: '..' and '.' segments (also percent-encoded, e.g. %2e%2e), backslashes,
// NUL bytes, absolute paths ('//etc/passwd') and symlinks leading out of the folder are refused.
#pragma once

#include <filesystem>
#include <string_view>

#include "arena/server/http_types.h"

namespace arena::server {

class StaticFiles {
 public:
  // Serves files under `root` (which need not exist: every request is then a 404).
  explicit StaticFiles(std::filesystem::path root);

  // The file for URL path `path` (percent-encoded, starting with '/'; a folder serves its
  // index.html): 200 with its content type, 400 for a path that tries to leave the folder or is
  // malformed, 404 when there is no such file.
  HttpResponse serve(std::string_view path) const;

  const std::filesystem::path& root() const { return root_; }

 private:
  std::filesystem::path root_;  // canonical when it exists
};

// The Content-Type for a file name's extension.
std::string_view content_type_for(const std::filesystem::path& file);

}  // namespace arena::server
