// Per-response statistics of decoupled models, by the response's index within
// its request (Triton's response_stats): the first responses of all requests
// count under "0", the second under "1", and so on. A request's stream may be
// long, so indexes are kept in chunks allocated on first use with a CAS: the
// response path never takes a lock. Indexes past kMaxIndexes are not kept.
// Thread-safe.
#ifndef INFERD_CORE_STATS_RESPONSE_STATISTICS_H_
#define INFERD_CORE_STATS_RESPONSE_STATISTICS_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>

#include "core/stats/duration_stat.h"

namespace inferd {

// What became of one response.
enum class ResponseOutcome { kSuccess, kFail, kEmpty, kCancel };

// The statistics of every response sent at one index.
struct ResponseStat {
  DurationStat compute_infer;   // previous response (or execution start) -> this one created
  DurationStat compute_output;  // created -> sent
  DurationStat success, fail, empty_response, cancel;  // previous -> sent, by outcome
};

class ResponseStatistics {
 public:
  static constexpr size_t kChunk = 64;
  static constexpr size_t kChunks = 64;
  static constexpr size_t kMaxIndexes = kChunk * kChunks;

  ResponseStatistics() = default;
  ~ResponseStatistics();
  ResponseStatistics(const ResponseStatistics&) = delete;
  ResponseStatistics& operator=(const ResponseStatistics&) = delete;

  // Response `index` of a request: `infer_ns` from the previous response to its
  // creation, `output_ns` from creation to sending (both 0 for a FINAL that
  // carried no response).
  void Record(size_t index, ResponseOutcome outcome, uint64_t infer_ns, uint64_t output_ns);

  // The statistics at `index`; null when no response was recorded there.
  const ResponseStat* At(size_t index) const;

 private:
  using Chunk = std::array<ResponseStat, kChunk>;
  std::array<std::atomic<Chunk*>, kChunks> chunks_{};
};

}  // namespace inferd

#endif  // INFERD_CORE_STATS_RESPONSE_STATISTICS_H_
