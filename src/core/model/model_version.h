// A loaded model version: its complete configuration, its backend, its
// instances and its scheduler. The object behind INFERD_Model.
//
// Requests hold a shared_ptr to it from submission to release and are counted
// in flight; Unload() waits for that count to reach zero (never for a lock)
// before stopping instances, so an unload or swap fails no admitted request.
// Thread-safe.
#ifndef INFERD_CORE_MODEL_MODEL_VERSION_H_
#define INFERD_CORE_MODEL_MODEL_VERSION_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/config/config_context.h"
#include "core/infer/bound_model.h"
#include "core/infer/sender_registry.h"
#include "core/model/active_instances.h"
#include "core/model/admission.h"
#include "core/model/host_policy.h"
#include "core/model/inflight_limit.h"
#include "core/model/model_services.h"
#include "core/model/queue_time_estimator.h"
#include "core/scheduler/sequence_states.h"
#include "core/timing/clock.h"
#include "core/stats/model_statistics.h"
#include "inferd/backend.h"
#include "inferd/base/mutex.h"
#include "inferd/base/status.h"
#include "model_config.pb.h"

namespace inferd {

class BackendLibrary;
class InferenceRequest;
class RateLimiter;
class ModelInstance;
class Scheduler;
class TraceEntry;

// What it takes to load one version.
struct ModelVersionSpec {
  std::string name;
  int64_t version = 0;
  std::filesystem::path model_dir;  // <repository>/<model>
  inference::ModelConfig config;    // normalized and validated
  // The backend; null for an ensemble, which has none.
  std::shared_ptr<BackendLibrary> backend;
  // Where the config came from; allow_incomplete_io says the backend may
  // complete it (INFERD_ModelSetConfig) during model initialize.
  ConfigContext config_context;
  // How the model's requests are sampled for tracing; null: never traced.
  TraceEntry* trace_entry = nullptr;
  // An ensemble's steps whose model takes sequences (sequence_batching, or an
  // ensemble with such a step): they get the client's sequence parameters.
  std::vector<bool> sequence_steps = {};
  // The server's services; null: none (a steady clock, no sweeper, ...).
  const ModelServices* services = nullptr;
};

class BatchSource;

class ModelVersion final : public BoundModel {
 public:
  // Initializes the model and its instances through the backend and starts its
  // scheduler. On error everything initialized so far is finalized again.
  // An ensemble (no backend) gets the ensemble scheduler and no instances.
  static StatusOr<std::shared_ptr<ModelVersion>> Load(ModelVersionSpec spec);
  ~ModelVersion() override;
  ModelVersion(const ModelVersion&) = delete;
  ModelVersion& operator=(const ModelVersion&) = delete;

  const std::string& name() const override { return spec_.name; }
  int64_t version() const override { return spec_.version; }
  bool batches() const override { return config_.max_batch_size() > 0; }
  bool decoupled() const override { return config_.model_transaction_policy().decoupled(); }
  SenderRegistry& senders() override { return senders_; }
  const Clock& clock() const override { return *services_.clock; }
  const std::filesystem::path& model_dir() const { return spec_.model_dir; }
  const inference::ModelConfig& config() const { return config_; }
  // True while the backend may replace the configuration (model initialize,
  // auto-completion, the default).
  bool may_complete_config() const { return completing_config_; }
  // Replaces the configuration with `config` (normalized and validated here);
  // only while may_complete_config().
  Status CompleteConfig(inference::ModelConfig config);
  // The configuration as the config endpoint renders it; computed once.
  const std::string& config_json() const { return config_json_; }
  // Not for an ensemble (is_ensemble()), which has no backend.
  BackendLibrary& backend() const { return *spec_.backend; }
  CopyWorkers* copy_workers() const { return services_.copy_workers; }
  bool is_ensemble() const { return spec_.backend == nullptr; }
  // Requests may carry sequence parameters: the model has sequence_batching,
  // or it is an ensemble with a step whose model takes them.
  bool takes_sequences() const {
    return config_.has_sequence_batching() ||
           std::find(spec_.sequence_steps.begin(), spec_.sequence_steps.end(), true) !=
               spec_.sequence_steps.end();
  }
  InferenceServer* server() const { return services_.server; }
  CustomMetrics* custom_metrics() const { return services_.custom_metrics; }
  Scheduler& scheduler() const { return *scheduler_; }
  // Every configured output name, shared by requests that ask for no output.
  // The lines of output `name`'s label_filename; empty when it has none.
  const std::vector<std::string>& OutputLabels(std::string_view name) const override;
  const std::shared_ptr<const std::vector<std::string>>& all_outputs() const {
    return all_outputs_;
  }
  void* state = nullptr;  // the backend's own, see INFERD_ModelSetState
  ModelStatistics& stats() const override { return *stats_; }
  // The cache its responses go to (response_cache { enable: true } and a
  // server cache); null for almost every model.
  ResponseCache* response_cache() const { return response_cache_; }
  // Names this load in the cache: unique per loaded version, so a reload
  // never sees its predecessor's entries.
  uint64_t cache_owner() const { return cache_owner_; }
  TraceEntry* trace_entry() const { return spec_.trace_entry; }

