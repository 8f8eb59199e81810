// The board server's HttpRequest from a request Boost.Beast has parsed: the method, the target
// split at '?' into path and query, header names lower-cased, the body moved out. A template over
// the request type, so that this header does not include Beast (board_server.cpp stays the one
// translation unit of the server that does); the HTTP fuzz target (fuzz/http_ws_fuzzer.cpp)
// parses bytes with the session's limits and converts them with this same function.
#pragma once

#include <cctype>
#include <string>
#include <utility>

#include "arena/server/http_types.h"

namespace arena::server {

// The HttpRequest of `req`, a beast::http::request<string_body> (its body is moved out).
template <typename BeastRequest>
HttpRequest to_http_request(BeastRequest& req) {
  HttpRequest request;
  request.method = std::string(req.method_string());
  request.target = std::string(req.target());
  const size_t q = request.target.find('?');
  request.path = request.target.substr(0, q);
  request.query = q == std::string::npos ? "" : request.target.substr(q + 1);
  request.body = std::move(req.body());
  request.version = req.version();
  for (const auto& field : req) {
    std::string name(field.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    request.headers.emplace_back(std::move(name), std::string(field.value()));
  }
  return request;
}

}  // namespace arena::server
