#include "core/lifecycle/on_demand_loader.h"

#include <algorithm>
#include <iterator>

#include "core/common/logging.h"

namespace inferd {
namespace {

constexpr uint64_t kFirstBackoffNs = 1'000'000;   // 1 ms
constexpr uint64_t kLastBackoffNs = 50'000'000;   // 50 ms

std::string Quoted(const std::string& key) { return "'" + key + "'"; }

}  // namespace

OnDemandLoader::OnDemandLoader(OnDemandHost* host, const Clock& clock, OnDemandOptions options)
    : host_(host), clock_(clock), options_(options), thread_([this] { Run(); }) {}

OnDemandLoader::~OnDemandLoader() { Stop(); }

void OnDemandLoader::Stop() {
  {
    MutexLock lock(&mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
    changed_.SignalAll();
  }
  if (thread_.joinable()) thread_.join();
  std::map<std::string, std::vector<Waiter>> waiting;
  {
    MutexLock lock(&mu_);
    waiting.swap(waiting_);
    queue_.clear();
  }
  const uint64_t now = clock_.NowNs();
  for (auto& [key, waiters] : waiting) {
    Answer(std::move(waiters),
           Status::Unavailable("model " + Quoted(key) + " was not loaded: the server is stopping"),
           now);
  }
}

uint64_t OnDemandLoader::Await(const std::string& key, Done done) {
  const uint64_t now = clock_.NowNs();
  const uint64_t deadline = now + options_.wait_timeout_ns;
  {
    MutexLock lock(&mu_);
    if (!stopping_) {
      auto [entry, inserted] = waiting_.try_emplace(key);
      entry->second.push_back(Waiter{now, deadline, std::move(done)});
      if (inserted) {
        queue_.push_back(key);
        changed_.SignalAll();
      }
      return deadline;
    }
  }
  done(Status::Unavailable("model " + Quoted(key) + " was not loaded: the server is stopping"));
  return 0;
}

Status OnDemandLoader::LoadNow(const std::string& key, const std::function<Status()>& load) {
  const uint64_t give_up = clock_.NowNs() + options_.wait_timeout_ns;
  {
    // Bounded: a model being loaded may ask for another (pb_utils.load_model
    // in its initialize), which would otherwise wait for its own caller.
    MutexLock lock(&mu_);
    while (loading_ && !stopping_ && clock_.NowNs() < give_up) {
      clock_.WaitUntil(&changed_, &mu_, give_up);
    }
    if (loading_ || stopping_) {
      return Status::Unavailable("model " + Quoted(key) + " was not loaded: " +
                                 (stopping_ ? std::string("the server is stopping")
                                            : "another load held the loader for longer than "
                                              "--model-load-wait-timeout-ms"));
    }
    loading_ = true;
  }
  Status status;
  {
    MutexLock serialized(&load_mu_);
    std::set<std::string> exclude;
    status = LoadWithinBudget(
        key, &exclude, [&] { return clock_.NowNs() < give_up; }, load, /*on_demand=*/false);
  }
  MutexLock lock(&mu_);
  loading_ = false;
  changed_.SignalAll();
  return status;
}

void OnDemandLoader::Run() {
  MutexLock lock(&mu_);
  for (;;) {
    while (!stopping_ && (queue_.empty() || loading_)) changed_.Wait(&mu_);
    if (stopping_) return;
    const std::string key = std::move(queue_.front());
    queue_.pop_front();
    loading_ = true;
    lock.Unlock();
    Status status;
    {
      MutexLock serialized(&load_mu_);
      std::set<std::string> exclude;
      status = LoadWithinBudget(
          key, &exclude, [&] { return HasWaiters(key); },
          [&] { return host_->LoadOnDemand(key); }, /*on_demand=*/true);
    }
    Finish(key, status);  // the waiters are submitted before the next load may evict
    lock.Lock();
    loading_ = false;
    changed_.SignalAll();
  }
}

Status OnDemandLoader::LoadWithinBudget(const std::string& key, std::set<std::string>* exclude,
                                        const std::function<bool()>& wanted,
                                        const std::function<Status()>& load, bool on_demand) {
  const bool served = host_->Serves(key);
  if (on_demand && served) return Status::Ok();  // loaded meanwhile (repository API)
  exclude->insert(key);
  for (const std::string& step : host_->ComposingOf(key)) {
    if (exclude->contains(step) || host_->Serves(step)) continue;
    Status status = LoadWithinBudget(
        step, exclude, wanted, [&] { return host_->LoadOnDemand(step); }, on_demand);
    if (!status.ok()) {
      return Status::Unavailable("model " + Quoted(key) + " was not loaded: its composing " +
                                 "model " + Quoted(step) + " did not load: " + status.message());
    }
  }
  RETURN_IF_ERROR(MakeRoom(key, served ? 0 : Estimate(key), *exclude, wanted));
  const std::shared_ptr<const void> backends = host_->HoldBackends(key);
  const uint64_t before = host_->MeasureBytes();
  Status status = load();
  if (status.ok() && !served) Measure(key, before, on_demand);
  if (!status.ok() && on_demand && status.code() != Status::Code::kUnavailable) {
    // The request is fine; its model is what is unavailable (503).
    status = Status::Unavailable(status.message());
  }
  // The measurement may exceed the estimate (a first load, a Python stub):
  // back within the budget at once where idle models allow.
  Status rebalanced = MakeRoom(key, 0, *exclude, [] { return false; });
  if (!rebalanced.ok()) LOG_VERBOSE(1, "memory budget exceeded for now: {}", rebalanced.message());
  return status;
}

Status OnDemandLoader::MakeRoom(const std::string& key, uint64_t needed,
                                const std::set<std::string>& exclude,
                                const std::function<bool()>& wanted) {
  for (uint64_t backoff = kFirstBackoffNs;; backoff = std::min(2 * backoff, kLastBackoffNs)) {
    EvictionPlan plan = PlanEvictions(ResidentWithBytes(), needed, options_.budget_bytes, exclude);
    if (plan.fits) {
      for (const std::string& victim : plan.victims) {
        host_->Evict(victim, "evicted (least recently used) to load model " + Quoted(key) +
                                 " within the memory budget of " +
                                 std::to_string(options_.budget_bytes) + " bytes");
        MutexLock lock(&mu_);
        ++accounts_[victim].evictions;
      }
      return Status::Ok();
    }
    const std::string why = "model " + Quoted(key) + " cannot be loaded within the memory " +
                            "budget (--model-memory-budget): it " + plan.why_not;
    if (plan.hopeless) return Status::Unavailable(why);
    if (!wanted()) return Status::Unavailable(why + "; no request waits for it any more");
    MutexLock lock(&mu_);
    if (stopping_) return Status::Unavailable(why + "; the server is stopping");
    clock_.WaitUntil(&changed_, &mu_, clock_.NowNs() + backoff);
  }
}

void OnDemandLoader::Measure(const std::string& key, uint64_t before, bool on_demand) {
  const uint64_t after = host_->MeasureBytes();
  const uint64_t grown = after > before ? after - before : 0;
  // At least its files: an allocator reusing what an eviction freed, or one
  // growing in steps, makes a single load's growth lumpy.
  const uint64_t floor = std::max(host_->EstimateBytes(key), options_.min_model_bytes);
  MutexLock lock(&mu_);
  Account& account = accounts_[key];
  account.bytes = std::max(grown, floor);
  account.measured = true;
  if (on_demand) ++account.cold_loads;
}

std::vector<ResidentModel> OnDemandLoader::ResidentWithBytes() const {
  std::vector<ResidentModel> resident = host_->Resident();
  MutexLock lock(&mu_);
  for (ResidentModel& model : resident) {
    auto account = accounts_.find(model.key);
    if (account != accounts_.end()) model.bytes = account->second.bytes;
  }
  return resident;
}

uint64_t OnDemandLoader::Estimate(const std::string& key) const {
  {
    MutexLock lock(&mu_);
    auto account = accounts_.find(key);
    if (account != accounts_.end() && account->second.measured) return account->second.bytes;
  }
  return std::max(host_->EstimateBytes(key), options_.min_model_bytes);
}

bool OnDemandLoader::HasWaiters(const std::string& key) const {
  MutexLock lock(&mu_);
  auto found = waiting_.find(key);
  return found != waiting_.end() && !found->second.empty();
}

void OnDemandLoader::Finish(const std::string& key, const Status& status) {
  std::vector<Waiter> waiters;
  {
    MutexLock lock(&mu_);
    auto found = waiting_.find(key);
    if (found == waiting_.end()) return;
    waiters = std::move(found->second);
    waiting_.erase(found);
  }
  if (!status.ok()) LOG_WARNING("on-demand load: {}", status.message());
  Answer(std::move(waiters), status, clock_.NowNs());
}

void OnDemandLoader::Answer(std::vector<Waiter> waiters, const Status& status, uint64_t now_ns) {
  {
    MutexLock lock(&mu_);
    for (const Waiter& waiter : waiters) {
      ++waits_;
      wait_ns_ += now_ns > waiter.since_ns ? now_ns - waiter.since_ns : 0;
      if (!status.ok()) ++wait_failures_;
    }
  }
  for (Waiter& waiter : waiters) waiter.done(status);
}

uint64_t OnDemandLoader::SweepExpired(uint64_t now_ns) {
  std::vector<std::pair<std::string, std::vector<Waiter>>> expired;
  uint64_t next = 0;
  {
    MutexLock lock(&mu_);
    for (auto& [key, waiters] : waiting_) {
      auto late = std::stable_partition(waiters.begin(), waiters.end(),
                                        [&](const Waiter& w) { return w.deadline_ns > now_ns; });
      if (late != waiters.end()) {
        expired.emplace_back(key, std::vector<Waiter>(std::make_move_iterator(late),
                                                      std::make_move_iterator(waiters.end())));
        waiters.erase(late, waiters.end());
      }
      for (const Waiter& waiter : waiters) {
        if (next == 0 || waiter.deadline_ns < next) next = waiter.deadline_ns;
      }
    }
    // The key stays queued (or loading): a load under way finishes for the
    // requests that come next.
  }
  const double waited_ms = static_cast<double>(options_.wait_timeout_ns) / 1e6;
  for (auto& [key, waiters] : expired) {
    Answer(std::move(waiters),
           Status::Unavailable("model " + Quoted(key) + " did not load within " +
                               std::to_string(static_cast<uint64_t>(waited_ms)) +
                               " ms of the request's arrival (--model-load-wait-timeout-ms)"),
           now_ns);
  }
  return next;
}

MemoryBudgetSnapshot OnDemandLoader::Snapshot() const {
  const std::vector<ResidentModel> resident = ResidentWithBytes();
  MemoryBudgetSnapshot snapshot;
  snapshot.budget_bytes = options_.budget_bytes;
  std::set<std::string> loaded;
  for (const ResidentModel& model : resident) {
    snapshot.used_bytes += model.bytes;
    loaded.insert(model.key);
  }
  MutexLock lock(&mu_);
  snapshot.waits = waits_;
  snapshot.wait_ns = wait_ns_;
  snapshot.wait_failures = wait_failures_;
  for (const auto& [key, account] : accounts_) {
    snapshot.models.push_back(
        {key, loaded.contains(key), account.bytes, account.cold_loads, account.evictions});
  }
  return snapshot;
}

}  // namespace inferd
