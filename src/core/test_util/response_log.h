// Where test requests send their responses and release callbacks: records
// each response (request id, flags, status) in delivery order across all
// requests, and each release, then frees the response as a client would.
// Thread-safe: a scheduler's threads and the sweeper deliver concurrently.
#ifndef INFERD_CORE_TEST_UTIL_RESPONSE_LOG_H_
#define INFERD_CORE_TEST_UTIL_RESPONSE_LOG_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "core/infer/inference_request.h"
#include "core/infer/inference_response.h"
#include "inferd/base/mutex.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd {

struct LoggedResponse {
  std::string request_id;
  uint32_t flags = 0;
  Status status;  // the response's error; OK for a successful response
  bool has_response = true;  // false: the FINAL flag came alone

  bool final() const { return (flags & INFERD_RESPONSE_COMPLETE_FINAL) != 0; }
};

class ResponseLog {
 public:
  // An INFERD_InferenceResponseCompleteFn; `userp` is the log.
  static void Record(INFERD_InferenceResponse* response, uint32_t flags, void* userp) {
    auto* owned = reinterpret_cast<InferenceResponse*>(response);
    if (owned == nullptr) {  // FINAL alone: no response, so no id
      static_cast<ResponseLog*>(userp)->Add({"", flags, Status::Ok(), false});
      return;
    }
    static_cast<ResponseLog*>(userp)->Add({owned->id(), flags, owned->error()});
    delete owned;
  }
  // An INFERD_InferenceRequestReleaseFn; `userp` is the log.
  static void RecordRelease(INFERD_InferenceRequest* request, uint32_t, void* userp) {
    auto* log = static_cast<ResponseLog*>(userp);
    MutexLock lock(&log->mu_);
    log->released_.push_back(reinterpret_cast<InferenceRequest*>(request)->id);
    log->changed_.SignalAll();
  }

  // Routes `request`'s responses and release to this log.
  void Attach(InferenceRequest* request) {
    request->route.response_fn = &ResponseLog::Record;
    request->route.response_userp = this;
    request->release_fn = &ResponseLog::RecordRelease;
    request->release_userp = this;
  }

  std::vector<LoggedResponse> responses() const {
    MutexLock lock(&mu_);
    return responses_;
  }
  // The ids of released requests, in release order.
  std::vector<std::string> released() const {
    MutexLock lock(&mu_);
    return released_;
  }

  // Wait until `count` responses (releases) were recorded; false when that
  // does not happen within `limit` of real time, so a test fails, not hangs.
  bool AwaitResponses(size_t count, std::chrono::seconds limit = std::chrono::seconds(10)) const {
    const auto give_up = std::chrono::steady_clock::now() + limit;
    MutexLock lock(&mu_);
    while (responses_.size() < count) {
      if (!changed_.WaitUntil(&mu_, give_up)) return responses_.size() >= count;
    }
    return true;
  }
  bool AwaitReleases(size_t count, std::chrono::seconds limit = std::chrono::seconds(10)) const {
    const auto give_up = std::chrono::steady_clock::now() + limit;
    MutexLock lock(&mu_);
    while (released_.size() < count) {
      if (!changed_.WaitUntil(&mu_, give_up)) return released_.size() >= count;
    }
    return true;
  }

 private:
  void Add(LoggedResponse response) {
    MutexLock lock(&mu_);
    responses_.push_back(std::move(response));
    changed_.SignalAll();
  }

  mutable Mutex mu_;
  mutable CondVar changed_;
  std::vector<LoggedResponse> responses_ GUARDED_BY(mu_);
  std::vector<std::string> released_ GUARDED_BY(mu_);
};

}  // namespace inferd

#endif  // INFERD_CORE_TEST_UTIL_RESPONSE_LOG_H_
