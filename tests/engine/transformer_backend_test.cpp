// The transformer computes only through its backend (kernels/ops.h): a backend that wraps the
// CPU one and checks every activation span it is handed against the memory it allocated (or the
// host logits it staged) sees a whole forward pass, gives the CPU backend's logits bit for bit,
// and catches none of the model's activations living elsewhere. Also the CPU backend's own
// pieces: staging in place, download, gather_rows, and a refused thread count.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "engine/gguf/gguf_file.h"
#include "engine/model/model_config.h"
#include "engine/model/model_weights.h"
#include "engine/model/sequence_runner.h"
#include "engine/model/transformer.h"
#include "kernels/cpu/cpu_backend.h"
#include "tests/engine/model_test_files.h"

namespace {

// Delegates to a CPU backend; counts the ops and records any activation span outside the
// buffers it allocated and the host span it staged (a model computing in its own memory).
class CheckingBackend final : public kernels::Backend {
 public:
  std::map<std::string, int> calls;
  std::vector<std::string> strays;

  kernels::Device device() const override { return cpu_.device(); }
  int num_threads() const override { return cpu_.num_threads(); }
  std::string describe() const override { return "checking " + cpu_.describe(); }
  kernels::DeviceBuffer allocate(size_t count) override {
    kernels::DeviceBuffer b = cpu_.allocate(count);
    owned_.push_back(b.first(count));
    return b;
  }
  std::span<float> staging(std::span<float> host, kernels::DeviceBuffer& scratch) override {
    staged_ = cpu_.staging(host, scratch);
    return staged_;
  }
  void download(std::span<const float> src, std::span<float> dst) override {
    check("download", src);
    cpu_.download(src, dst);
  }
  void embedding(const kernels::MatrixView& t, std::span<const int32_t> ids, std::span<float> out) override {
    check("embedding", out);
    cpu_.embedding(t, ids, out);
  }
  void rmsnorm(std::span<const float> x, std::span<const float> w, int64_t dim, float eps,
               std::span<float> out) override {
    check("rmsnorm", x, out);
    cpu_.rmsnorm(x, w, dim, eps, out);
  }
  void matmul(const kernels::MatrixView& w, std::span<const float> x, int64_t n,
              std::span<float> y) override {
    check("matmul", x, y);
    cpu_.matmul(w, x, n, y);
  }
  void matmul_group(std::span<const kernels::MatmulTarget> targets, std::span<const float> x,
                    int64_t n) override {
    for (const auto& t : targets) check("matmul_group", x, t.y);
    cpu_.matmul_group(targets, x, n);
  }
  void add_bias(std::span<float> x, std::span<const float> bias) override {
    check("add_bias", x);
    cpu_.add_bias(x, bias);
  }
  void rope(std::span<float> x, std::span<const int32_t> pos, int32_t heads, int32_t hd,
            const kernels::RopeParams& p) override {
    check("rope", x);
    cpu_.rope(x, pos, heads, hd, p);
  }
  void store_kv(const kernels::KvLayerMutView& kv, std::span<const float> k, std::span<const float> v,
                std::span<const int32_t> slots) override {
    check("store_kv", k, v);
    cpu_.store_kv(kv, k, v, slots);
  }
  void paged_attention_batch(std::span<const float> q, std::span<const int32_t> pos, int32_t heads,
                             const kernels::KvLayerView& kv, std::span<const kernels::AttentionSeq> seqs,
                             kernels::AttentionScores scores, std::span<float> out) override {
    check("paged_attention_batch", q, out);
    cpu_.paged_attention_batch(q, pos, heads, kv, seqs, scores, out);
  }
  void swiglu(std::span<const float> g, std::span<const float> u, std::span<float> out) override {
    check("swiglu", g, u, out);
    cpu_.swiglu(g, u, out);
  }
  void geglu(std::span<const float> g, std::span<const float> u, std::span<float> out) override {
    check("geglu", g, u, out);
    cpu_.geglu(g, u, out);
  }
  void scale(std::span<float> x, float factor) override {
    check("scale", x);
    cpu_.scale(x, factor);
  }
  void add(std::span<const float> a, std::span<const float> b, std::span<float> out) override {
    check("add", a, b, out);
    cpu_.add(a, b, out);
  }
  void gather_rows(std::span<const float> src, std::span<const int32_t> rows, int64_t cols,
                   std::span<float> dst) override {
    check("gather_rows", src, dst);
    cpu_.gather_rows(src, rows, cols, dst);
  }
  void select_experts(std::span<const float> logits, int32_t experts, int32_t k, bool normalize,
                      std::span<int32_t> ids, std::span<float> weights) override {
    check("select_experts", logits);
    cpu_.select_experts(logits, experts, k, normalize, ids, weights);
  }
  void combine_experts(std::span<const float> src, std::span<const int32_t> slots,
                       std::span<const float> weights, int32_t k, int64_t cols,
                       std::span<float> out) override {
    check("combine_experts", src, out);
    cpu_.combine_experts(src, slots, weights, k, cols, out);
  }
  void add_sigmoid_gated(std::span<const float> x, std::span<const float> gate,
                         std::span<float> out) override {
    check("add_sigmoid_gated", x, gate, out);
    cpu_.add_sigmoid_gated(x, gate, out);
  }

