// The `models:` section: one entry per GGUF model, with the knobs of the engine serving it.
#include <fmt/format.h>

#include "arena/config/sections.h"

namespace arena::config {
namespace {

void read_model(const YamlNode& node, size_t index, LoadContext& ctx, ModelConfig& m, ModelMarks& marks) {
  FieldReader f(&node, fmt::format("models[{}]", index), ctx.diag);
  marks.entry = node.mark;
  f.read("name", m.name);
  marks.name = f.mark("name");
  if (!f.has("name")) ctx.diag.error(node.mark, fmt::format("models[{}] needs a name", index));
  f.read("path", m.path);
  marks.path = f.mark("path");
  marks.path_given = f.has("path") && !m.path.empty();
  if (marks.path_given) m.path = ctx.path(m.path, marks.path);
  f.read("chat_template", m.chat_template);
  f.read("threads", m.threads, 0, 1024);

  engine::SchedulerConfig& s = m.engine.scheduler;
  f.read_enum("batching", s.mode, engine::kBatchingModeNames);
  f.read("max_num_seqs", s.max_num_seqs, 1, 4096);
  f.read("max_num_batched_tokens", s.max_num_batched_tokens, 1, 1 << 20);
  f.read("max_prefill_tokens", s.max_prefill_tokens, 0, 1 << 20);
  f.read("max_queue", s.max_queue, 1, 1 << 20);

  engine::CacheConfig& c = m.engine.cache;
  f.read("block_size", c.block_size, 1, 1024);
  f.read_enum("kv_dtype", c.dtype, engine::kKvDtypeNames);
  uint64_t kv_bytes = c.kv_cache_bytes;
  f.read_memory("kv_cache_size", kv_bytes, uint64_t{1} << 20);
  c.kv_cache_bytes = static_cast<size_t>(kv_bytes);
  f.read("kv_memory_fraction", c.kv_memory_fraction, 0.001, 1.0);
  f.read("prefix_cache", c.enable_prefix_cache);
  f.finish();
}

}  // namespace

void read_models(const YamlNode* node, LoadContext& ctx, Config& config, Marks& marks) {
  if (!node || node->is_null()) return;
  if (!node->is_sequence()) {
    ctx.diag.error(node->mark,
                   fmt::format("models must be a list of models (- name: ...), got {}", node->kind_name()));
    return;
  }
  for (size_t i = 0; i < node->items.size(); ++i) {
    ModelConfig m;
    ModelMarks mm;
    read_model(node->items[i], i, ctx, m, mm);
    config.models.push_back(std::move(m));
    marks.models.push_back(mm);
  }
}

}  // namespace arena::config
