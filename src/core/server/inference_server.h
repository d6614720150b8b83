// The server as a whole: options, backends, the model lifecycle, and the entry
// point of every inference request. The object behind INFERD_Server; the C API
// in api/ is a thin shell over it. Thread-safe.
#ifndef INFERD_CORE_SERVER_INFERENCE_SERVER_H_
#define INFERD_CORE_SERVER_INFERENCE_SERVER_H_

#include <atomic>
#include <memory>
#include <string>

#include "core/backend/backend_manager.h"
#include "core/cache/response_cache.h"
#include "core/common/copy_workers.h"
#include "core/infer/request_submitter.h"
#include "inferd/base/status.h"
#include "core/lifecycle/model_lifecycle.h"
#include "core/lifecycle/repository_poller.h"
#include "core/model/model_services.h"
#include "core/server/server_options.h"
#include "core/stats/custom_metrics.h"
#include "core/timing/clock.h"
#include "core/timing/queue_sweeper.h"
#include "core/trace/trace_manager.h"

namespace inferd {

class CpuMetricsSampler;
class InferenceRequest;

class InferenceServer final : public RequestSubmitter {
 public:
  // Scans the repositories and loads every model (control mode NONE). Fails
  // only when the server as a whole cannot run.
  static StatusOr<std::unique_ptr<InferenceServer>> Create(ServerOptions options);
  ~InferenceServer() override;

  // Refuses new requests, waits up to the exit timeout for in-flight ones, then
  // unloads every model. Idempotent.
  Status Stop();

  // The process is about to stop (SIGTERM's grace period): from now on the
  // server and every model report not ready, so load balancers and Kubernetes
  // take the server out of rotation, while every request is still served.
  // Stop() follows. Idempotent; cannot be undone.
  void BeginExit() { exiting_.store(true); }
  // BeginExit or Stop came: readiness is false from then on.
  bool Exiting() const { return exiting_.load() || stopping_.load(); }
  // What a readiness query answers once Exiting(): UNAVAILABLE, as Triton
  // (HTTP 503, gRPC UNAVAILABLE), where a server not ready for want of a
  // model answers false (HTTP 400). Ok before.
  Status ExitingError() const {
    return Exiting() ? Status::Unavailable("the server is exiting") : Status::Ok();
  }

  bool IsLive() const { return !stopped_.load(); }
  bool IsReady() const;
  const ServerOptions& options() const { return options_; }
  ModelLifecycle& lifecycle() { return *lifecycle_; }
  TraceManager& tracer() { return *tracer_; }

  std::string MetadataJson() const;
  // With a memory budget, a model that is not loaded loads first (the
  // caller waits, up to --model-load-wait-timeout-ms).
  StatusOr<std::string> ModelMetadataJson(std::string_view name, int64_t version);
  StatusOr<std::string> ModelConfigJson(std::string_view name, int64_t version);
  std::string IndexJson(bool ready_only) const;
  // Statistics of `name` (every model when empty) at `version` (-1: all READY).
  StatusOr<std::string> StatisticsJson(std::string_view name, int64_t version) const;
  // Prometheus text exposition of every loaded version.
  std::string MetricsText() const;

  // The trace extension: the settings in force for `model` (global when
  // empty) as JSON, and an update of them. A model must have a READY version.
  StatusOr<std::string> TraceSettingsJson(const std::string& model) const;
  StatusOr<std::string> UpdateTraceSettings(const std::string& model, std::string_view update_json);

  // The repository API (EXPLICIT mode only; UNAVAILABLE otherwise).
  Status LoadModel(const std::string& name, const LoadOverrides& overrides);
  // `unload_dependents`: an ensemble's composing models go too.
  Status UnloadModel(const std::string& name, bool unload_dependents = false);

