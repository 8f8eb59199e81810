// StaticFiles: decode, check every segment, resolve symlinks, check the result is inside root.
#include "arena/server/static_files.h"

#include <fstream>
#include <sstream>
#include <system_error>

namespace arena::server {

namespace fs = std::filesystem;

StaticFiles::StaticFiles(fs::path root) : root_(std::move(root)) {
  std::error_code ec;
  fs::path canonical = fs::canonical(root_, ec);
  if (!ec) root_ = canonical;
}

std::string_view content_type_for(const fs::path& file) {
  const std::string ext = file.extension().string();
  if (ext == ".html") return "text/html; charset=utf-8";
  if (ext == ".css") return "text/css; charset=utf-8";
  if (ext == ".js" || ext == ".mjs") return "text/javascript; charset=utf-8";
  if (ext == ".json") return "application/json";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".png") return "image/png";
  if (ext == ".ico") return "image/x-icon";
  if (ext == ".txt" || ext == ".md") return "text/plain; charset=utf-8";
  if (ext == ".woff2") return "font/woff2";
  return "application/octet-stream";
}

HttpResponse StaticFiles::serve(std::string_view path) const {
  const auto decoded = percent_decode(path);
  if (!decoded) return json_error(400, "malformed percent-encoding in the path");
  const std::string& p = *decoded;
  if (p.empty() || p[0] != '/') return json_error(400, "the path must start with '/'");
  if (p.size() > 1 && p[1] == '/') return json_error(400, "absolute paths are not served");
  if (p.find('\0') != std::string::npos || p.find('\\') != std::string::npos)
    return json_error(400, "the path holds a NUL byte or a backslash");

  // Every segment must be an ordinary name: no '.', '..', and none starting with '~'.
  fs::path relative;
  size_t pos = 1;
  while (pos <= p.size()) {
    const size_t slash = p.find('/', pos);
    const std::string segment = p.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
    pos = slash == std::string::npos ? p.size() + 1 : slash + 1;
    if (segment.empty()) continue;
    if (segment == "." || segment == ".." || segment.find(':') != std::string::npos)
      return json_error(400, "the path may not contain '.', '..' or ':' segments");
    relative /= segment;
  }

  std::error_code ec;
  fs::path file = root_ / relative;
  if (fs::is_directory(file, ec)) file /= "index.html";
  // Symlinks are resolved; the file itself, not only its name, must lie inside the folder.
  const fs::path real = fs::canonical(file, ec);
  if (ec) return json_error(404, "no such file");
  const std::string real_s = real.string(), root_s = root_.string();
  if (real_s.size() <= root_s.size() || real_s.compare(0, root_s.size(), root_s) != 0 ||
      real_s[root_s.size()] != '/')
    return json_error(403, "the file lies outside the asset folder");
  if (!fs::is_regular_file(real, ec)) return json_error(404, "no such file");

  std::ifstream in(real, std::ios::binary);
  if (!in) return json_error(404, "the file cannot be read");
  std::ostringstream body;
  body << in.rdbuf();
  HttpResponse r;
  r.content_type = std::string(content_type_for(real));
  r.body = body.str();
  r.headers.emplace_back("Cache-Control", "no-cache");
  return r;
}

}  // namespace arena::server
