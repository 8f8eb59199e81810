// The kernel benchmark behind `arena bench kernels`: the CPU matmul of every weight type arena can write
// (f32, f16, bf16, q8_0, q5_0, q4_K, q6_K) on an R x C matrix (default 896 x 4864, Qwen2.5-0.5B's ffn_down),
// in the layout model loading gives it (kernels::repack_for_matmul where the CPU has one):
//   decode  — one activation row against copies of the matrix filling M MiB (more than the
//             caches), taken in turn as a forward pass takes its layers: weight GB/s, as a
//             fraction of the memory read bandwidth;
//   batched — N activation rows against one matrix: GFLOP/s (2 per multiply-add), as a fraction
//             of the int8 dot peak (quantized types) or the F32 FMA peak (float types).
// The limits are measured first, on the same threads: a streaming read over M MiB (by default
// four times the last-level cache the CPU reports), an FMA loop and an int8 dot loop with the
// kernels' own instruction (vpdpbusd on AVX-512 VNNI, else vpmaddubsw + vpmaddwd). Each figure is the best of
// the runs within S seconds. The last lines give each headline figure as a fraction of its limit.
#include "engine/tools/kernel_bench.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/cpu_ops.h"
#include "kernels/cpu/huge_buffer.h"
#include "kernels/cpu/machine_peaks.h"
#include "kernels/cpu/vec_dot_simd.h"
#include "kernels/quant/quantize.h"
#include "kernels/thread_pool.h"

namespace engine {

namespace {

using kernels::GgmlType;

struct TypeFigures {
  GgmlType type;
  double decode_gbs = 0;      // weight bytes per second, one activation row
  double batched_gflops = 0;  // 2 * rows * cols * batch per second
};

// CPU seconds used by the whole process so far (all threads).
double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Best seconds of one call of fn over repeated calls within `budget` seconds (at least 3).
template <typename Fn>
double best_time(double budget, Fn fn) {
  double best = 1e30;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 3 || seconds_since(start) < budget; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    best = std::min(best, seconds_since(t0));
    if (i > 10000) break;
  }
  return best;
}

// One matrix of `type` from normally distributed floats (rows x cols).
std::vector<std::byte> make_matrix(GgmlType type, int64_t rows, int64_t cols, std::mt19937& rng) {
  std::normal_distribution<float> dist(0.0f, 0.05f);
  std::vector<float> row(static_cast<size_t>(cols));
  const size_t row_bytes = kernels::row_bytes(type, cols);
  std::vector<std::byte> data(row_bytes * static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    for (float& v : row) v = dist(rng);
    std::byte* dst = data.data() + static_cast<size_t>(r) * row_bytes;
    if (type == GgmlType::F32)
      std::memcpy(dst, row.data(), row_bytes);
    else
      kernels::quantize_row(type, row.data(), dst, cols);
  }
  return data;
}

TypeFigures measure_type(GgmlType type, const KernelBenchOptions& f, kernels::ThreadPool& pool,
                         std::mt19937& rng) {
  TypeFigures out{type};
  auto one = make_matrix(type, f.rows, f.cols, rng);
  // In the layout the engine's model loading gives it (repacked where this CPU's matmul has a
  // faster layout, unless ARENA_NO_REPACK=1), so the figures are what a forward pass runs.
  kernels::MatrixView layout = kernels::matrix_view(one.data(), type, f.rows, f.cols);
  if (const size_t bytes = kernels::repacked_bytes(layout); bytes > 0) {
    std::vector<std::byte> packed(bytes);
    layout = kernels::repack_for_matmul(layout, packed.data());
    one = std::move(packed);  // the vector's buffer moves with it: layout still points into it
  }
  const auto view_at = [&](const std::byte* data) {
    kernels::MatrixView v = layout;
    v.data = data;
    return v;
  };
  // Enough copies to fill the weight budget, so decode reads from memory, not from a cache; in
  // huge pages, as model loading places repacked weights.
  const size_t copies =
      std::max<size_t>(1, (static_cast<size_t>(decode_working_set_mib(f)) << 20) / one.size());
  const size_t all_bytes = one.size() * copies;
  const kernels::HugeBuffer all = kernels::allocate_huge_buffer(all_bytes);
  if (!all) throw std::bad_alloc();
  for (size_t c = 0; c < copies; ++c) std::memcpy(all.get() + c * one.size(), one.data(), one.size());
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(f.batch * f.cols));
  for (float& v : x) v = dist(rng);
  std::vector<float> y(static_cast<size_t>(f.batch * f.rows));

  const double decode = best_time(f.seconds, [&] {
    for (size_t c = 0; c < copies; ++c) {
      const auto w = view_at(all.get() + c * one.size());
      kernels::matmul(w, std::span(x).first(static_cast<size_t>(f.cols)), 1,
                      std::span(y).first(static_cast<size_t>(f.rows)), pool);
    }
  });
  out.decode_gbs = static_cast<double>(all_bytes) / decode / 1e9;
  const auto w = view_at(one.data());
  const double batched = best_time(f.seconds, [&] { kernels::matmul(w, x, f.batch, y, pool); });
  out.batched_gflops = 2.0 * static_cast<double>(f.rows * f.cols * f.batch) / batched / 1e9;
  return out;
}

