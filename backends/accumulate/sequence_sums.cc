// SequenceSums.
#include "sequence_sums.h"

namespace inferd::accumulate {

bool SequenceSums::Add(const std::string& key, bool start, int32_t value, int32_t* sum) {
  MutexLock lock(&mu_);
  if (start) {
    sums_[key] = value;
    *sum = value;
    return true;
  }
  auto it = sums_.find(key);
  if (it == sums_.end()) return false;
  // Wraps like the INT32 sum of an ONNX model would, without overflow UB.
  it->second = static_cast<int32_t>(static_cast<uint32_t>(it->second) +
                                    static_cast<uint32_t>(value));
  *sum = it->second;
  return true;
}

void SequenceSums::Forget(const std::string& key) {
  MutexLock lock(&mu_);
  sums_.erase(key);
}

}  // namespace inferd::accumulate
