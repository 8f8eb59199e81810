// Invariance on the fake model: a request's tokens and logits do not depend on what else is
// served, on prefix-cache hits, on preemption or on the prefill chunk size.
#include <catch2/catch.hpp>

#include "tests/engine/serve_fakes.h"
#include "tests/engine/serve_harness.h"

TEST_CASE("Serving invariance on the fake model (F32 KV)", "[engine]") {
  arena::test::FakeTokenizer tok;
  arena::test::FakeModel model;
  arena::test::check_invariance(model, tok, engine::KvDtype::F32, 2, 110, 0.0f);
}

TEST_CASE("Serving invariance on the fake model (F16 and Q8_0 KV)", "[engine]") {
  arena::test::FakeTokenizer tok;
  arena::test::FakeModel model;
  arena::test::check_invariance(model, tok, engine::KvDtype::F16, 2, 110, 0.0f);
  arena::test::check_invariance(model, tok, engine::KvDtype::Q8_0, 2, 110, 0.0f);
}
