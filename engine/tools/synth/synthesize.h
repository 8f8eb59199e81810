// Writes a random-weight GGUF model of a given shape, architecture and weight type: llama.cpp's
// metadata keys and tensor names, a vocabulary (built-in or copied from another GGUF), and weights
// generated, quantized and written tensor by tensor on all cores, so memory stays small even for
// an 8B model. The same options and seed always give the same bytes.
#pragma once

#include <cstdint>
#include <expected>
#include <functional>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/tools/synth/model_shape.h"
#include "engine/tools/synth/synth_dtype.h"

namespace engine::gguf {
class GgufWriter;
}

namespace engine::synth {

struct SynthOptions {
  ModelShape shape;          // resolved; vocab 0 means "from the tokenizer file"
  bool vocab_given = false;  // shape.vocab came from --vocab and must agree with a tokenizer file
  SynthDtype dtype = SynthDtype::F16;
  uint64_t seed = 0;
  std::string tokenizer_path;    // a GGUF whose tokenizer.* keys to copy; empty: the built-in vocabulary
  std::string corpus_path;       // the built-in vocabulary's merges learned from this text file instead
  std::string user_tokens_path;  // one USER_DEFINED token a line, appended to the vocabulary
  std::string output_path;
  std::string name;     // general.name; empty: "synth-<shape>-<dtype>"
  int num_threads = 0;  // 0: every core
};

struct SynthResult {
  ModelShape shape;  // as written (vocab filled in)
  int64_t num_tensors = 0;
  int64_t num_params = 0;
  uint64_t file_bytes = 0;
  std::vector<std::string> notes;  // tensors stored in a fallback type
};

// Called before each tensor is generated: its index, the tensor count and its name.
using SynthProgress = std::function<void(size_t index, size_t count, const std::string& name)>;

// Checks what does not need the tokenizer file or the disk: the dtype's row-length rules for
// every tensor, and that the built-in vocabulary can have shape.vocab tokens. synthesize() checks
// it too; callers use it to tell usage errors from failures while writing.
std::expected<void, Error> check_options(const SynthOptions& options);

// Writes the model described by `options`. Errors (bad shape for the dtype, unreadable or
// mismatching tokenizer file, unwritable output) leave no output file behind.
std::expected<SynthResult, Error> synthesize(const SynthOptions& options, const SynthProgress& progress = {});

// Sets general.* and the architecture's hyper-parameter keys for `shape` (llama.cpp's names).
void write_model_metadata(const ModelShape& shape, SynthDtype dtype, const std::string& name,
                          gguf::GgufWriter& writer);

}  // namespace engine::synth
