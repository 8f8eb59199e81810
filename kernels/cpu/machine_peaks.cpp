// Measured machine limits (see machine_peaks.h): the bandwidth loop reads a buffer laid out as
// the engine lays out repacked weights (2 MiB-aligned, advised MADV_HUGEPAGE), with 256-bit
// loads when the CPU has AVX2, else plain C++. A plain loop over 4 KiB pages measured 20 GB/s
// where the decode kernels streamed 23 GB/s from huge pages on a Zen 3: the bound was too low.
// The compute peaks call the AVX2 loops only when the CPU has AVX2.
#include "kernels/cpu/machine_peaks.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/huge_buffer.h"
#include "kernels/cpu/vec_dot_simd.h"
#include "kernels/thread_pool.h"

namespace kernels {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Runs loop(iterations) on every thread of the pool at once, the iterations grown until a run
// takes about `seconds`; returns the best work per second of three runs of that length.
template <typename Loop>
double measure_peak(ThreadPool& pool, double seconds, Loop loop) {
  long iterations = 1 << 16;
  for (;;) {
    std::atomic<double> work{0};
    const auto t0 = std::chrono::steady_clock::now();
    pool.run(pool.num_threads(), [&](int64_t) {
      const double w = loop(iterations);
      double cur = work.load();
      while (!work.compare_exchange_weak(cur, cur + w)) {
      }
    });
    const double elapsed = seconds_since(t0);
    if (elapsed >= seconds || iterations > (1L << 40)) {
      // Calibrated: the best of this run and two more of the same length.
      double best = work.load() / elapsed;
      for (int r = 0; r < 2; ++r) {
        std::atomic<double> more{0};
        const auto t1 = std::chrono::steady_clock::now();
        pool.run(pool.num_threads(), [&](int64_t) {
          const double w = loop(iterations);
          double cur = more.load();
          while (!more.compare_exchange_weak(cur, cur + w)) {
          }
        });
        best = std::max(best, more.load() / seconds_since(t1));
      }
      return best;
    }
    iterations *= elapsed > 0.01 ? std::max<long>(2, static_cast<long>(seconds / elapsed * 1.2)) : 8;
  }
}

}  // namespace

ReadStream::ReadStream(ThreadPool& pool, size_t bytes)
    : pool_(pool),
      words_(std::max<size_t>(bytes / sizeof(uint64_t), 1024)),
      memory_(allocate_huge_buffer(words_ * sizeof(uint64_t))) {
  if (!memory_) return;
  auto* const buffer = reinterpret_cast<uint64_t*>(memory_.get());
  const int64_t parts = pool_.num_threads();
  // First touch from the threads that will read each part.
  pool_.run(parts, [&](int64_t p) {
    const size_t b = words_ * static_cast<size_t>(p) / static_cast<size_t>(parts);
    const size_t e = words_ * static_cast<size_t>(p + 1) / static_cast<size_t>(parts);
    for (size_t i = b; i < e; ++i) buffer[i] = i;
  });
}

double ReadStream::pass() {
  if (!memory_) return 0;
  const auto* const buffer = reinterpret_cast<const uint64_t*>(memory_.get());
  const int64_t parts = pool_.num_threads();
  const bool vector = detect_simd_level() != SimdLevel::Scalar;
  std::atomic<uint64_t> sink{0};
  const auto t0 = std::chrono::steady_clock::now();
  pool_.run(parts, [&](int64_t p) {
    const size_t b = words_ * static_cast<size_t>(p) / static_cast<size_t>(parts);
    const size_t e = words_ * static_cast<size_t>(p + 1) / static_cast<size_t>(parts);
    if (vector) {
      sink += read_stream_loop(buffer + b, e - b);
      return;
    }
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = b;
    for (; i + 4 <= e; i += 4) {
      s0 += buffer[i];
      s1 += buffer[i + 1];
      s2 += buffer[i + 2];
      s3 += buffer[i + 3];
    }
    for (; i < e; ++i) s0 += buffer[i];
    sink += s0 + s1 + s2 + s3;
  });
  const double seconds = seconds_since(t0);
  sink_ += sink.load();
  return seconds;
}

double measure_read_bandwidth(ThreadPool& pool, size_t bytes, int repeats) {
  ReadStream stream(pool, bytes);
  if (!stream.ok()) return 0;
  double best = 0;
  for (int r = 0; r < std::max(repeats, 1); ++r)
    best = std::max(best, static_cast<double>(stream.bytes()) / stream.pass());
  return best;
}

double measure_fma_peak(ThreadPool& pool, double seconds) {
  if (simd_level() == SimdLevel::Scalar) return 0;
  if (simd_level() == SimdLevel::Avx512) return measure_peak(pool, seconds, avx512_fma_peak_loop);
  return measure_peak(pool, seconds, fma_peak_loop);
}

double measure_int8_dot_peak(ThreadPool& pool, double seconds) {
  if (vec_dot_level() == SimdLevel::Scalar) return 0;
  if (vec_dot_level() == SimdLevel::Avx512) return measure_peak(pool, seconds, avx512_int8_dot_peak_loop);
  return measure_peak(pool, seconds, int8_dot_peak_loop);
}

const char* int8_dot_instruction() {
  return vec_dot_level() == SimdLevel::Avx512 ? "vpdpbusd zmm" : "vpmaddubsw+vpmaddwd ymm";
}

}  // namespace kernels
