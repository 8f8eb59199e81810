// A request's sequence record.
#include "engine/core/sequence.h"

namespace engine {

Sequence::Sequence(SeqId id, std::vector<TokenId> prompt, SamplingParams params,
                   Clock::time_point arrival_time)
    : sampling(std::move(params)),
      arrival(arrival_time),
      rng(sampling.seed.value_or(id.value * 0x9E3779B97F4A7C15ull)),
      text(sampling.stop),
      id_(id),
      tokens_(std::move(prompt)),
      num_prompt_tokens_(static_cast<int32_t>(tokens_.size())) {}

}  // namespace engine
