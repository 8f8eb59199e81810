// Histogram bookkeeping and the default bucket layouts.
#include "engine/core/metrics.h"

#include <algorithm>

namespace engine {

Histogram Histogram::with_bounds(std::vector<double> bounds) {
  Histogram h;
  h.counts.assign(bounds.size() + 1, 0);
  h.bounds = std::move(bounds);
  return h;
}

void Histogram::observe(double value) {
  const auto at = static_cast<size_t>(std::ranges::lower_bound(bounds, value) - bounds.begin());
  ++counts[at];
  ++count;
  sum += value;
}

double Histogram::quantile(double q) const {
  if (count == 0) return 0.0;
  const double rank = std::clamp(q, 0.0, 1.0) * static_cast<double>(count);
  double seen = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0) continue;
    if (seen + static_cast<double>(counts[i]) >= rank) {
      const double lo = i == 0 ? 0.0 : bounds[i - 1];
      const double hi = i < bounds.size() ? bounds[i] : lo;  // above every bound: report the last bound
      return lo + (hi - lo) * (rank - seen) / static_cast<double>(counts[i]);
    }
    seen += static_cast<double>(counts[i]);
  }
  return bounds.empty() ? 0.0 : bounds.back();
}

std::vector<double> latency_buckets() {
  return {0.001, 0.0025, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1,   0.25,  0.5,  0.75,
          1.0,   2.5,    5.0,   7.5,  10.0, 20.0, 40.0, 80.0, 160.0, 320.0, 640.0};
}

std::vector<double> batch_size_buckets() {
  return {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
}

std::vector<double> iteration_tokens_buckets() {
  return {1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
}

}  // namespace engine
