// The response senders of one model version whose requests are still open,
// so that unloading the model can end what its backend left without FINAL.
// A sender joins when created and leaves when its request ends. Thread-safe.
#ifndef INFERD_CORE_INFER_SENDER_REGISTRY_H_
#define INFERD_CORE_INFER_SENDER_REGISTRY_H_

#include <memory>
#include <unordered_map>
#include <vector>

#include "inferd/base/mutex.h"
#include "inferd/base/thread_annotations.h"

namespace inferd {

class ResponseSender;

class SenderRegistry {
 public:
  void Add(const std::shared_ptr<ResponseSender>& sender) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    open_.emplace(sender.get(), sender);
  }
  void Remove(const ResponseSender* sender) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    open_.erase(sender);
  }
  // Every sender still open, leaving the registry empty.
  std::vector<std::shared_ptr<ResponseSender>> TakeAll() EXCLUDES(mu_) {
    std::vector<std::shared_ptr<ResponseSender>> taken;
    MutexLock lock(&mu_);
    for (auto& [raw, weak] : open_) {
      if (auto sender = weak.lock()) taken.push_back(std::move(sender));
    }
    open_.clear();
    return taken;
  }

 private:
  Mutex mu_;
  std::unordered_map<const ResponseSender*, std::weak_ptr<ResponseSender>> open_ GUARDED_BY(mu_);
};

}  // namespace inferd

#endif  // INFERD_CORE_INFER_SENDER_REGISTRY_H_
