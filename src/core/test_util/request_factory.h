// Builds inference requests as the server hands them to a scheduler: bound to
// a (fake) model, one input INPUT0 whose shape gives the rows and the per-row
// dims, queued at the model clock's current time, responses and release
// routed to a ResponseLog. Owns the requests (a scheduler never deletes one),
// so it must outlive any scheduler they were given to. Not thread-safe; build
// requests on the test thread.
#ifndef INFERD_CORE_TEST_UTIL_REQUEST_FACTORY_H_
#define INFERD_CORE_TEST_UTIL_REQUEST_FACTORY_H_

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/infer/bound_model.h"
#include "core/infer/inference_request.h"
#include "core/infer/inference_response.h"
#include "core/test_util/response_log.h"
#include "core/timing/clock.h"

namespace inferd {

class RequestFactory {
 public:
  explicit RequestFactory(std::shared_ptr<BoundModel> model) : model_(std::move(model)) {}
  RequestFactory(const RequestFactory&) = delete;
  RequestFactory& operator=(const RequestFactory&) = delete;

  // A request `id` of `rows` rows (the batch dimension, when the model
  // batches) of INPUT0 with per-row shape `row_shape`, queued now.
  InferenceRequest* Make(const std::string& id, uint64_t rows = 1,
                         const std::vector<int64_t>& row_shape = {4}) {
    auto request = std::make_unique<InferenceRequest>(model_->name(), model_->version());
    request->id = id;
    std::vector<int64_t> shape;
    if (model_->batches()) shape.push_back(static_cast<int64_t>(rows));
    shape.insert(shape.end(), row_shape.begin(), row_shape.end());
    Status added = request->AddInput("INPUT0", INFERD_TYPE_FP32, shape.data(), shape.size());
    (void)added;  // a fresh request has no input of that name yet
    request->batch_size = model_->batches() ? rows : 0;
    request->queue_start_ns = model_->clock().NowNs();
    log_.Attach(request.get());
    request->Bind(model_);
    requests_.push_back(std::move(request));
    return requests_.back().get();
  }

  // Where every request made here sends its responses and release.
  ResponseLog& log() { return log_; }

 private:
  const std::shared_ptr<BoundModel> model_;
  ResponseLog log_;
  std::vector<std::unique_ptr<InferenceRequest>> requests_;
};

// The ids of `requests`, in order: what a test compares a batch with.
inline std::vector<std::string> Ids(const std::vector<InferenceRequest*>& requests) {
  std::vector<std::string> ids;
  for (const InferenceRequest* request : requests) ids.push_back(request->id);
  return ids;
}

// What a backend does with a batch, minus the work: a final successful
// response to each request, then its release.
inline void CompleteBatch(const std::vector<InferenceRequest*>& batch) {
  for (InferenceRequest* request : batch) {
    Status sent = InferenceResponse::Send(std::make_unique<InferenceResponse>(*request),
                                          INFERD_RESPONSE_COMPLETE_FINAL, Status::Ok());
    if (!sent.ok()) std::abort();  // a test's request cannot have ended yet
    request->Release();
  }
}

}  // namespace inferd

#endif  // INFERD_CORE_TEST_UTIL_REQUEST_FACTORY_H_
