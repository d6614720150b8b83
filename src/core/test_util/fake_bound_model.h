// A BoundModel for scheduler and request tests: a name, a version, real
// statistics and an injected clock, and a count of the requests released.
// Nothing is loaded and no backend runs. Thread-safe.
#ifndef INFERD_CORE_TEST_UTIL_FAKE_BOUND_MODEL_H_
#define INFERD_CORE_TEST_UTIL_FAKE_BOUND_MODEL_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/infer/bound_model.h"
#include "core/infer/sender_registry.h"
#include "core/stats/model_statistics.h"
#include "core/timing/clock.h"

namespace inferd {

class FakeBoundModel final : public BoundModel {
 public:
  // `max_batch_size` 0: the model does not batch (requests have no batch dimension).
  FakeBoundModel(const Clock& clock, std::string name, int64_t max_batch_size = 8,
                 int64_t version = 1)
      : clock_(clock),
        name_(std::move(name)),
        version_(version),
        max_batch_size_(max_batch_size),
        stats_(max_batch_size) {}

  const std::string& name() const override { return name_; }
  int64_t version() const override { return version_; }
  bool batches() const override { return max_batch_size_ > 0; }
  bool decoupled() const override { return decoupled_; }
  SenderRegistry& senders() override { return senders_; }
  const std::vector<std::string>& OutputLabels(std::string_view) const override {
    static const std::vector<std::string> kNoLabels;
    return kNoLabels;
  }
  ModelStatistics& stats() const override { return stats_; }
  const Clock& clock() const override { return clock_; }
  void OnRequestReleased() override { released_.fetch_add(1, std::memory_order_relaxed); }

  void set_decoupled(bool decoupled) { decoupled_ = decoupled; }

  // Requests bound to this model that were released so far.
  uint64_t released() const { return released_.load(std::memory_order_relaxed); }

 private:
  const Clock& clock_;
  const std::string name_;
  const int64_t version_;
  const int64_t max_batch_size_;
  mutable ModelStatistics stats_;
  std::atomic<uint64_t> released_{0};
  bool decoupled_ = false;
  SenderRegistry senders_;
};

}  // namespace inferd

#endif  // INFERD_CORE_TEST_UTIL_FAKE_BOUND_MODEL_H_
