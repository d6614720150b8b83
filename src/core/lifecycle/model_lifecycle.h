// The manager of loaded models (TF Serving's "manager"): which versions of
// which models are READY, which failed and why; loading, reloading and
// unloading them under the control mode; and the lookup every inference
// request makes.
//
// Lookups read an immutable snapshot of the serving table through an atomic
// shared_ptr, so the request path takes no lock; changes (rare) rebuild the
// snapshot under mu_. Loads and unloads of one model are serialized by that
// model's own operation mutex; different models load in parallel. A reload
// swaps versions without failing admitted requests: the old version leaves the
// serving table first and is unloaded once its in-flight requests are done.
// What a load keeps or retires is load_plan.h's pure decision; an ensemble's
// composing models load first in ensemble_dependencies.h's order. Thread-safe.
#ifndef INFERD_CORE_LIFECYCLE_MODEL_LIFECYCLE_H_
#define INFERD_CORE_LIFECYCLE_MODEL_LIFECYCLE_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "inferd/base/status.h"
#include "inferd/base/mutex.h"
#include "core/lifecycle/control_mode.h"
#include "core/repository/model_fingerprint.h"
#include "core/repository/model_source.h"
#include "core/lifecycle/load_plan.h"
#include "core/lifecycle/model_loader.h"
#include "core/lifecycle/model_record.h"
#include "core/lifecycle/model_state.h"
#include "core/lifecycle/on_demand_loader.h"
#include "core/lifecycle/serving_table.h"

namespace inferd {

class ModelVersion;

struct LifecycleOptions {
  ModelControlMode mode = ModelControlMode::kNone;
  TransitionPolicy policy = TransitionPolicy::kAvailabilityPreserving;
  // What models exist and when their files change: FolderSource over the
  // --model-repository folders. Required.
  std::shared_ptr<const ModelSource> source;
  int load_threads = 4;
  // How long a retired version may take to finish its in-flight requests
  // (on the clock of the loader's services).
  std::chrono::seconds drain_timeout{30};
  // --model-namespacing: models are known by (repository, name), keyed
  // "<repository>/<name>" (ModelKey); the source must list namespaces.
  bool namespacing = false;
  // --model-memory-budget: models load on their first request, through an
  // OnDemandLoader that this lifecycle hosts; Start and Poll load nothing
  // (the server loads the pinned and --load-model ones through the loader).
  bool on_demand = false;
  // --model-memory-pin: models never evicted.
  std::set<std::string> pinned;
};

// The config parameter that pins a model within the memory budget:
// parameters { key: "inferd.pin" value { string_value: "true" } }.
inline constexpr char kPinParameter[] = "inferd.pin";

// What the repository API's load request may replace.
struct LoadOverrides {
  std::optional<std::string> config_json;
  // Relative path inside the model folder -> content ("file:<path>" parameters).
  std::map<std::string, std::string> files;
};

class ModelLifecycle final : public OnDemandHost {
 public:
  ModelLifecycle(ModelLoader loader, LifecycleOptions options);
  ~ModelLifecycle() override;

  // Loads what the mode asks for at start: every model (NONE, POLL), or the
  // names in `startup_models` (EXPLICIT; "*" means every model). Failures are
  // recorded, not returned; an error means the source cannot be read.
  Status Start(const std::vector<std::string>& startup_models) EXCLUDES(mu_);

  // Loads or reloads model `name` (EXPLICIT mode's repository API). Returns an
  // error naming the reason when no version of it is READY afterwards.
  // Without overrides, a model that serves and whose files did not change
  // since its last load is left as it is (a config override given then stays
  // in force); one whose files changed is reloaded from its folder, keeping
  // the versions whose files did not change. With namespacing, every model
  // of that name loads (one per repository).
  Status Load(const std::string& name, const LoadOverrides& overrides) EXCLUDES(mu_);
  // Unloads every version of `name` (with namespacing: of every model of that
  // name), waiting for its in-flight requests.
  // With `unload_dependents`, an ensemble's composing models go too (those
  // no other loaded ensemble runs), nested ones included.
  Status Unload(const std::string& name, bool unload_dependents = false) EXCLUDES(mu_);
  // One POLL round: loads new models, reloads changed ones (only the versions
  // whose files changed when config.pbtxt did not), unloads removed ones. A
  // model is touched only once two polls in a row saw the same files.
  void Poll() EXCLUDES(mu_);

