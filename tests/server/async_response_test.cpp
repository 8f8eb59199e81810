// AsyncResponse across threads (arena/server/http_types.h): once the session clears the waker
// (cancel, or set_waker for the next one), no waker runs any more and the producer's copy is gone,
// so what the waker holds can go with the server. A server stopped while the engine thread was
// in a waker freed the session's strand under it (ASan, tests/server/openai_api_test.cpp).
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <memory>
#include <thread>

#include "arena/server/http_types.h"

using arena::server::AsyncResponse;
using arena::server::HttpResponse;
using namespace std::chrono_literals;

namespace {

// A producer thread completes `response` and stays inside its waker until `release` is set; the
// waker holds `token`. Runs `clear` on this thread once the waker is entered.
void check_clear_waits_for_waker(void (*clear)(AsyncResponse&)) {
  AsyncResponse response;
  auto token = std::make_shared<int>(0);
  std::atomic<bool> entered = false, release = false;
  response.set_waker([token, &entered, &release] {
    entered = true;
    while (!release) std::this_thread::sleep_for(1ms);
  });
  std::thread producer([&] { response.respond(HttpResponse{}); });
  while (!entered) std::this_thread::sleep_for(1ms);
  auto cleared = std::async(std::launch::async, [&] { clear(response); });
  CHECK(cleared.wait_for(100ms) == std::future_status::timeout);  // the waker still runs
  release = true;
  REQUIRE(cleared.wait_for(10s) == std::future_status::ready);
  CHECK(token.use_count() == 1);  // neither the waker nor the producer's copy holds it
  producer.join();
}

}  // namespace

TEST_CASE("Clearing an AsyncResponse's waker waits for a waker still running on another thread", "[server]") {
  SECTION("cancel") {
    check_clear_waits_for_waker([](AsyncResponse& r) { r.cancel(); });
  }
  SECTION("set_waker") {
    check_clear_waits_for_waker([](AsyncResponse& r) { r.set_waker(nullptr); });
  }
}
