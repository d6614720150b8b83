// The running sum of each live sequence, keyed by sequence id, for a model
// that keeps its sums itself (no implicit state). One table per loaded model
// version: the sequence batcher keeps a sequence on one instance, but
// instances of a model share the table, so it is locked.
#ifndef INFERD_BACKENDS_ACCUMULATE_SEQUENCE_SUMS_H_
#define INFERD_BACKENDS_ACCUMULATE_SEQUENCE_SUMS_H_

#include <cstdint>
#include <map>
#include <string>

#include "inferd/base/mutex.h"

namespace inferd::accumulate {

class SequenceSums {
 public:
  // Adds `value` to sequence `key`'s sum and returns the new sum; `start`
  // resets it to `value` first. False, and nothing changed, for a sequence
  // that never started here (the backend then answers with an error).
  bool Add(const std::string& key, bool start, int32_t value, int32_t* sum) EXCLUDES(mu_);

  // Forgets sequence `key` (it ended).
  void Forget(const std::string& key) EXCLUDES(mu_);

 private:
  Mutex mu_;
  std::map<std::string, int32_t> sums_ GUARDED_BY(mu_);
};

}  // namespace inferd::accumulate

#endif  // INFERD_BACKENDS_ACCUMULATE_SEQUENCE_SUMS_H_