bool is_float(GgmlType t) {
  return t == GgmlType::F32 || t == GgmlType::F16 || t == GgmlType::BF16;
}

int64_t last_level_cache_mib() {
  for (int name : {_SC_LEVEL4_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE})
    if (const long bytes = sysconf(name); bytes > 0) return std::max<int64_t>(1, bytes >> 20);
  return 0;
}

}  // namespace

int64_t decode_working_set_mib(const KernelBenchOptions& f) {
  if (f.weights_mib > 0) return f.weights_mib;
  return std::clamp<int64_t>(4 * last_level_cache_mib(), 256, 4096);
}

std::expected<void, Error> run_kernel_bench(const KernelBenchOptions& f, std::FILE* out) {
  if (f.cols % 256 != 0)
    return std::unexpected(Error{"--cols must be a multiple of 256 (the K-quant block)"});
  kernels::ThreadPool pool(f.threads);
  if (!pool.start_error().empty()) return std::unexpected(Error{pool.start_error()});
  double load[1] = {0};
  if (getloadavg(load, 1) != 1) load[0] = -1;
  // Wall-clock figures: on a loaded machine (load average above the core count) limits and
  // kernels alike get only part of the cores, so compare figures of the same run.
  fmt::print(out, "threads {}, simd {} (matmul kernels), matrix {} x {}, batch {}, load average {:.1f}\n",
             pool.num_threads(), kernels::to_string(kernels::vec_dot_level()), f.rows, f.cols, f.batch,
             load[0]);
  fmt::print(out, "decode working set {} MiB (last-level cache as the CPU reports it: {} MiB)\n",
             decode_working_set_mib(f), last_level_cache_mib());
  const double cpu0 = process_cpu_seconds();
  const auto wall0 = std::chrono::steady_clock::now();
  const double bandwidth =
      kernels::measure_read_bandwidth(pool, static_cast<size_t>(decode_working_set_mib(f)) << 20, 5) / 1e9;
  const double fma = 2 * kernels::measure_fma_peak(pool, f.seconds) / 1e9;
  const double int8 = 2 * kernels::measure_int8_dot_peak(pool, f.seconds) / 1e9;
  fmt::print(out, "limits: memory read {:.1f} GB/s, f32 fma {:.1f} GFLOP/s, int8 dot ({}) {:.1f} GOP/s\n",
             bandwidth, fma, kernels::int8_dot_instruction(), int8);
  fmt::print(out, "{:<6} {:>12} {:>9} {:>16} {:>9}\n", "type", "decode GB/s", "of read", "batched GFLOP/s",
             "of peak");
  std::mt19937 rng(1);
  std::vector<TypeFigures> all;
  for (GgmlType type : {GgmlType::F32, GgmlType::F16, GgmlType::BF16, GgmlType::Q8_0, GgmlType::Q5_0,
                        GgmlType::Q4_K, GgmlType::Q6_K}) {
    const TypeFigures t = measure_type(type, f, pool, rng);
    const double peak = is_float(type) ? fma : int8;
    fmt::print(out, "{:<6} {:>12.2f} {:>9.2f} {:>16.1f} {:>9.2f}\n", kernels::traits(type).name, t.decode_gbs,
               t.decode_gbs / bandwidth, t.batched_gflops, peak > 0 ? t.batched_gflops / peak : 0.0);
    std::fflush(out);
    all.push_back(t);
  }
  // How much of its threads' time the process got: well below 1 means other work shared the
  // cores, and every figure above (limits included) is that much lower than on a quiet machine.
  const double share = (process_cpu_seconds() - cpu0) / (seconds_since(wall0) * pool.num_threads());
  fmt::print(out, "cpu share {:.2f} (process cpu-seconds / (wall seconds x {} threads))\n", share,
             pool.num_threads());
  for (const TypeFigures& t : all) {
    if (t.type != GgmlType::Q8_0 && t.type != GgmlType::Q4_K && t.type != GgmlType::F16) continue;
    const double peak = is_float(t.type) ? fma : int8;
    const char* peak_name = is_float(t.type) ? "f32 fma peak" : "int8 dot peak";
    fmt::print(out, "headline: decode {} {:.2f} GB/s = {:.2f} of memory read bandwidth\n",
               kernels::traits(t.type).name, t.decode_gbs, t.decode_gbs / bandwidth);
    fmt::print(out, "headline: batched {} {:.1f} GFLOP/s = {:.2f} of the {}\n", kernels::traits(t.type).name,
               t.batched_gflops, peak > 0 ? t.batched_gflops / peak : 0.0, peak_name);
  }
  return {};
}

}  // namespace engine