  // The READY version `version` of `name` (-1: the highest READY one).
  // NOT_FOUND for an unknown model or version; UNAVAILABLE, with the reason,
  // for one that failed to load or is not loaded. With namespacing, `ns`
  // (a repository) picks among models of the same name; without it, a name
  // that several repositories hold is INVALID_ARG (ambiguous).
  StatusOr<std::shared_ptr<ModelVersion>> Get(std::string_view name, int64_t version,
                                              std::string_view ns = {}) const EXCLUDES(mu_);
  // READY versions of `name`, ascending; empty if none.
  std::vector<int64_t> ReadyVersions(std::string_view name) const;
  // Every READY version, by name then version.
  std::vector<std::shared_ptr<ModelVersion>> Loaded() const;

  std::vector<IndexEntry> Index() const EXCLUDES(mu_);
  // Strict readiness: no model holds it back (readiness.h: Triton's rule).
  bool AllReady() const EXCLUDES(mu_);

  // With a memory budget: the key of model `name` (of repository `ns`) when
  // it is not loaded and loads on its next request; nothing otherwise (it
  // serves, failed, or is unknown). model_lifecycle_on_demand.cc.
  std::optional<std::string> OnDemandKey(std::string_view name, std::string_view ns) const
      EXCLUDES(mu_);
  // Pins (or unpins) the loaded model `key` within the memory budget.
  void SetPinned(const std::string& key, bool pinned) EXCLUDES(mu_);

  // OnDemandHost: what the budget's loader loads into and measures.
  bool Serves(const std::string& key) const override;
  std::vector<std::string> ComposingOf(const std::string& key) const override;
  Status LoadOnDemand(const std::string& key) override EXCLUDES(mu_);
  void Evict(const std::string& key, const std::string& reason) override EXCLUDES(mu_);
  std::vector<ResidentModel> Resident() const override EXCLUDES(mu_);
  uint64_t EstimateBytes(const std::string& key) const override;
  std::shared_ptr<const void> HoldBackends(const std::string& key) const override;
  uint64_t MeasureBytes() const override;

  // Unloads everything, letting in-flight requests finish until the clock
  // (the loader's services') reaches `deadline_ns`.
  void UnloadAll(uint64_t deadline_ns) EXCLUDES(mu_);

 private:
  // A model's load worked out at start, once its files are in place.
  struct StartPrep {
    ModelLocation location;
    ModelFingerprint fingerprint;  // taken before its config was read, as DoLoad does
    std::shared_ptr<const PreparedLoad> load;
  };
  // Composing model key -> how its load (or the refusal to load it) went,
  // for the ensembles of one load that run it.
  using ComposingOutcomes = std::map<std::string, Status>;

