// The `web:` section: the board server's address and port, and the host names and browser
// origins it answers beyond its own (checked by web_names.h; docs/security.md).
#include <fmt/format.h>

#include <algorithm>

#include "arena/config/sections.h"
#include "arena/config/web_names.h"

namespace arena::config {

namespace {

using Check = NameCheck (*)(std::string_view);

// Appends `name` to `out` unless it is there already.
void add_unique(std::vector<std::string>& out, std::string name) {
  if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
}

// `key` of the section: one name or a list of names, each checked at its own line.
void read_names(FieldReader& w, std::string_view key, Check check, std::vector<std::string>& out) {
  const YamlNode* v = w.get(key);
  if (!v || v->is_null()) return;
  std::vector<const YamlNode*> items;
  if (v->is_scalar()) items.push_back(v);
  if (v->is_sequence())
    for (const auto& item : v->items) items.push_back(&item);
  if (!v->is_scalar() && !v->is_sequence())
    return w.diag().error(v->mark, fmt::format("web.{} must be a name or a list of names", key));
  out.clear();
  for (const YamlNode* item : items) {
    if (!item->is_scalar()) {
      w.diag().error(item->mark, fmt::format("web.{} holds names (strings), got {}", key, item->kind_name()));
      continue;
    }
    const NameCheck checked = check(item->scalar);
    if (checked.error)
      w.diag().error(item->mark, fmt::format("web.{}: {}", key, *checked.error));
    else
      add_unique(out, checked.normalised);
  }
}

}  // namespace

void read_web(const YamlNode* node, LoadContext& ctx, Config& config, Marks& marks) {
  FieldReader w(node, "web", ctx.diag);
  w.read("bind", config.web.bind);
  w.read("port", config.web.port, 0, 65535);
  read_names(w, "allowed_hosts", &check_allowed_host, config.web.allowed_hosts);
  read_names(w, "allowed_origins", &check_allowed_origin, config.web.allowed_origins);
  marks.web_bind = w.mark("bind");
  marks.web_port = w.mark("port");
  w.finish();
}

void apply_web_overrides(const Overrides& overrides, Diagnostics& diag, Config& config) {
  const auto add = [&](const std::vector<std::string>& names, const char* flag, Check check,
                       std::vector<std::string>& out) {
    for (const std::string& name : names) {
      const NameCheck checked = check(name);
      if (checked.error)
        diag.error_at(flag, *checked.error);
      else
        add_unique(out, checked.normalised);
    }
  };
  add(overrides.allowed_hosts, "--allowed-host", &check_allowed_host, config.web.allowed_hosts);
  add(overrides.allowed_origins, "--allowed-origin", &check_allowed_origin, config.web.allowed_origins);
}

}  // namespace arena::config
