// preserve_ordering: delivers a model's responses in the order its requests
// were queued, whichever instance finished first. A request is numbered when
// queued; its responses pass through Deliver, which holds them until every
// earlier request has had its final response. Thread-safe.
#ifndef INFERD_CORE_SCHEDULER_RESPONSE_ORDERER_H_
#define INFERD_CORE_SCHEDULER_RESPONSE_ORDERER_H_

#include <cstdint>
#include <map>
#include <vector>

#include "inferd/base/mutex.h"
#include "inferd/server.h"

namespace inferd {

class InferenceRequest;

class ResponseOrderer {
 public:
  // Numbers `request` and routes its responses through this orderer.
  // Call in queue order.
  void Adopt(InferenceRequest* request) EXCLUDES(mu_);

 private:
  static void Deliver(INFERD_InferenceResponse* response, uint32_t flags, void* userp);
  void Hold(INFERD_InferenceResponse* response, uint32_t flags) EXCLUDES(mu_);

  Mutex mu_;
  uint64_t next_number_ GUARDED_BY(mu_) = 0;   // given to the next adopted request
  uint64_t next_delivery_ GUARDED_BY(mu_) = 0;  // whose responses may go out now
  std::map<uint64_t, std::vector<std::pair<INFERD_InferenceResponse*, uint32_t>>> held_
      GUARDED_BY(mu_);
};

}  // namespace inferd

#endif  // INFERD_CORE_SCHEDULER_RESPONSE_ORDERER_H_
