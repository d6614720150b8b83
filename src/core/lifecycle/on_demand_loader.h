// On-demand loading within a model memory budget (--model-memory-budget):
// a request for a model that is not loaded waits here while one thread loads
// it, together with every request that arrives for it meanwhile (one load per
// model, however many wait); room is made first by unloading the least
// recently used models nothing holds (eviction_policy.h). Loads are
// serialized, on-demand ones and the repository API's alike, so the growth of
// the resident bytes of the process and its stubs around a load is that
// model's (its "attributed bytes", what the budget adds up).
//
// What it loads into is an OnDemandHost (the model lifecycle; a fake in
// tests); time is the injected clock's, so its waits run in simulated time
// in tests. Waiting requests time out through SweepExpired (the server's
// queue sweeper calls it). Thread-safe.
#ifndef INFERD_CORE_LIFECYCLE_ON_DEMAND_LOADER_H_
#define INFERD_CORE_LIFECYCLE_ON_DEMAND_LOADER_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/lifecycle/eviction_policy.h"
#include "core/stats/memory_budget_metrics.h"
#include "core/timing/clock.h"
#include "core/timing/queue_sweeper.h"
#include "inferd/base/mutex.h"
#include "inferd/base/status.h"

namespace inferd {

// What the loader loads into and measures, by model key.
class OnDemandHost {
 public:
  virtual ~OnDemandHost() = default;
  // A version of `key` serves.
  virtual bool Serves(const std::string& key) const = 0;
  // The models ensemble `key` runs (loaded first, each measured on its own).
  virtual std::vector<std::string> ComposingOf(const std::string& key) const = 0;
  // Loads `key` as its folder says; the error says why it did not.
  virtual Status LoadOnDemand(const std::string& key) = 0;
  // Unloads `key` (nothing holds it), showing `reason` until it loads again.
  virtual void Evict(const std::string& key, const std::string& reason) = 0;
  // Every loaded model (bytes left 0: the loader attributes them).
  virtual std::vector<ResidentModel> Resident() const = 0;
  // Bytes `key` is expected to take before it was ever measured (its files).
  virtual uint64_t EstimateBytes(const std::string& key) const = 0;
  // Opens the backends `key` runs on and keeps them open while the handle
  // lives, so that a backend's one-time cost (its library, its runtime's
  // setup) is not attributed to the first model that uses it. May be null.
  virtual std::shared_ptr<const void> HoldBackends(const std::string& key) const = 0;
  // Resident bytes of the process and its child processes now.
  virtual uint64_t MeasureBytes() const = 0;
};

struct OnDemandOptions {
  uint64_t budget_bytes = 0;
  // How long a request waits for its model's load (--model-load-wait-timeout-ms).
  uint64_t wait_timeout_ns = 60'000'000'000;
  // Bytes attributed at least to a model whose load measured less (and less
  // than its files): memory the process had freed and reused, or a model
  // that keeps next to nothing.
  uint64_t min_model_bytes = 64 * 1024;
};

class OnDemandLoader final : public ExpiringQueue {
 public:
  using Done = std::function<void(Status)>;

  // `host` must outlive the loader. Starts the loading thread.
  OnDemandLoader(OnDemandHost* host, const Clock& clock, OnDemandOptions options);
  ~OnDemandLoader() override;
  OnDemandLoader(const OnDemandLoader&) = delete;
  OnDemandLoader& operator=(const OnDemandLoader&) = delete;

  // Ends the loading thread (after the load under way); every waiter gets
  // UNAVAILABLE. Idempotent.
  void Stop() EXCLUDES(mu_, load_mu_);

  // Calls `done` once, with Ok once `key` serves, or with the reason it does
  // not (the load failed, it cannot fit, the wait timed out, the server
  // stops): on the loading thread, in SweepExpired, or here when stopped.
  // Returns the wait's deadline (for the sweeper).
  uint64_t Await(const std::string& key, Done done) EXCLUDES(mu_);

  // Runs `load` (which loads `key`) now, on the caller's thread, serialized
  // with the on-demand loads, after making room for it; measures it unless
  // `key` served already (a reload keeps its attributed bytes). For the
  // repository API and the models loaded at start. Waits for a load under way
  // at most the wait timeout (UNAVAILABLE then).
  Status LoadNow(const std::string& key, const std::function<Status()>& load)
      EXCLUDES(mu_, load_mu_);

  // ExpiringQueue: answers the waits whose deadline passed.
  uint64_t SweepExpired(uint64_t now_ns) override EXCLUDES(mu_);

  MemoryBudgetSnapshot Snapshot() const EXCLUDES(mu_);
  uint64_t budget_bytes() const { return options_.budget_bytes; }

 private:
  struct Waiter {
    uint64_t since_ns = 0;
    uint64_t deadline_ns = 0;
    Done done;
  };
  struct Account {
    uint64_t bytes = 0;
    bool measured = false;
    uint64_t cold_loads = 0;
    uint64_t evictions = 0;
  };

  void Run() EXCLUDES(mu_, load_mu_);
  // Loads `key` (first its composing models, if an ensemble), making room
  // for it; `exclude` collects what this load needs kept; `wanted` says
  // whether to go on waiting for room; `load` does the load itself.
  Status LoadWithinBudget(const std::string& key, std::set<std::string>* exclude,
                          const std::function<bool()>& wanted,
                          const std::function<Status()>& load, bool on_demand)
      REQUIRES(load_mu_) EXCLUDES(mu_);
  // Evicts until `needed` more bytes fit, waiting (on the clock, backing
  // off) while models that hold the budget are busy, as long as `wanted`.
  Status MakeRoom(const std::string& key, uint64_t needed, const std::set<std::string>& exclude,
                  const std::function<bool()>& wanted) REQUIRES(load_mu_) EXCLUDES(mu_);
  void Measure(const std::string& key, uint64_t before, bool on_demand) EXCLUDES(mu_);
  std::vector<ResidentModel> ResidentWithBytes() const EXCLUDES(mu_);
  uint64_t Estimate(const std::string& key) const EXCLUDES(mu_);
  bool HasWaiters(const std::string& key) const EXCLUDES(mu_);
  // Answers every waiter of `key` with `status`.
  void Finish(const std::string& key, const Status& status) EXCLUDES(mu_);
  void Answer(std::vector<Waiter> waiters, const Status& status, uint64_t now_ns) EXCLUDES(mu_);

  OnDemandHost* const host_;
  const Clock& clock_;
  const OnDemandOptions options_;

  Mutex load_mu_;  // held by whoever set loading_ (for the annotations' sake)
  mutable Mutex mu_ ACQUIRED_AFTER(load_mu_);
  CondVar changed_;  // a model to load, or stop
  std::map<std::string, std::vector<Waiter>> waiting_ GUARDED_BY(mu_);
  std::deque<std::string> queue_ GUARDED_BY(mu_);  // keys to load, each once
  std::map<std::string, Account> accounts_ GUARDED_BY(mu_);
  uint64_t waits_ GUARDED_BY(mu_) = 0;
  uint64_t wait_ns_ GUARDED_BY(mu_) = 0;
  uint64_t wait_failures_ GUARDED_BY(mu_) = 0;
  bool stopping_ GUARDED_BY(mu_) = false;
  // A load (or its eviction round) runs: the one thread that may load, on
  // demand or for LoadNow, holds it; waits for it are signalled on changed_.
  bool loading_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace inferd

#endif  // INFERD_CORE_LIFECYCLE_ON_DEMAND_LOADER_H_
