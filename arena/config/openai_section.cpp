// An LLM agent's `openai:` settings: the server (base_url) or the fleet of replicas serving the
// model (endpoints: each a URL or {url, weight, api_key_env}), how the fleet routes (routing,
// routing_seed), the session header for external routers, and the client's limits.
#include <fmt/format.h>

#include <set>

#include "arena/config/sections.h"

namespace arena::config {
namespace {

bool url_ok(const std::string& url) {
  return url.starts_with("http://") || url.starts_with("https://");
}

// One `endpoints:` item: a URL, or a map with url and optionally weight and api_key_env.
void read_endpoint(const YamlNode& item, size_t index, const std::string& agent, LoadContext& ctx,
                   agents::OpenAiReplica& e) {
  const std::string what = fmt::format("endpoints[{}] of agent '{}'", index, agent);
  if (item.is_scalar()) {
    e.base_url = item.scalar;
  } else if (item.is_map()) {
    FieldReader f(&item, what, ctx.diag);
    f.read("url", e.base_url);
    f.read("weight", e.weight, 1, 1000);
    f.read("api_key_env", e.api_key_env);
    if (!f.has("url")) ctx.diag.error(item.mark, what + " needs a url (e.g. http://10.0.0.2:8000/v1)");
    f.finish();
    if (!f.has("url")) return;
  } else {
    ctx.diag.error(item.mark, fmt::format("{} must be a URL or a mapping (url, weight, api_key_env), got {}",
                                          what, item.kind_name()));
    return;
  }
  if (!url_ok(e.base_url))
    ctx.diag.error(item.mark, fmt::format("{}: the url must start with http:// or https://, got '{}'", what,
                                          e.base_url));
}

void read_endpoints(FieldReader& f, const std::string& agent, LoadContext& ctx,
                    agents::OpenAiBackendConfig& o) {
  const YamlNode* list = f.get("endpoints");
  if (!list || list->is_null()) return;
  if (!list->is_sequence() || list->items.empty()) {
    ctx.diag.error(list->mark, fmt::format("endpoints of agent '{}' must be a non-empty list of URLs, got {}",
                                           agent, list->kind_name()));
    return;
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < list->items.size(); ++i) {
    agents::OpenAiReplica e;
    read_endpoint(list->items[i], i, agent, ctx, e);
    if (!e.base_url.empty() && !seen.insert(e.base_url).second)
      ctx.diag.error(list->items[i].mark,
                     fmt::format("endpoint {} is listed twice for agent '{}'", e.base_url, agent));
    o.endpoints.push_back(std::move(e));
  }
}

}  // namespace

void read_openai(const YamlNode* node, const std::string& agent, LoadContext& ctx,
                 agents::OpenAiBackendConfig& o) {
  FieldReader f(node, fmt::format("openai of agent '{}'", agent), ctx.diag);
  f.read("base_url", o.base_url);
  read_endpoints(f, agent, ctx, o);
  f.read_enum("routing", o.routing, agents::kRoutingNames);
  f.read("routing_seed", o.routing_seed);
  f.read("session_header", o.session_header);
  f.read("model", o.model);
  f.read("api_key_env", o.api_key_env);
  f.read_enum("endpoint", o.endpoint, agents::kEndpointNames);
  f.read_enum("constraint", o.constraint, agents::kRemoteConstraintNames);
  f.read_duration("timeout", o.timeout, std::chrono::milliseconds(1));
  f.read("max_concurrency", o.max_concurrency, 1, 1024);
  f.read("max_retries", o.max_retries, 0, 100);
  f.read_duration("backoff", o.backoff, std::chrono::milliseconds(0));
  if (node && !node->is_null()) {
    const bool fleet = f.has("endpoints");
    if (fleet && f.has("base_url"))
      ctx.diag.error(
          f.mark("endpoints"),
          fmt::format("openai of agent '{}': give base_url (one server) or endpoints (a fleet), not both",
                      agent));
    else if (!fleet && o.base_url.empty())
      ctx.diag.error(f.mark(),
                     fmt::format("openai of agent '{}' needs base_url (e.g. http://127.0.0.1:8000/v1) "
                                 "or endpoints (a list of them)",
                                 agent));
    else if (!fleet && !url_ok(o.base_url))
      ctx.diag.error(f.mark("base_url"),
                     fmt::format("base_url must start with http:// or https://, got '{}'", o.base_url));
    if (!fleet && (f.has("routing") || f.has("routing_seed")))
      ctx.diag.error(f.mark(f.has("routing") ? "routing" : "routing_seed"),
                     fmt::format("openai of agent '{}': routing needs a fleet (endpoints: [...])", agent));
    if (o.session_header.find_first_of("\r\n: ") != std::string::npos)
      ctx.diag.error(f.mark("session_header"),
                     fmt::format("session_header '{}' is not an HTTP header name", o.session_header));
    if (o.model.empty())
      ctx.diag.error(f.mark(),
                     fmt::format("openai of agent '{}' needs model (the server's model name)", agent));
  }
  f.finish();
}

}  // namespace arena::config
