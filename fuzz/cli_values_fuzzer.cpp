// Fuzz target: the values a user types on the command line that arena parses itself: byte
// sizes (--memory, --kv-memory), thread counts (--threads), synth shapes, architectures and
// dtypes (with the shape checked and planned as `arena synth` would) and variant names. The first byte picks
// the parser; the rest is the value. Properties: a byte size that parses prints and re-parses to within
// rounding; a thread count outside 0..4 x cores is refused; a shape `arena synth` accepts has a tensor plan
// with sane sizes.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/tools/capacity_planner.h"
#include "engine/tools/synth/model_shape.h"
#include "engine/tools/synth/synthesize.h"
#include "engine/tools/synth/tensor_plan.h"
#include "fuzz/fuzz_check.h"
#include "games/game.h"
#include "kernels/thread_pool.h"

namespace {

// A little-endian int64 from up to 8 bytes of `text` at `at` (missing bytes are 0).
int64_t int_at(std::string_view text, size_t at) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8 && at + i < text.size(); ++i) v |= uint64_t(uint8_t(text[at + i])) << (8 * i);
  return static_cast<int64_t>(v);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const auto text = fuzz::as_text(data + 1, size - 1);
  switch (data[0] % 4) {
    case 0: {
      const auto bytes = engine::parse_byte_size(text);
      if (!bytes) break;
      const std::string printed = engine::format_bytes(*bytes);
      std::string number = printed.substr(0, printed.find(' '));
      std::string unit = printed.substr(printed.find(' ') + 1);
      const auto back = engine::parse_byte_size(number + (unit == "B" ? "" : unit));
      FUZZ_CHECK(back.has_value());
      // Two decimals of the printed unit: within 0.5% (or exact below 1 KiB).
      FUZZ_CHECK(std::fabs(static_cast<double>(*back) - static_cast<double>(*bytes)) <=
                 static_cast<double>(*bytes) * 0.005 + 1);
      break;
    }
    case 1: {
      const int requested = static_cast<int>(int_at(text, 0));
      const auto checked = kernels::check_num_threads(requested);
      FUZZ_CHECK(checked.has_value() == (requested >= 0 && requested <= kernels::max_num_threads()));
      if (checked) FUZZ_CHECK(*checked >= 1 && *checked <= kernels::max_num_threads());
      break;
    }
    case 2: {
      // A shape: a name, then overrides as 8-byte integers after a NUL.
      const size_t nul = text.find('\0');
      const std::string name(text.substr(0, nul));
      engine::synth::ShapeOverrides o;
      if (nul != std::string_view::npos) {
        const size_t at = nul + 1;
        const uint8_t mask = at < text.size() ? uint8_t(text[at]) : 0;
        auto pick = [&](int bit, std::optional<int64_t>& field) {
          if (mask & (1 << bit)) field = int_at(text, at + 1 + 8 * bit) % (int64_t{1} << 20);
        };
        pick(0, o.num_layers), pick(1, o.embd), pick(2, o.num_heads), pick(3, o.num_kv_heads);
        pick(4, o.head_dim), pick(5, o.ffn), pick(6, o.vocab), pick(7, o.context);
      }
      const auto shape = engine::synth::resolve_shape(
          engine::synth::find_shape(name) ? std::optional(name) : std::nullopt, o);
      if (!shape) break;
      for (auto dtype : {engine::synth::SynthDtype::F16, engine::synth::SynthDtype::Q8_0,
                         engine::synth::SynthDtype::Q4_K}) {
        // What `arena synth` checks before it writes; a shape it accepts must plan.
        engine::synth::SynthOptions options;
        options.shape = *shape;
        options.dtype = dtype;
        options.output_path = "unused.gguf";
        if (!engine::synth::check_options(options)) continue;
        const auto plan = engine::synth::plan_tensors(*shape, dtype);
        FUZZ_CHECK(plan.has_value());
        for (const auto& t : plan->tensors) {
          FUZZ_CHECK(!t.dims.empty());
          for (auto d : t.dims) FUZZ_CHECK(d > 0);
        }
      }
      break;
    }
    case 3: {
      (void)engine::synth::parse_arch(text);
      (void)engine::synth::parse_dtype(text);
      auto game = games::make_game(text);
      if (game) FUZZ_CHECK((*game)->variant() == text);
      break;
    }
  }
  return 0;
}
