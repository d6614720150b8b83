// The rate limiter (--rate-limit=execution_count): one per server, shared by
// every model. An instance whose instance_group lists rate_limiter resources
// executes only when all of them are free in their pools; it takes them all
// at once before an execution and gives them back when the execution ends.
//
// Pools. A resource is per device unless an instance lists it `global`; a
// per-device resource has one pool per device, and an instance draws from the
// pool of its own device (CPU instances, KIND_CPU and KIND_MODEL, belong to
// device 0). A global resource has one pool for the whole server. A pool's
// size is the largest count any registered instance asks of it, unless
// --rate-limit-resource gives it (<name>:<count> for every device and for the
// global pool, <name>:<count>:<device> for one device). Sizes follow models as
// they are added and removed.
//
// Turns. Among waiting instances the one with the lowest pass goes first if
// its resources are free (ties: the one that waited longest); each grant adds
// the instance's priority to its pass (stride scheduling), so priority 2 gets
// half the turns of priority 1 while both wait. An instance that cannot take
// its resources keeps them reserved from instances behind it, so none starves;
// instances behind it that need none of its resources still go.
//
// Thread-safe. Acquire blocks the calling instance thread; the rest never
// block for long.
#ifndef INFERD_CORE_RATE_LIMITER_RATE_LIMITER_H_
#define INFERD_CORE_RATE_LIMITER_RATE_LIMITER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "inferd/base/mutex.h"
#include "inferd/base/status.h"

namespace inferd {

// One resource an instance asks for (instance_group rate_limiter resources).
struct ResourceAsk {
  std::string name;
  uint32_t count = 0;
  bool global = false;
};

// One --rate-limit-resource=<name>:<count>[:<device>].
struct ResourceOverride {
  std::string name;
  uint32_t count = 0;
  int32_t device = kEveryDevice;  // kEveryDevice: every device and the global pool
  static constexpr int32_t kEveryDevice = -1;
};

// What one instance needs of the limiter.
struct LimitedInstance {
  std::string name;   // the instance's, for errors
  int32_t device = 0;
  uint32_t priority = 1;  // 0 counts as 1
  std::vector<ResourceAsk> resources;
};

class RateLimiter {
 public:
  // One registered instance that lists resources.
  class Ticket;
  // The device of global pools in Pool().
  static constexpr int32_t kGlobal = -1;

  explicit RateLimiter(std::vector<ResourceOverride> overrides);
  ~RateLimiter();
  RateLimiter(const RateLimiter&) = delete;
  RateLimiter& operator=(const RateLimiter&) = delete;

  // Registers the instances of one model version, `owner`, named `label` in
  // the errors of models that conflict with it later. Returns one ticket per instance, in
  // order; null for an instance that lists no resource (it never waits).
  // Fails, registering nothing, when a resource is global here and per-device
  // in a registered model (or within this one), or when an instance asks more
  // than --rate-limit-resource leaves in its pool.
  StatusOr<std::vector<Ticket*>> AddModel(const void* owner, const std::string& label,
                                          const std::vector<LimitedInstance>& instances)
      EXCLUDES(mu_);
  // Forgets `owner`'s instances and resizes the pools; none of its tickets may
  // be waiting or holding resources (its instance threads have ended).
  void RemoveModel(const void* owner) EXCLUDES(mu_);

  // Blocks until `ticket` has taken every resource it lists.
  void Acquire(Ticket* ticket) EXCLUDES(mu_);
  // Gives back what Acquire took and lets waiting instances go.
  void Release(Ticket* ticket) EXCLUDES(mu_);

  // The non-blocking halves of Acquire, for tests in one thread: queues
  // `ticket` and returns whether it took its resources at once; Granted says
  // whether it has by now.
  bool Request(Ticket* ticket) EXCLUDES(mu_);
  bool Granted(const Ticket* ticket) const EXCLUDES(mu_);

  // Instances waiting for resources now.
  size_t Waiting() const EXCLUDES(mu_);

  struct PoolState {
    int64_t size = -1;  // -1: no such pool
    int64_t in_use = 0;
  };
  // The pool of resource `name` on `device` (kGlobal: the global pool).
  PoolState Pool(const std::string& name, int32_t device) const EXCLUDES(mu_);

 private:
  using PoolKey = std::pair<std::string, int32_t>;  // name, device or kGlobal
  struct Owner {
    std::string label;
    std::vector<std::unique_ptr<Ticket>> tickets;
  };

  // The size --rate-limit-resource gives pool `key`; -1 when none does.
  int64_t OverrideFor(const PoolKey& key) const;
  // Recomputes pool sizes from the registered tickets and the overrides.
  void Resize() REQUIRES(mu_);
  // Grants waiting tickets whose turn it is and whose resources are free.
  void Dispatch() REQUIRES(mu_);
  bool Enqueue(Ticket* ticket) REQUIRES(mu_);

  const std::vector<ResourceOverride> overrides_;
  mutable Mutex mu_;
  std::map<const void*, Owner> owners_ GUARDED_BY(mu_);
  // Resource name -> (global, label of a model that uses it).
  std::map<std::string, std::pair<bool, std::string>> kinds_ GUARDED_BY(mu_);
  std::map<PoolKey, int64_t> sizes_ GUARDED_BY(mu_);
  std::map<PoolKey, int64_t> in_use_ GUARDED_BY(mu_);
  std::vector<Ticket*> waiting_ GUARDED_BY(mu_);
  uint64_t virtual_time_ GUARDED_BY(mu_) = 0;
  uint64_t next_seq_ GUARDED_BY(mu_) = 0;
};

}  // namespace inferd

#endif  // INFERD_CORE_RATE_LIMITER_RATE_LIMITER_H_
