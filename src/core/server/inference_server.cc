#include "core/server/inference_server.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "core/common/copy_workers.h"
#include "core/common/freed_memory.h"
#include "core/common/logging.h"
#include "core/infer/inference_request.h"
#include "core/infer/inference_response.h"
#include "core/infer/response_caching.h"
#include "core/infer/request_validator.h"
#include "core/lifecycle/override_folder.h"
#include "core/model/model_version.h"
#include "core/repository/repository_source.h"
#include "core/scheduler/scheduler.h"
#include "core/server/metadata_json.h"
#include "core/stats/cpu_metrics.h"
#include "core/stats/memory_budget_metrics.h"
#include "core/stats/model_statistics.h"
#include "core/stats/prometheus_text.h"
#include "core/stats/statistics_json.h"
#include "core/trace/request_trace.h"

namespace inferd {
InferenceServer::InferenceServer(ServerOptions options)
    : options_(std::move(options)), clock_(Clock::Steady()), sweeper_(clock_) {}

InferenceServer::~InferenceServer() {
  Status status = Stop();
  (void)status;
}

namespace {

// --exit-on-error: every model the start left UNAVAILABLE, with its reason.
Status StartupFailures(const std::vector<IndexEntry>& index) {
  std::string failures;
  for (const IndexEntry& entry : index) {
    if (entry.state != ModelState::kUnavailable || entry.loads_on_demand) continue;
    // Most reasons name the model (and version) already.
    const std::string model = "model '" + entry.name + "'" +
                              (entry.version >= 0 ? " version " + std::to_string(entry.version)
                                                  : "");
    failures += "\n  " + (entry.reason.starts_with(model) ? "" : model + ": ") + entry.reason;
  }
  if (failures.empty()) return Status::Ok();
  return Status::InvalidArg("failed to load all models (--exit-on-error=true; start with "
                            "--exit-on-error=false to serve the models that loaded):" +
                            failures);
}

// Local folders only: FolderSource; with an object store URL among them, the
// source that lists the stores and copies their models into the cache.
StatusOr<std::shared_ptr<const ModelSource>> MakeModelSource(const ServerOptions& o) {
  MirrorOptions mirror;
  mirror.dir = o.model_cache_directory;
  mirror.byte_limit = o.model_cache_bytes;
  return OpenModelSource(o.repository_paths, o.model_namespacing, std::move(mirror));
}

}  // namespace

StatusOr<std::unique_ptr<InferenceServer>> InferenceServer::Create(ServerOptions options) {
  if (options.repository_paths.empty()) {
    return Status::InvalidArg("no model repository given (--model-repository)");
  }
  std::unique_ptr<InferenceServer> server(new InferenceServer(std::move(options)));
  const ServerOptions& o = server->options_;
  RETURN_IF_ERROR(server->CreateServices());
  LifecycleOptions lifecycle;
  lifecycle.mode = o.control_mode;
  lifecycle.policy = o.transition_policy;
  ASSIGN_OR_RETURN(lifecycle.source, MakeModelSource(o));
  lifecycle.namespacing = o.model_namespacing;
  lifecycle.load_threads = o.model_load_threads;
  lifecycle.drain_timeout = std::chrono::seconds(o.exit_timeout_secs);
  lifecycle.on_demand = o.model_memory_budget_bytes > 0;
  lifecycle.pinned = {o.pinned_models.begin(), o.pinned_models.end()};
  if (lifecycle.on_demand && o.model_namespacing) {
    return Status::InvalidArg(
        "--model-memory-budget does not work with --model-namespacing yet: start with one of them");
  }
  if (lifecycle.on_demand) MapLargeAllocationsAlone();  // measurable loads, freeing evictions
  const LoaderContext loading{&server->services_, o.strict_model_config, o.model_config_name,
                              o.model_load_retries};
  server->lifecycle_ = std::make_unique<ModelLifecycle>(ModelLoader(loading), lifecycle);
  RETURN_IF_ERROR(server->lifecycle_->Start(o.startup_models));
  if (lifecycle.on_demand) RETURN_IF_ERROR(server->StartOnDemand());
  if (o.exit_on_error) RETURN_IF_ERROR(StartupFailures(server->lifecycle_->Index()));
  if (o.control_mode == ModelControlMode::kPoll) {
    server->poller_ = std::make_unique<RepositoryPoller>(
        [lifecycle = server->lifecycle_.get()] { lifecycle->Poll(); },
        std::chrono::seconds(std::max<uint32_t>(1, o.repository_poll_secs)), server->clock_);
  }
  return server;
}

Status InferenceServer::CreateServices() {
  const ServerOptions& o = options_;
  ASSIGN_OR_RETURN(tracer_, TraceManager::Create(o.trace));
  backends_ = std::make_unique<BackendManager>(o.backend_directory, o.backend_settings);
  if (o.model_memory_budget_bytes > 0) backends_->KeepLibrariesOpen();
  copy_workers_ = std::make_unique<CopyWorkers>(o.buffer_manager_threads);
  if (o.rate_limit) rate_limiter_ = std::make_unique<RateLimiter>(o.rate_limit_resources);
  if (o.response_cache) {
    response_cache_ = std::make_unique<ResponseCache>(o.response_cache_bytes);
    LOG_INFO("Response cache: local, {} bytes", o.response_cache_bytes);
  }
  if (o.metrics.CpuSampling()) {
    // At most a year between samples, so the nanoseconds cannot overflow.
    const uint64_t interval_ms = std::min<uint64_t>(o.metrics.interval_ms, 31'536'000'000);
    cpu_metrics_ = std::make_unique<CpuMetricsSampler>(clock_, interval_ms * 1'000'000);
    LOG_INFO("Collecting CPU metrics every {} ms", interval_ms);
  }
  services_ = ModelServices{
      .server = this,
      .backends = backends_.get(),
      .tracer = tracer_.get(),
      .clock = &clock_,
      .sweeper = &sweeper_,
      .submitter = this,
      .copy_workers = copy_workers_.get(),
      .rate_limiter = rate_limiter_.get(),
      .host_policies = &o.host_policies,
      .metrics = &o.metrics,
      .response_cache = response_cache_.get(),
      .custom_metrics = &custom_metrics_,
      .max_inflight_requests = o.max_inflight_requests_per_model,
      .admission = std::make_shared<ServerAdmission>(o.admission),
  };
  return Status::Ok();
}

Status InferenceServer::Stop() {
  if (stopping_.exchange(true)) return Status::Ok();
  poller_.reset();
  if (on_demand_) {
    on_demand_->Stop();  // its waiting requests are answered
    sweeper_.Forget(on_demand_.get());
  }
  const uint64_t deadline_ns =
      clock_.NowNs() + uint64_t{options_.exit_timeout_secs} * 1'000'000'000;
  if (lifecycle_) lifecycle_->UnloadAll(deadline_ns);
  if (tracer_) tracer_->Flush();
  stopped_.store(true);
  return Status::Ok();
}

bool InferenceServer::IsReady() const {
  if (Exiting()) return false;
  return !options_.strict_readiness || lifecycle_->AllReady();
}

std::string InferenceServer::MetadataJson() const {
  return ServerMetadataJson(options_.server_id, INFERD_VERSION,
                            {"binary_tensor_data", "classification", "model_configuration",
                             "model_repository", "model_repository(unload_dependents)",
                             "parameters", "statistics", "schedule_policy", "sequence",
                             "sequence(string_id)", "system_shared_memory", "logging", "trace"});
}

StatusOr<std::string> InferenceServer::ModelMetadataJson(std::string_view name,
                                                         int64_t version) {
  RETURN_IF_ERROR(AwaitLoaded(name));
  ASSIGN_OR_RETURN(std::shared_ptr<ModelVersion> model, lifecycle_->Get(name, version));
  std::vector<int64_t> versions =
      version < 0 ? lifecycle_->ReadyVersions(name) : std::vector<int64_t>{version};
  return inferd::ModelMetadataJson(model->config(), versions);
}

StatusOr<std::string> InferenceServer::ModelConfigJson(std::string_view name,
                                                       int64_t version) {
  RETURN_IF_ERROR(AwaitLoaded(name));
  ASSIGN_OR_RETURN(std::shared_ptr<ModelVersion> model, lifecycle_->Get(name, version));
  return model->config_json();
}

std::string InferenceServer::IndexJson(bool ready_only) const {
  return inferd::IndexJson(lifecycle_->Index(), ready_only);
}

namespace {

std::vector<NamedStatistics> Named(const std::vector<std::shared_ptr<ModelVersion>>& models) {
  std::vector<NamedStatistics> named;
  for (const auto& model : models) {
    named.push_back({model->name(), model->version(), &model->stats(),
                     model->scheduler().QueuedCount(), model->inflight(),
                     static_cast<uint32_t>(model->instance_count())});
  }
  return named;
}

}  // namespace

StatusOr<std::string> InferenceServer::StatisticsJson(std::string_view name,
                                                      int64_t version) const {
  std::vector<std::shared_ptr<ModelVersion>> models;
  if (name.empty()) {
    models = lifecycle_->Loaded();
  } else if (version >= 0) {
    ASSIGN_OR_RETURN(std::shared_ptr<ModelVersion> model, lifecycle_->Get(name, version));
    models.push_back(std::move(model));
  } else {
    for (int64_t v : lifecycle_->ReadyVersions(name)) {
      auto model = lifecycle_->Get(name, v);
      if (model.ok()) models.push_back(std::move(model).value());
    }
    if (models.empty()) RETURN_IF_ERROR(lifecycle_->Get(name, -1).status());
  }
  return inferd::StatisticsJson(Named(models));
}

std::string InferenceServer::MetricsText() const {
  std::string text;
  if (cpu_metrics_ == nullptr) {
    text = PrometheusText(Named(lifecycle_->Loaded()), options_.metrics, nullptr);
  } else {
    const CpuMetricsSampler::Values cpu = cpu_metrics_->Read();
    text = PrometheusText(Named(lifecycle_->Loaded()), options_.metrics, &cpu);
  }
  if (tracer_->opentelemetry()) {
    AppendSpanCounters(tracer_->spans_exported(), tracer_->spans_dropped(), &text);
  }
  if (on_demand_) AppendMemoryBudgetText(on_demand_->Snapshot(), &text);
  custom_metrics_.AppendPrometheusText(&text);  // the models' own, after the server's
  return text;
}

StatusOr<std::string> InferenceServer::TraceSettingsJson(const std::string& model) const {
  if (!model.empty()) RETURN_IF_ERROR(lifecycle_->Get(model, -1).status());
  return inferd::TraceSettingsJson(tracer_->Current(model));
}

StatusOr<std::string> InferenceServer::UpdateTraceSettings(const std::string& model,
                                                           std::string_view update_json) {
  if (!model.empty()) RETURN_IF_ERROR(lifecycle_->Get(model, -1).status());
  ASSIGN_OR_RETURN(TraceSettingsUpdate update, ParseTraceSettingsUpdate(update_json));
  RETURN_IF_ERROR(tracer_->Update(model, update));
  return inferd::TraceSettingsJson(tracer_->Current(model));
}

Status InferenceServer::LoadModel(const std::string& name, const LoadOverrides& overrides) {
  RETURN_IF_ERROR(CheckExplicitMode("load"));
  for (const auto& [path, content] : overrides.files) RETURN_IF_ERROR(CheckRelativePath(path));
  if (on_demand_) return LoadPinned(name, overrides);
  return lifecycle_->Load(name, overrides);
}

Status InferenceServer::UnloadModel(const std::string& name, bool unload_dependents) {
  RETURN_IF_ERROR(CheckExplicitMode("unload"));
  return lifecycle_->Unload(name, unload_dependents);
}

Status InferenceServer::CheckExplicitMode(const char* what) const {
  if (options_.control_mode == ModelControlMode::kExplicit) return Status::Ok();
  return Status::Unavailable(
      std::string("cannot ") + what + " models through the repository API: the model control mode is " +
      (options_.control_mode == ModelControlMode::kNone ? "NONE" : "POLL") +
      " (start inferd with --model-control-mode=explicit)");
}

Status InferenceServer::InferAsync(InferenceRequest* request) {
  if (stopping_.load(std::memory_order_relaxed)) {
    return Status::Unavailable("the server is shutting down");
  }
  return SubmitRequest(request, /*from_client=*/true);
}

Status InferenceServer::Submit(InferenceRequest* request) {
  return SubmitRequest(request, /*from_client=*/false);
}

Status InferenceServer::SubmitRequest(InferenceRequest* request, bool from_client,
                                      int waits_left) {
  // A version being swapped out refuses admission; its successor is already in
  // the serving table, so a second lookup finds it.
  std::shared_ptr<ModelVersion> model;
  Status status = Admit(request, from_client, &model);
  if (!status.ok()) {
    DiscardTrace(request);
    if (on_demand_ && status.code() == Status::Code::kUnavailable && waits_left > 0 &&
        AwaitOnDemandLoad(request, from_client, waits_left - 1)) {
      return Status::Ok();
    }
    return status;
  }
  // `model` stays held through Enqueue: the scheduler may execute the request
  // on this thread, and its release there may drop the request's hold.
  ModelVersion* version = model.get();
  request->Bind(model);
  request->queue_start_ns = clock_.NowNs();
  version->NoteUsed(request->queue_start_ns);
  if (request->trace) request->trace->Record(TracePoint::kQueueStart, request->queue_start_ns);
  if (version->response_cache() != nullptr && from_client && request->counts_in_stats &&
      AnswerFromCache(request, *version)) {
    return Status::Ok();
  }
  version->EnsureInstancesRunning();
  status = version->Enqueue(request);
  if (!status.ok()) {
    request->admission.Release();
    version->OnRequestReleased();
    request->Bind(nullptr);
    DiscardTrace(request);
  }
  return status;
}

Status InferenceServer::Admit(InferenceRequest* request, bool from_client,
                              std::shared_ptr<ModelVersion>* model) {
  for (int attempt = 0;; ++attempt) {
    ASSIGN_OR_RETURN(*model, lifecycle_->Get(request->model_name(), request->requested_version(),
                                             request->model_namespace));
    if (attempt == 0 && request->parent_trace != nullptr) {
      request->trace = tracer_->BeginChild(*request->parent_trace, (*model)->name(),
                                           (*model)->version(), request->id);
    } else if (attempt == 0 && (*model)->trace_entry() != nullptr) {
      // Sampled before validation, so REQUEST_START is when the server took it.
      request->trace = request->trace_context == nullptr
                           ? tracer_->MaybeTrace((*model)->trace_entry(), (*model)->name(),
                                                 (*model)->version(), request->id)
                           : tracer_->MaybeTrace((*model)->trace_entry(), (*model)->name(),
                                                 (*model)->version(), request->id,
                                                 *request->trace_context);
    }
    RETURN_IF_ERROR(ValidateRequest((*model)->config(), (*model)->all_outputs(), request));
    const bool in_sequence = request->correlation_id != 0 ||
                             !request->correlation_id_string.empty() ||
                             (request->flags & (INFERD_REQUEST_FLAG_SEQUENCE_START |
                                                INFERD_REQUEST_FLAG_SEQUENCE_END)) != 0;
    if (in_sequence && !(*model)->takes_sequences()) {
      return Status::InvalidArg("model '" + request->model_name() +
                                "' has no sequence batcher (sequence_batching in its "
                                "config.pbtxt): its requests cannot carry sequence_id, "
                                "sequence_start or sequence_end");
    }
    if (request->single_response && (*model)->decoupled()) {
      return Status::Unsupported(
          "model '" + request->model_name() +
          "' is decoupled (model_transaction_policy { decoupled: true }): it may send any "
          "number of responses per request, which this endpoint cannot carry; use gRPC "
          "ModelStreamInfer or HTTP generate_stream");
    }
    // Only a client's requests meet admission control: an ensemble's steps
    // belong to a request it already let in.
    if ((*model)->TryAdmit()) {
      if (from_client) return (*model)->AdmitClient(request);
      (*model)->AdmitStep(request);
      return Status::Ok();
    }
    if (attempt == 3) {
      return Status::Unavailable("model '" + request->model_name() + "' is being unloaded");
    }
  }
}

bool InferenceServer::AnswerFromCache(InferenceRequest* request, ModelVersion& model) {
  request->cache_miss.reset();
  const uint64_t start = clock_.NowNs();
  std::optional<CacheKey> key = MakeCacheKey(*request, model.cache_owner());
  if (!key) return false;
  ResponseCache& cache = *model.response_cache();
  std::shared_ptr<const CachedResponse> cached = cache.Lookup(*key);
  if (request->trace) {
    request->trace->Record(TracePoint::kCacheLookupStart, start);
    request->trace->Record(TracePoint::kCacheLookupEnd, clock_.NowNs());
  }
  if (cached == nullptr) {
    request->cache_miss =
        std::make_unique<CacheMiss>(CacheMiss{&cache, std::move(*key), clock_.NowNs() - start});
    return false;
  }
  Status status;
  std::unique_ptr<InferenceResponse> response = ResponseFromCache(*request, *cached, &status);
  // Counted before the client can see the response.
  if (status.ok()) {
    model.stats().RecordCacheHit(clock_.NowNs() - start, start - request->queue_start_ns);
  }
  InferenceResponse::Deliver(std::move(response), INFERD_RESPONSE_COMPLETE_FINAL,
                             std::move(status));
  request->Release();
  return true;
}

void InferenceServer::DiscardTrace(InferenceRequest* request) {
  if (request->trace == nullptr) return;
  request->trace->Discard();
  request->trace.reset();
}

}  // namespace inferd
