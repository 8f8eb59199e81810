// Test helpers for the model tests: small random-weight GGUF models written with `arena synth`'s
// library (no test data needed), and copies of a GGUF with metadata or tensors changed, for the
// loader's error paths and for features the synthesizer does not write (rope_freqs, scaling).
#pragma once

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/gguf/gguf_file.h"
#include "engine/tools/gguf_writer.h"
#include "engine/tools/synth/synthesize.h"

namespace engine::test {

// Files written by these helpers, removed when the test program exits.
struct TempFiles {
  std::vector<std::filesystem::path> paths;
  ~TempFiles() {
    std::error_code ignored;
    for (const auto& p : paths) std::filesystem::remove(p, ignored);
  }
};

// A temporary file name, private to this process (test runs may overlap on one machine), and
// deleted at exit.
inline std::filesystem::path temp_model_path(const std::string& name) {
  static TempFiles files;
  auto path = std::filesystem::temp_directory_path() /
              ("arena_model_test_" + std::to_string(getpid()) + "_" + name + ".gguf");
  files.paths.push_back(path);
  return path;
}

// Writes a `tiny`-shaped (2 layers, embd 256, 4 heads, 2 KV heads) model of `arch` and `dtype`,
// with its output projection tied to token_embd (no output.weight) when `tied`, and a sliding
// window of `window` positions (phi3, gemma2; 0: none), and `experts` experts of which each token
// uses 2 (llama: Mixtral's layout; qwen2moe and qwen3moe have 8 unless told).
inline std::string synth_tiny(const std::string& name, synth::Arch arch,
                              synth::SynthDtype dtype = synth::SynthDtype::F32, uint64_t seed = 1,
                              bool tied = false, int64_t window = 0, int64_t experts = 0) {
  synth::ShapeOverrides overrides;
  overrides.arch = arch;
  overrides.tied_embeddings = tied;
  overrides.sliding_window = window;
  const bool moe_arch = arch == synth::Arch::Qwen2Moe || arch == synth::Arch::Qwen3Moe;
  if (experts == 0 && moe_arch) experts = 8;
  if (experts > 0) {  // 2 experts per token; qwen2moe/qwen3moe experts of width 256
    overrides.num_experts = experts;
    overrides.experts_used = 2;
    if (moe_arch) overrides.expert_ffn = 256;
  }
  auto shape = synth::resolve_shape("tiny", overrides);
  REQUIRE(shape.has_value());
  synth::SynthOptions options;
  options.shape = *shape;
  options.dtype = dtype;
  options.seed = seed;
  options.output_path = temp_model_path(name).string();
  options.num_threads = 1;
  const auto written = synth::synthesize(options);
  REQUIRE(written.has_value());
  return options.output_path;
}

// One tensor of a rewritten file: name, dims, type and bytes.
struct TensorData {
  std::string name;
  std::vector<int64_t> dims;
  kernels::GgmlType type;
  std::vector<std::byte> bytes;
};

// Copies `src` to a new file `name`, letting `edit_metadata` change the writer's keys and
// `edit_tensors` change the tensor list, and returns the new path.
inline std::string rewrite_gguf(const std::string& src, const std::string& name,
                                const std::function<void(gguf::GgufWriter&)>& edit_metadata,
                                const std::function<void(std::vector<TensorData>&)>& edit_tensors) {
  auto file = gguf::GgufFile::open(src);
  REQUIRE(file.has_value());
  gguf::GgufWriter writer(static_cast<uint32_t>(file->alignment()));
  for (const auto& [key, value] : file->metadata())
    if (key != "general.alignment") writer.set(key, value);
  if (edit_metadata) edit_metadata(writer);
  std::vector<TensorData> tensors;
  for (const auto& t : file->tensors())
    tensors.push_back({t.name, t.dims, t.type, std::vector<std::byte>(t.data.begin(), t.data.end())});
  if (edit_tensors) edit_tensors(tensors);
  std::vector<std::vector<std::byte>> data;
  for (auto& t : tensors) {
    REQUIRE(writer.add_tensor(t.name, t.dims, t.type).has_value());
    data.push_back(std::move(t.bytes));
  }
  const std::string path = temp_model_path(name).string();
  const auto ok = writer.write_file(path, data);
  INFO((ok ? std::string() : ok.error().message));
  REQUIRE(ok.has_value());
  return path;
}

// The tensor called `name` in `tensors`, or nullptr.
inline TensorData* find_tensor(std::vector<TensorData>& tensors, const std::string& name) {
  for (auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace engine::test