  // In-flight accounting: admitted at submission, released at request release.
  void OnRequestAdmitted() { inflight_.fetch_add(1, std::memory_order_seq_cst); }
  // Admits a request unless the version is being unloaded (then the caller
  // looks the model up again: the serving table already has its successor).
  bool TryAdmit() {
    OnRequestAdmitted();
    if (!unloading_.load(std::memory_order_seq_cst)) return true;
    OnRequestReleased();
    return false;
  }
  void OnRequestReleased() override;
  // For a client's request TryAdmit just admitted: admission control
  // (admission.h) counts it as queued, or refuses it (the admission undone)
  // with the status its limits say. Atomics only (model_admission.cc).
  Status AdmitClient(InferenceRequest* request);
  // For an ensemble's step just admitted: counted as queued, never refused
  // (the ensemble request it belongs to was admitted).
  void AdmitStep(InferenceRequest* request);
  // Queues an admitted request with the scheduler; a full dynamic batcher
  // queue's RESOURCE_EXHAUSTED gets its retry advice here.
  Status Enqueue(InferenceRequest* request);
  // An execution of `requests` requests took `ns` (the queue time estimate).
  void ObserveExecution(uint64_t requests, uint64_t ns) { estimator_.Observe(requests, ns); }
  const AdmissionLimits& admission() const { return admission_; }
  // Requests admitted and not yet executing (an ensemble's until they end).
  int64_t queued() const { return queued_.load(std::memory_order_relaxed); }
  uint64_t inflight() const { return inflight_.load(std::memory_order_seq_cst); }
  // Execution instances (none for an ensemble); constant once loaded.
  size_t instance_count() const { return instances_.size(); }

  // When its latest request came (its load before any), on its clock: the
  // memory budget evicts the least recently used model first.
  uint64_t last_used_ns() const { return last_used_ns_.load(std::memory_order_relaxed); }
  // Stores at most once a millisecond, so a busy model's requests do not all
  // write the same cache line.
  void NoteUsed(uint64_t now_ns) {
    if (now_ns >= last_used_ns() + 1'000'000) {
      last_used_ns_.store(now_ns, std::memory_order_relaxed);
    }
  }

  // Starts the active instances' execution threads unless they run already:
  // a version starts them at its first request, not at load (a model that is
  // never asked costs the server's start no threads: 100 models, 200 of
  // them). Call before the scheduler gets a request. After Unload, nothing.
  void EnsureInstancesRunning() {
    if (!instances_settled_.load(std::memory_order_acquire)) StartInstances();
  }

  // Waits until no request is in flight or its clock reaches `deadline_ns`
  // (clock().NowNs() and after), then stops the
  // scheduler (failing what is still queued), joins the instance threads,
  // finalizes instances and model, and ends with an error every request whose
  // response sender the backend left open. Idempotent.
  void Unload(uint64_t deadline_ns);

  INFERD_Model* handle() { return reinterpret_cast<INFERD_Model*>(this); }
  static ModelVersion* FromHandle(INFERD_Model* handle) {
    return reinterpret_cast<ModelVersion*>(handle);
  }

 private:
  explicit ModelVersion(ModelVersionSpec spec);
  static StatusOr<std::shared_ptr<ModelVersion>> LoadEnsemble(std::shared_ptr<ModelVersion> model);
  // Initializes `model` through its backend, creates and warms up its
  // instances; on error finalizes again what was initialized.
  static Status Initialize(const std::shared_ptr<ModelVersion>& model);
  // Takes the server's response cache when the config enables it (else says why not).
  void UseResponseCache();
  Status CreateInstances();
  // Creates the scheduler the config asks for; the active instances'
  // threads take work from it once started (EnsureInstancesRunning).
  void StartScheduling();
  void StartInstances() EXCLUDES(start_mu_);
  // Recomputes what derives from config_.
  void OnConfigChanged();
  // The admission limits of config_ with the server's (admission_).
  Status ResolveAdmission();
  // The request continues a live sequence (no START): admission never refuses it.
  bool ContinuesSequence(const InferenceRequest& request) const;
  void FinalizeAll();
  // Ends, with an error, every request whose response sender is still open.
  void EndOpenRequests();

  // Constant after Load().
  const ModelVersionSpec spec_;
  const ModelServices services_;  // *spec_.services, copied (model_services.h says why)
  inference::ModelConfig config_;
  const uint64_t cache_owner_;
  AdmissionLimits admission_;  // from the config, constant after load
  ResponseCache* response_cache_ = nullptr;  // set at load, constant after
  bool completing_config_ = false;
  std::string config_json_;
  std::shared_ptr<const std::vector<std::string>> all_outputs_;
  std::map<std::string, std::vector<std::string>, std::less<>> labels_;  // by output
  std::vector<std::unique_ptr<ModelInstance>> instances_;
  ActiveInstances active_;  // the scheduler's view of instances_; outlives it
  std::unique_ptr<Scheduler> scheduler_;
  BatchSource* batch_source_ = nullptr;  // scheduler_ as its instances see it
  SequenceStates sequence_states_;  // sequence_batching state, read at Load
  std::unique_ptr<ModelStatistics> stats_;
  SenderRegistry senders_;
  bool model_initialized_ = false;

  Mutex start_mu_;
  // The instance threads run, or never will (the version is unloading);
  // written under start_mu_.
  std::atomic<bool> instances_settled_{false};

  std::atomic<uint64_t> inflight_{0};
  std::atomic<int64_t> queued_{0};  // admission_marks.h
  QueueTimeEstimator estimator_;
  std::atomic<uint64_t> last_used_ns_{0};
  std::atomic<bool> unloading_{false};
  Mutex mu_;  // only for waiting on inflight_ during Unload
  CondVar drained_;
  bool unloaded_ = false;
};

}  // namespace inferd

#endif  // INFERD_CORE_MODEL_MODEL_VERSION_H_
