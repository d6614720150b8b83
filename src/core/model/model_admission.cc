// ModelVersion's side of admission control (admission.h): the snapshot of
// its load and the server's, taken with atomics on the request path.
#include "core/infer/inference_request.h"
#include "core/model/admission_priority.h"
#include "core/model/model_version.h"
#include "core/scheduler/scheduler.h"

namespace inferd {
namespace {

// A count read after fetch_add: the count before this request, never below 0
// (a relaxed counter may be seen out of order with its decrements).
uint64_t Before(int64_t previous) { return previous > 0 ? static_cast<uint64_t>(previous) : 0; }

}  // namespace

Status ModelVersion::ResolveAdmission() {
  static const AdmissionOptions kNone;
  const AdmissionOptions& server =
      services_.admission != nullptr ? services_.admission->options : kNone;
  ASSIGN_OR_RETURN(admission_,
                   AdmissionLimitsFor(server,
                                      InflightLimitFor(services_.max_inflight_requests, config_),
                                      config_, name()));
  return Status::Ok();
}

bool ModelVersion::ContinuesSequence(const InferenceRequest& request) const {
  if ((request.flags & INFERD_REQUEST_FLAG_SEQUENCE_START) != 0 || !takes_sequences()) {
    return false;
  }
  return request.correlation_id != 0 || !request.correlation_id_string.empty();
}

Status ModelVersion::AdmitClient(InferenceRequest* request) {
  ServerAdmission* server = services_.admission.get();
  AdmissionLoad load;
  load.model_inflight = inflight() - 1;  // TryAdmit counted this request
  load.model_queued = Before(queued_.fetch_add(1, std::memory_order_relaxed));
  if (server != nullptr) {
    load.server_inflight = Before(server->inflight.fetch_add(1, std::memory_order_relaxed));
    load.server_queued = Before(server->queued.fetch_add(1, std::memory_order_relaxed));
  }
  request->admission.Adopt(&queued_, server ? &server->queued : nullptr,
                           server ? &server->inflight : nullptr);
  load.expected_queue_ns = estimator_.ExpectedQueueNs(load.model_queued, active_.size());
  if (admission_.shed) {
    load.timeout_ns = QueueTimeoutNs(config_, request->priority, request->timeout_us);
  }
  load.continues_sequence = ContinuesSequence(*request);
  AdmissionLimits limits = admission_;
  limits.queue_target_ns =
      PriorityTargetNs(limits.queue_target_ns, config_.dynamic_batching().priority_levels(),
                       PriorityLevelOf(config_, request->priority));
  const AdmissionVerdict verdict = DecideAdmission(limits, load);
  if (!verdict.reject) return Status::Ok();
  request->admission.Release();
  OnRequestReleased();
  stats_->rejected.Count(*verdict.reject);
  return RejectionStatus(name(), limits, verdict);
}

void ModelVersion::AdmitStep(InferenceRequest* request) {
  queued_.fetch_add(1, std::memory_order_relaxed);
  request->admission.Adopt(&queued_, nullptr, nullptr);
}

Status ModelVersion::Enqueue(InferenceRequest* request) {
  Status status = scheduler_->Enqueue(request);
  if (status.code() != Status::Code::kResourceExhausted || status.retry_after_ms() != 0) {
    return status;
  }
  // A full queue of the dynamic batcher: the advice is the time for half of
  // the model's queue to drain, at least a second.
  const uint64_t drain_ns = estimator_.ExpectedQueueNs(Before(queued()), active_.size()) / 2;
  const uint64_t retry_ms = std::max<uint64_t>(1000, (drain_ns + 999'999) / 1'000'000);
  return Status::ResourceExhausted(
      status.message() + "; retry after " + std::to_string((retry_ms + 999) / 1000) + " s",
      retry_ms);
}

}  // namespace inferd
