#include "core/scheduler/response_orderer.h"

#include "core/infer/inference_request.h"
#include "core/infer/inference_response.h"

namespace inferd {

void ResponseOrderer::Adopt(InferenceRequest* request) {
  MutexLock lock(&mu_);
  request->order_number = next_number_++;
  request->client_route = request->route;
  request->route.response_fn = &ResponseOrderer::Deliver;
  request->route.response_userp = this;
}

void ResponseOrderer::Deliver(INFERD_InferenceResponse* response, uint32_t flags, void* userp) {
  static_cast<ResponseOrderer*>(userp)->Hold(response, flags);
}

void ResponseOrderer::Hold(INFERD_InferenceResponse* response, uint32_t flags) {
  const uint64_t number = reinterpret_cast<InferenceResponse*>(response)->order_number();
  // Client callbacks run under mu_: that is what keeps them in order.
  MutexLock lock(&mu_);
  held_[number].emplace_back(response, flags);
  while (true) {
    auto ready = held_.find(next_delivery_);
    if (ready == held_.end()) return;
    bool final = false;
    for (auto [held, held_flags] : ready->second) {
      const ResponseRoute& route = reinterpret_cast<InferenceResponse*>(held)->client_route();
      final = final || (held_flags & INFERD_RESPONSE_COMPLETE_FINAL);
      route.response_fn(held, held_flags, route.response_userp);
    }
    held_.erase(ready);
    if (!final) return;  // more responses of this request will come
    ++next_delivery_;
  }
}

}  // namespace inferd
