// What the server lends the loader and every model version it loads: its
// clock, sweeper, tracer, backends, rate limiter, cache, ... Built once by
// the server (unit tests build their own, with what they need) and passed by
// pointer; a version keeps a copy, so that a request an unload gave up
// waiting for may still read the clock after the server is gone. Everything
// but `backends` may be null: without a sweeper a model with dynamic batching
// fails to load, without a submitter an ensemble does.
#ifndef INFERD_CORE_MODEL_MODEL_SERVICES_H_
#define INFERD_CORE_MODEL_MODEL_SERVICES_H_

#include <cstdint>
#include <memory>

#include "core/model/host_policy.h"
#include "core/timing/clock.h"

namespace inferd {

class BackendManager;
class CopyWorkers;
class CustomMetrics;
class InferenceServer;
class QueueSweeper;
class RateLimiter;
class RequestSubmitter;
class ResponseCache;
struct ServerAdmission;
class TraceManager;
struct MetricsConfig;

struct ModelServices {
  InferenceServer* server = nullptr;  // what backends see as the model's server
  BackendManager* backends = nullptr;  // where the loader finds backend libraries
  TraceManager* tracer = nullptr;  // how each model's requests are sampled for tracing
  // The clock requests and executions are timed with (the sweeper's). A
  // process-lifetime object.
  const Clock* clock = &Clock::Steady();
  // The sweeper of queue timeouts (a dynamic batcher's), with `clock`.
  QueueSweeper* sweeper = nullptr;
  RequestSubmitter* submitter = nullptr;  // where ensembles submit their steps
  // The buffer-manager threads, for INFERD_ModelInstanceCopyBuffers; null:
  // copies run on the backend's thread.
  CopyWorkers* copy_workers = nullptr;
  // Null with --rate-limit=off. Instances that list rate_limiter resources
  // take them around each execution.
  RateLimiter* rate_limiter = nullptr;
  const HostPolicies* host_policies = nullptr;  // --host-policy; null: none
  const MetricsConfig* metrics = nullptr;  // which latency summaries models keep; null: none
  // Used by the models whose config enables response_cache; null: none.
  ResponseCache* response_cache = nullptr;
  // Where backends register their custom metrics (backend_metrics.h); a
  // version's go when it is finalized. Null: backends cannot register any.
  CustomMetrics* custom_metrics = nullptr;
  // --model-max-inflight-requests; 0: no cap (inflight_limit.h says which
  // models it applies to).
  uint64_t max_inflight_requests = 0;
  // Admission control's server-wide settings and counts (admission.h);
  // shared, since a request counted there may outlive the server. Null: none.
  std::shared_ptr<ServerAdmission> admission = nullptr;
};

}  // namespace inferd

#endif  // INFERD_CORE_MODEL_MODEL_SERVICES_H_
