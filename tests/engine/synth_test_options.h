// Helpers of the model synthesis tests (synth_test.cpp, synth_vocab_test.cpp): a temporary
// path, and the options of a tiny model of one architecture and dtype.
#pragma once

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "engine/tools/synth/synthesize.h"

namespace arena::test {

// Private to this process: the suites of the SIMD levels (engine, engine_avx2, ...) run at once
// and write files of the same names.
inline std::string synth_temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("arena_synth_test_" + std::to_string(getpid()) + "_" + name))
      .string();
}

inline engine::synth::SynthOptions tiny_synth_options(engine::synth::Arch arch,
                                                      engine::synth::SynthDtype dtype,
                                                      const std::string& name) {
  engine::synth::ShapeOverrides o;
  o.arch = arch;
  auto shape = engine::synth::resolve_shape("tiny", o);
  REQUIRE(shape.has_value());
  engine::synth::SynthOptions options;
  options.shape = *shape;
  options.dtype = dtype;
  options.seed = 1;
  options.output_path = synth_temp_path(name);
  return options;
}

}  // namespace arena::test
