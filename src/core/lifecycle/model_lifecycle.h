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
// Thread-safe.
#ifndef INFERD_CORE_LIFECYCLE_MODEL_LIFECYCLE_H_
#define INFERD_CORE_LIFECYCLE_MODEL_LIFECYCLE_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <set>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "inferd/base/status.h"
#include "inferd/base/mutex.h"
#include "core/lifecycle/control_mode.h"
#include "core/repository/model_fingerprint.h"
#include "core/repository/model_source.h"
#include "core/lifecycle/model_loader.h"
#include "core/lifecycle/model_state.h"

namespace inferd {

class ModelVersion;

struct LifecycleOptions {
  ModelControlMode mode = ModelControlMode::kNone;
  TransitionPolicy policy = TransitionPolicy::kAvailabilityPreserving;
  // What models exist and when their files change: FolderSource over the
  // --model-repository folders. Required.
  std::shared_ptr<const ModelSource> source;
  int load_threads = 4;
  // How long a retired version may take to finish its in-flight requests.
  std::chrono::seconds drain_timeout{30};
  // --model-namespacing: models are known by (repository, name), keyed
  // "<repository>/<name>" (ModelKey); the source must list namespaces.
  bool namespacing = false;
};

// What the repository API's load request may replace.
struct LoadOverrides {
  std::optional<std::string> config_json;
  // Relative path inside the model folder -> content ("file:<path>" parameters).
  std::map<std::string, std::string> files;
};

class ModelLifecycle {
 public:
  ModelLifecycle(ModelLoader loader, LifecycleOptions options);
  ~ModelLifecycle();

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
  // True when every model that should be loaded has all its versions READY.
  bool AllReady() const EXCLUDES(mu_);

  // Unloads everything, letting in-flight requests finish until `deadline`.
  void UnloadAll(std::chrono::steady_clock::time_point deadline) EXCLUDES(mu_);

 private:
  // Load without giving the freed memory back (Load does that once after).
  Status LoadLocations(const std::string& name, const LoadOverrides& overrides) EXCLUDES(mu_);
  struct VersionRecord {
    ModelState state = ModelState::kLoading;
    std::string reason;
    std::shared_ptr<ModelVersion> model;
  };
  struct ModelRecord {
    bool aspired = false;  // should be loaded; readiness counts it
    std::string error;     // failure of the model as a whole
    std::map<int64_t, VersionRecord> versions;
    ModelFingerprint loaded_fingerprint;  // what the serving versions came from
    ModelFingerprint last_seen;           // what the last poll saw
    bool config_overridden = false;       // loaded with an API config or files
    bool files_overridden = false;        // loaded from "file:" overrides
    std::filesystem::path override_dir;   // private folder of "file:" overrides
    std::shared_ptr<Mutex> op_mu = std::make_shared<Mutex>();
  };
  using ServingTable =
      std::map<std::string, std::map<int64_t, std::shared_ptr<ModelVersion>>, std::less<>>;

  // Loads `location` for record `name` and swaps it in; `reuse_unchanged`
  // keeps versions whose files did not change (POLL).
  // Takes the model's operation mutex. `forget` drops the record (POLL: the
  // folder is gone) instead of keeping it as "unloaded".
  // `unless_ready`: nothing to do when a version of `name` is READY by the
  // time the operation mutex is ours. An ensemble's composing models are
  // loaded first, unless READY (on this thread, so a cycle is an error).
  // `unless_unchanged`: nothing to do when every version serves and the files
  // are those of the last load (which was not from "file:" overrides).
  // `name` is the model's key (ModelKey). `prep`: what PrepareStart did for
  // it (at start only; not with overrides).
  struct StartPrep;
  Status DoLoad(const std::string& name, ModelLocation location,
                const LoadOverrides& overrides, bool reuse_unchanged,
                bool unless_ready = false, bool unless_unchanged = false,
                const StartPrep* prep = nullptr) EXCLUDES(mu_);
  // A model's load worked out ahead at start, before any model loads.
  struct StartPrep {
    ModelLocation location;
    ModelFingerprint fingerprint;  // taken before its config was read, as DoLoad does
    std::shared_ptr<const PreparedLoad> load;
  };
  // Fingerprints and plans each of `names` (keys of `models`) on the load
  // threads, opening the backends they name (ModelLoader::Prepare), so that
  // a backend initializing in the background overlaps reading the configs.
  std::map<std::string, StartPrep> PrepareStart(const std::vector<std::string>& names,
                                                const std::vector<ModelLocation>& models) const;
  Status DoUnload(const std::string& name, bool forget) EXCLUDES(mu_);
  // Unload() of one model, by key.
  Status UnloadKey(const std::string& key, bool unload_dependents) EXCLUDES(mu_);
  // Replaces `versions` by the outcome of a load: new versions serve, a version
  // that failed to reload keeps its previous load; what no longer serves goes to
  // `retire`. Returns the failures, "; "-joined (empty when none).
  static std::string MergeVersions(const std::vector<ModelLoadResult::Version>& loaded_versions,
                                   std::map<int64_t, VersionRecord>* versions,
                                   std::vector<std::shared_ptr<ModelVersion>>* retire);
  std::shared_ptr<Mutex> OperationMutex(const std::string& name) EXCLUDES(mu_);
  // Retires `models` (already out of the serving table), waiting for their requests.
  void Retire(std::vector<std::shared_ptr<ModelVersion>> models) const;
  // Runs `work` for each of `names` on up to load_threads threads.
  void ForEachParallel(const std::vector<std::string>& names,
                       const std::function<void(const std::string&)>& work) const;
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
  // An error when the ensembles reachable from `chain`'s last model (read
  // from the repository, nothing loaded) lead back into `chain`.
  Status CheckNoEnsembleCycle(std::vector<std::string>* chain, std::set<std::string>* seen) const;
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

  mutable Mutex mu_;
  std::map<std::string, ModelRecord, std::less<>> records_ GUARDED_BY(mu_);
  // While the start's loads run: a publish rebuilds the whole table, so one
  // per model is quadratic in the repository's size (3,000 models: 2.5 s to
  // ready); nobody is served before the start ends, and it publishes once.
  bool publish_deferred_ GUARDED_BY(mu_) = false;
  // READY ensemble versions left out of the serving table, with the reason.
  std::map<std::pair<std::string, int64_t>, std::string> blocked_ensembles_ GUARDED_BY(mu_);
  std::atomic<std::shared_ptr<const ServingTable>> serving_;
  // With namespacing: model name -> the keys of the models of that name that
  // are loaded or asked for (`live`: a request chooses among them, as Triton
  // among the models its dependency graph holds), and of all that are known.
  struct NameKeys {
    std::vector<std::string> live;
    std::vector<std::string> all;
  };
  using KeysByName = std::map<std::string, NameKeys, std::less<>>;
  std::atomic<std::shared_ptr<const KeysByName>> keys_by_name_;
};

}  // namespace inferd

#endif  // INFERD_CORE_LIFECYCLE_MODEL_LIFECYCLE_H_