 private:
  bool known(std::span<const float> s) const {
    auto inside = [&](std::span<const float> m) {
      return s.data() >= m.data() && s.data() + s.size() <= m.data() + m.size();
    };
    return inside(staged_) || std::any_of(owned_.begin(), owned_.end(), inside);
  }
  template <typename... Spans>
  void check(const char* op, Spans... spans) {
    ++calls[op];
    for (std::span<const float> s : {std::span<const float>(spans)...})
      if (!known(s)) strays.push_back(op);
  }

  kernels::CpuBackend cpu_{2};
  std::vector<std::span<float>> owned_;
  std::span<float> staged_;
};

}  // namespace

TEST_CASE("The transformer computes only through its backend, with the CPU backend's logits", "[engine]") {
  // qwen2, and qwen2moe: its router, experts and gated shared expert
  const auto arch = GENERATE(engine::synth::Arch::Qwen2, engine::synth::Arch::Qwen2Moe);
  const bool moe = arch == engine::synth::Arch::Qwen2Moe;
  const auto path = engine::test::synth_tiny(moe ? "backend_qwen2moe_q8_0" : "backend_qwen2_q8_0", arch,
                                             engine::synth::SynthDtype::Q8_0);
  auto file = engine::gguf::GgufFile::open(path);
  REQUIRE(file.has_value());
  auto config = engine::read_model_config(*file);
  REQUIRE(config.has_value());
  auto weights = engine::bind_weights(*file, *config);
  REQUIRE(weights.has_value());
  auto owned = std::make_unique<CheckingBackend>();
  CheckingBackend& checking = *owned;
  engine::Transformer net(*config, std::move(*weights), std::move(owned));
  auto reference = engine::Transformer::from_gguf(*file, 2);
  REQUIRE(reference.has_value());
  CHECK(net.backend().describe().starts_with("checking cpu: 2 threads"));

  std::vector<int32_t> tokens(9);
  std::iota(tokens.begin(), tokens.end(), 5);
  engine::SequenceRunner got_runner(net, 16);
  engine::SequenceRunner want_runner(**reference, 16);
  const auto got = got_runner.eval(tokens, /*all_logits=*/true);
  const auto want = want_runner.eval(tokens, /*all_logits=*/true);
  REQUIRE(got.has_value());
  REQUIRE(want.has_value());
  CHECK(*got == *want);
  CHECK(checking.strays.empty());
  const int layers = config->shape.num_layers;
  CHECK(checking.calls["embedding"] == 1);
  CHECK(checking.calls["paged_attention_batch"] == layers);
  CHECK(checking.calls["store_kv"] == layers);
  if (moe) {
    CHECK(checking.calls["select_experts"] == layers);
    CHECK(checking.calls["combine_experts"] == layers);
    CHECK(checking.calls["add_sigmoid_gated"] == layers);
  } else {
    CHECK(checking.calls["matmul"] == 2 * layers + 1);  // attn_output, ffn_down; the output
  }
  CHECK(checking.calls["download"] == 1);
}

TEST_CASE("The CPU backend stages in place, downloads, gathers rows and refuses bad thread counts",
          "[engine]") {
  kernels::CpuBackend cpu(1);
  CHECK(cpu.device() == kernels::Device::Cpu);
  CHECK(std::string(kernels::to_string(cpu.device())) == "cpu");
  std::vector<float> host(6, 0.0f);
  kernels::DeviceBuffer scratch;
  const std::span<float> staged = cpu.staging(host, scratch);
  CHECK(staged.data() == host.data());  // the CPU writes results where the host reads them
  CHECK(scratch.size() == 0);

  kernels::DeviceBuffer buffer = cpu.allocate(6);
  REQUIRE(buffer.size() == 6);
  CHECK(buffer.device() == kernels::Device::Cpu);
  const std::span<float> src = buffer.first(6);
  std::iota(src.begin(), src.end(), 1.0f);  // rows [1 2] [3 4] [5 6]
  cpu.download(src, host);
  CHECK(host == std::vector<float>{1, 2, 3, 4, 5, 6});

  std::vector<float> rows(4);
  const std::vector<int32_t> which = {2, 0};
  cpu.gather_rows(src, which, 2, rows);
  CHECK(rows == std::vector<float>{5, 6, 1, 2});

  CHECK_FALSE(kernels::make_cpu_backend(-1).has_value());
  auto ok = kernels::make_cpu_backend(1);
  REQUIRE(ok.has_value());
  CHECK((*ok)->num_threads() == 1);
}
