#include "core/stats/response_statistics.h"

namespace inferd {

ResponseStatistics::~ResponseStatistics() {
  for (auto& chunk : chunks_) delete chunk.load(std::memory_order_acquire);
}

void ResponseStatistics::Record(size_t index, ResponseOutcome outcome, uint64_t infer_ns,
                                uint64_t output_ns) {
  if (index >= kMaxIndexes) return;
  std::atomic<Chunk*>& slot = chunks_[index / kChunk];
  Chunk* chunk = slot.load(std::memory_order_acquire);
  if (chunk == nullptr) {
    auto fresh = std::make_unique<Chunk>();
    if (slot.compare_exchange_strong(chunk, fresh.get(), std::memory_order_acq_rel)) {
      chunk = fresh.release();
    }  // else another thread won: `chunk` now holds its chunk, ours is freed
  }
  ResponseStat& stat = (*chunk)[index % kChunk];
  const uint64_t total_ns = infer_ns + output_ns;
  switch (outcome) {
    case ResponseOutcome::kSuccess: stat.success.Add(total_ns); break;
    case ResponseOutcome::kFail: stat.fail.Add(total_ns); break;
    case ResponseOutcome::kCancel: stat.cancel.Add(total_ns); break;
    case ResponseOutcome::kEmpty: stat.empty_response.Add(total_ns); return;
  }
  stat.compute_infer.Add(infer_ns);
  stat.compute_output.Add(output_ns);
}

const ResponseStat* ResponseStatistics::At(size_t index) const {
  if (index >= kMaxIndexes) return nullptr;
  const Chunk* chunk = chunks_[index / kChunk].load(std::memory_order_acquire);
  if (chunk == nullptr) return nullptr;
  const ResponseStat& stat = (*chunk)[index % kChunk];
  const auto seen = [](const DurationStat& d) { return d.count.load(std::memory_order_relaxed); };
  if (seen(stat.success) + seen(stat.fail) + seen(stat.empty_response) + seen(stat.cancel) == 0) {
    return nullptr;
  }
  return &stat;
}

}  // namespace inferd
