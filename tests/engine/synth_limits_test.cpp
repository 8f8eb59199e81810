// Synth refuses shapes that no real model has and that would take hours to plan or petabytes to
// write (found by fuzz/cli_values_fuzzer: llama-3-8b with --layers near 2^20 planned ten million
// tensors before anything happened), and still accepts the largest named shape.
#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "engine/tools/synth/model_shape.h"
#include "engine/tools/synth/synthesize.h"

using namespace engine::synth;

namespace {

std::expected<void, engine::Error> check(const ShapeOverrides& o, SynthDtype dtype = SynthDtype::Q4_K) {
  auto shape = resolve_shape(std::string("llama-3-8b"), o);
  REQUIRE(shape);
  SynthOptions options;
  options.shape = *shape;
  options.dtype = dtype;
  options.output_path = "unused.gguf";
  return check_options(options);
}

}  // namespace

TEST_CASE("synth refuses shapes too large to plan or write, quickly", "[engine]") {
  const auto start = std::chrono::steady_clock::now();
  CHECK(check({}));
  ShapeOverrides layers;
  layers.num_layers = (1 << 20) - 7;
  const auto r = check(layers);
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "layers = 1048569 is more than synth writes (at most 4096)");
  ShapeOverrides wide;
  wide.embd = 1 << 20;
  wide.ffn = 1 << 20;
  wide.head_dim = 1 << 15;
  const auto w = check(wide);
  REQUIRE_FALSE(w);
  CHECK(w.error().message.find("parameters, more than synth writes") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
}