  // The one path into a model: validates `request`, binds it to its model
  // version and queues it. Frontends (through the C API), warm-up, and later
  // ensembles and backends calling other models all submit here. On error
  // nothing is queued and no callback will run.
  // A model with response_cache enabled answers a hit here, before any queue.
  Status InferAsync(InferenceRequest* request);
  // RequestSubmitter: an ensemble's step requests take the same path, but
  // also while the server stops: they belong to a request it admitted and
  // lets finish (their models leave only after the ensemble).
  Status Submit(InferenceRequest* request) override;

  const Clock& clock() const { return clock_; }
  // Null unless the server was started with a response cache.
  const ResponseCache* response_cache() const { return response_cache_.get(); }

  INFERD_Server* handle() { return reinterpret_cast<INFERD_Server*>(this); }
  static InferenceServer* FromHandle(INFERD_Server* handle) {
    return reinterpret_cast<InferenceServer*>(handle);
  }

 private:
  explicit InferenceServer(ServerOptions options);
  // Creates what the server lends its models (tracer, backends, ...) and
  // gathers them in services_.
  Status CreateServices();
  Status CheckExplicitMode(const char* what) const;
  // Finds the model version for `request`, samples it for tracing, validates
  // it and admits it to the version's in-flight count.
  // A client's request (`from_client`) also meets the model's in-flight cap.
  Status Admit(InferenceRequest* request, bool from_client,
               std::shared_ptr<ModelVersion>* model);
  // Submit's body; `from_client`: the request may be answered from the cache
  // (an ensemble's steps, which complete into their run, never are). With a
  // memory budget, a request for a model that is not loaded waits for its
  // load (up to `waits_left` times) and Ok is returned: its outcome goes to
  // its callback.
  Status SubmitRequest(InferenceRequest* request, bool from_client, int waits_left = 2);
  // on_demand_admission.cc: hands `request` to the on-demand loader if its
  // model loads on demand; false if it does not.
  bool AwaitOnDemandLoad(InferenceRequest* request, bool from_client, int waits_left);
  // With a memory budget: waits for the on-demand load of `name` if it is
  // not loaded; Ok when it serves or is not an on-demand model.
  Status AwaitLoaded(std::string_view name);
  // Creates the on-demand loader and loads the pinned and --load-model models.
  Status StartOnDemand();
  // The repository API's load with a budget: within it, and pinned.
  Status LoadPinned(const std::string& name, const LoadOverrides& overrides);
  // Looks `request` (bound, admitted) up in `model`'s cache: on a hit answers
  // and releases it and returns true; on a miss marks it to be stored.
  bool AnswerFromCache(InferenceRequest* request, ModelVersion& model);
  // A refused request's trace is not written.
  static void DiscardTrace(InferenceRequest* request);

  const ServerOptions options_;
  const Clock& clock_;
  // Before the lifecycle: destroyed after every model, so after every trace.
  std::unique_ptr<TraceManager> tracer_;
  // Before the lifecycle: every dynamic batcher forgets it before it goes.
  QueueSweeper sweeper_;
  std::unique_ptr<CopyWorkers> copy_workers_;  // outlives the models using it
  std::unique_ptr<ResponseCache> response_cache_;  // outlives the models; null: none
  std::unique_ptr<RateLimiter> rate_limiter_;  // null with --rate-limit=off; outlives models
  std::unique_ptr<BackendManager> backends_;
  CustomMetrics custom_metrics_;  // outlives the models, which drop theirs at unload
  ModelServices services_;  // the above, as the loader and every version see them
  std::unique_ptr<ModelLifecycle> lifecycle_;
  std::unique_ptr<RepositoryPoller> poller_;
  // With --model-memory-budget; registered with sweeper_ (its waits' timeouts).
  std::unique_ptr<OnDemandLoader> on_demand_;
  std::unique_ptr<CpuMetricsSampler> cpu_metrics_;  // null unless CPU metrics are on
  std::atomic<bool> exiting_{false};
  std::atomic<bool> stopping_{false};
  std::atomic<bool> stopped_{false};
};

}  // namespace inferd

#endif  // INFERD_CORE_SERVER_INFERENCE_SERVER_H_