  // Load without giving the freed memory back (Load does that once after).
  Status LoadLocations(const std::string& name, const LoadOverrides& overrides) EXCLUDES(mu_);
  // Loads `location` as model `name` (its key, ModelKey) and swaps it in, as
  // `kind` says; takes the model's operation mutex. An ensemble's composing
  // models that do not serve load first, in the order OrderDependencies
  // gives (each under its own operation mutex, the ensemble's still held:
  // the cycles it refuses are the only way two loads could wait on each
  // other), their outcomes in `composed`; an ensemble loaded as one of those
  // (`composed` set) finds its own composing models there.
  // `prep`: what the start prepared for it (PrepareArrived; not with overrides).
  Status DoLoad(const std::string& name, ModelLocation location,
                const LoadOverrides& overrides, LoadKind kind,
                const StartPrep* prep = nullptr, ComposingOutcomes* composed = nullptr)
      EXCLUDES(mu_);
  // DoLoad's plan against the record of `name`: marks it aspired, hands the
  // versions to keep to `reusable` and moves those to retire before the load
  // to `retire`. False: nothing to do.
  bool BeginLoad(const std::string& name, const ModelFingerprint& fingerprint, LoadKind kind,
                 std::map<int64_t, std::shared_ptr<ModelVersion>>* reusable,
                 std::vector<std::shared_ptr<ModelVersion>>* retire) EXCLUDES(mu_);
  // The plan of the folder at `location` with the config override, if any.
  std::shared_ptr<const PreparedLoad> PlanFolder(const ModelLocation& location,
                                                 const LoadOverrides& overrides) const;
  // Loads the composing models that ensemble `name` (of repository `ns`,
  // planned as `plan`, the versions in `reused` kept) needs and that do not
  // serve; their outcomes, and the models refused, go to `outcomes`.
  void LoadComposing(const std::string& name, const std::string& ns, const ModelPlan& plan,
                     const std::map<int64_t, std::shared_ptr<ModelVersion>>& reused,
                     ComposingOutcomes* outcomes) EXCLUDES(mu_);
  // Sets the loader's view of an ensemble of repository `ns`: composing
  // models are looked up (those that failed say why, from `outcomes`).
  void BindComposing(const std::string& ns, const ComposingOutcomes* outcomes,
                     LoadRequest* request) const;
  // A load of `name` got past its configuration (`plan`, not an ensemble's,
  // which its composing models may still refuse): it counts towards strict
  // readiness from now on, each version it loads afresh LOADING until the
  // loader answers (Triton's model lifecycle).
  void NoteLoading(const std::string& name, const ModelPlan& plan) EXCLUDES(mu_);
  // Records the loader's `result` for `name`; what no longer serves goes to
  // `retire`, the override folder no longer used to `stale_override`.
  Status FinishLoad(const std::string& name, const ModelLoadResult& result,
                    const ModelFingerprint& fingerprint, const LoadOverrides& overrides,
                    const std::filesystem::path& override_dir,
                    std::vector<std::shared_ptr<ModelVersion>>* retire,
                    std::filesystem::path* stale_override) EXCLUDES(mu_);
  // The keys of the models the steps of `config` (of repository `ns`) run.
  std::vector<std::string> ComposingKeys(const std::string& ns,
                                         const inference::ModelConfig& config) const;
  // ComposingKeys of model `key` as its folder holds it; empty if none.
  std::vector<std::string> StepsOfKey(const std::string& key) const;
  // The start's entry for each of `names` (keys of `models`), once each, in
  // the order of `models`.
  static std::vector<StartPrep> StartLocations(const std::vector<std::string>& names,
                                               const std::vector<ModelLocation>& models);
  // Fingerprints and plans `prep`, whose files arrived (`copied`: or why
  // not), opening the backends it names (ModelLoader::Prepare) unless another
  // thread is opening some (`opening`), so that a backend initializing in the
  // background overlaps reading the other configs.
  void PrepareArrived(Status copied, std::atomic<bool>& opening, StartPrep* prep) const;
  // The start's loads: the source copies every model of `names` (keys of
  // `models`) side by side (MaterializeEach), and each loads on the load
  // threads as soon as its own files are in place, in the order they arrive,
  // while the others still download.
  void LoadAsTheyArrive(const std::vector<std::string>& names,
                        const std::vector<ModelLocation>& models) EXCLUDES(mu_);
  // PrepareArrived for each of `names` (keys of `models`), once all are
  // copied: the start with a memory budget, which loads none.
  std::map<std::string, StartPrep> PrepareStart(const std::vector<std::string>& names,
                                                const std::vector<ModelLocation>& models) const;
  // With a memory budget and not `forget`, the model loads again on its next
  // request, showing `idle_reason` (or "unloaded") meanwhile.
  Status DoUnload(const std::string& name, bool forget, const std::string& idle_reason = {})
      EXCLUDES(mu_);
  // Start and Poll with a memory budget: every model is known, none loads.
  void StartOnDemand(const std::vector<ModelLocation>& models) EXCLUDES(mu_);
  // Loads and unloads the smallest model of each backend of `prepared`, so
  // that what a backend sets up in the background is not the first model's.
  void SettleBackends(const std::map<std::string, StartPrep>& prepared) EXCLUDES(mu_);
  // A version of `record` is READY.
  static bool HasReadyVersion(const ModelRecord& record);
  // Unload() of one model, by key.
  Status UnloadKey(const std::string& key, bool unload_dependents) EXCLUDES(mu_);
  std::shared_ptr<Mutex> OperationMutex(const std::string& name) EXCLUDES(mu_);
  // Retires `models` (already out of the serving table), waiting for their requests.
  void Retire(std::vector<std::shared_ptr<ModelVersion>> models) const;
  // Runs `work` for each of `names` on up to load_threads threads.
  void ForEachParallel(const std::vector<std::string>& names,
                       const std::function<void(const std::string&)>& work) const;
  // Runs `worker` on min(load_threads, `work_items`) threads (this one
  // among them) and waits for all.
  void RunThreads(size_t work_items, const std::function<void()>& worker) const;
  // The folder of model `name` as seen from repository `ns`: that
  // repository's, else the only one of that name (with namespacing);
  // NOT_FOUND when none, INVALID_ARG when several and none in `ns`.
  StatusOr<ModelLocation> Locate(const std::string& name, const std::string& ns = {}) const;
  // Every folder of model `name` (one per repository with namespacing).
  StatusOr<std::vector<ModelLocation>> LocateAll(const std::string& name) const;
  // The folder of the model with key `key`.
  StatusOr<ModelLocation> LocateKey(const std::string& key) const;
  // The key of the model a request for `name` (from repository `ns`, may be
  // empty) means: `name` itself without namespacing, and when no model has
  // that name; INVALID_ARG when several have it and none is in `ns`.
  StatusOr<std::string> KeyOf(std::string_view name, std::string_view ns) const;
  // The repository whose model `step` an ensemble of repository `ns` runs.
  std::string ComposingNamespace(const std::string& ns, const std::string& step) const;
  StatusOr<std::shared_ptr<ModelVersion>> GetByKey(std::string_view key, int64_t version) const
      EXCLUDES(mu_);
  // GetByKey for the loads themselves (is it loaded already? an ensemble's
  // composing model): while the start defers publishing, from the records.
  StatusOr<std::shared_ptr<ModelVersion>> LoadedByKey(const std::string& key,
                                                      int64_t version) const EXCLUDES(mu_);
  // Publishes the READY versions as the serving table, less the ensembles
  // whose composing models do not all serve (blocked_ensembles_). Nothing
  // while publish_deferred_.
  void PublishLocked() REQUIRES(mu_);
  // Why ensemble `name` `version` does not serve though READY; empty if it does.
  std::string BlockedReasonLocked(const std::string& name, int64_t version) const REQUIRES(mu_);
  bool UsedByAnEnsemble(const std::string& name) const EXCLUDES(mu_);
  Status ExplainMissing(std::string_view name, int64_t version) const EXCLUDES(mu_);

  const ModelLoader loader_;
  const LifecycleOptions options_;
  const Clock& clock_;  // the services': how long retired versions drain

  mutable Mutex mu_;
  ModelRecords records_ GUARDED_BY(mu_);
  // While the start's loads run: a publish rebuilds the whole table, so one
  // per model is quadratic in the repository's size (3,000 models: 2.5 s to
  // ready); nobody is served before the start ends, and it publishes once.
  bool publish_deferred_ GUARDED_BY(mu_) = false;
  BlockedEnsembles blocked_ensembles_ GUARDED_BY(mu_);
  // With a memory budget: what the start prepared, holding the backends open.
  std::vector<std::shared_ptr<const PreparedLoad>> open_backends_ GUARDED_BY(mu_);
  std::atomic<std::shared_ptr<const ServingTable>> serving_;
  // With namespacing: which models answer to each name (serving_table.h).
  std::atomic<std::shared_ptr<const KeysByName>> keys_by_name_;
};

}  // namespace inferd

#endif  // INFERD_CORE_LIFECYCLE_MODEL_LIFECYCLE_H_
