#include "core/rate_limiter/rate_limiter.h"

#include <algorithm>
#include <set>

namespace inferd {

class RateLimiter::Ticket {
 public:
  enum class State { kIdle, kWaiting, kGranted };
  std::vector<std::pair<PoolKey, int64_t>> needs;  // pool, count
  uint64_t priority = 1;
  // Guarded by the limiter's mu_.
  State state = State::kIdle;
  uint64_t pass = 0;
  uint64_t seq = 0;
  CondVar granted;
};

RateLimiter::RateLimiter(std::vector<ResourceOverride> overrides)
    : overrides_(std::move(overrides)) {}

RateLimiter::~RateLimiter() = default;

int64_t RateLimiter::OverrideFor(const PoolKey& key) const {
  int64_t every = -1;
  for (const ResourceOverride& o : overrides_) {
    if (o.name != key.first) continue;
    if (o.device == ResourceOverride::kEveryDevice) {
      every = o.count;  // the last one given wins
    } else if (key.second != kGlobal && o.device == key.second) {
      return o.count;  // a device's own beats the one for every device
    }
  }
  return every;
}

StatusOr<std::vector<RateLimiter::Ticket*>> RateLimiter::AddModel(
    const void* owner, const std::string& label, const std::vector<LimitedInstance>& instances) {
  MutexLock lock(&mu_);
  // Conflicts, within the model first and then with the registered ones.
  std::map<std::string, bool> kinds;
  for (const LimitedInstance& instance : instances) {
    for (const ResourceAsk& ask : instance.resources) {
      auto [it, added] = kinds.emplace(ask.name, ask.global);
      if (!added && it->second != ask.global) {
        return Status::InvalidArg("rate_limiter resource '" + ask.name +
                                  "' is listed both global and per-device");
      }
      auto known = kinds_.find(ask.name);
      if (known != kinds_.end() && known->second.first != ask.global) {
        return Status::InvalidArg(
            "rate_limiter resource '" + ask.name + "' is " +
            (ask.global ? "global" : "per-device") + " here but " +
            (known->second.first ? "global" : "per-device") + " in " + known->second.second +
            "; a resource name is either global or per-device for every model");
      }
      const PoolKey key(ask.name, ask.global ? kGlobal : instance.device);
      const int64_t size = OverrideFor(key);
      if (size >= 0 && ask.count > size) {
        return Status::InvalidArg(
            "instance '" + instance.name + "' asks for " + std::to_string(ask.count) +
            " of rate_limiter resource '" + ask.name + "' but --rate-limit-resource gives " +
            (ask.global ? std::string("the global pool")
                        : "device " + std::to_string(instance.device)) +
            " only " + std::to_string(size) + "; it could never execute");
      }
    }
  }
  Owner& entry = owners_[owner];
  entry.label = label;
  std::vector<Ticket*> tickets;
  for (const LimitedInstance& instance : instances) {
    if (instance.resources.empty()) {
      tickets.push_back(nullptr);
      continue;
    }
    auto ticket = std::make_unique<Ticket>();
    ticket->priority = std::max<uint32_t>(instance.priority, 1);
    ticket->pass = virtual_time_;
    for (const ResourceAsk& ask : instance.resources) {
      const PoolKey key(ask.name, ask.global ? kGlobal : instance.device);
      ticket->needs.emplace_back(key, ask.count);
      kinds_.emplace(ask.name, std::make_pair(ask.global, label));
    }
    tickets.push_back(ticket.get());
    entry.tickets.push_back(std::move(ticket));
  }
  Resize();
  return tickets;
}

void RateLimiter::RemoveModel(const void* owner) {
  MutexLock lock(&mu_);
  auto it = owners_.find(owner);
  if (it == owners_.end()) return;
  for (const auto& ticket : it->second.tickets) std::erase(waiting_, ticket.get());
  owners_.erase(it);
  // Names no model uses any more are free to change kind.
  std::map<std::string, std::pair<bool, std::string>> kinds;
  for (const auto& [key, entry] : owners_) {
    for (const auto& ticket : entry.tickets) {
      for (const auto& [pool, count] : ticket->needs) {
        kinds.emplace(pool.first, std::make_pair(pool.second == kGlobal, entry.label));
      }
    }
  }
  kinds_ = std::move(kinds);
  Resize();
  Dispatch();
}

void RateLimiter::Resize() {
  sizes_.clear();
  for (const auto& [key, entry] : owners_) {
    for (const auto& ticket : entry.tickets) {
      for (const auto& [pool, count] : ticket->needs) {
        int64_t& size = sizes_[pool];
        size = std::max(size, count);
      }
    }
  }
  for (auto& [pool, size] : sizes_) {
    if (const int64_t given = OverrideFor(pool); given >= 0) size = given;
  }
}

void RateLimiter::Dispatch() {
  if (waiting_.empty()) return;
  std::sort(waiting_.begin(), waiting_.end(), [](const Ticket* a, const Ticket* b) {
    return a->pass != b->pass ? a->pass < b->pass : a->seq < b->seq;
  });
  std::set<PoolKey> reserved;  // wanted by a ticket ahead that could not go
  bool head = true;
  std::vector<Ticket*> still;
  for (Ticket* ticket : waiting_) {
    bool can = true;
    for (const auto& [pool, count] : ticket->needs) {
      const auto size = sizes_.find(pool);
      const int64_t free = (size == sizes_.end() ? 0 : size->second) - in_use_[pool];
      if (reserved.contains(pool) || free < count) can = false;
    }
    if (!can) {
      for (const auto& [pool, count] : ticket->needs) reserved.insert(pool);
      head = false;
      still.push_back(ticket);
      continue;
    }
    for (const auto& [pool, count] : ticket->needs) in_use_[pool] += count;
    // The lowest pass among waiters sets the clock that returning waiters
    // start from, so an instance that sat idle banks no turns.
    if (head) virtual_time_ = std::max(virtual_time_, ticket->pass);
    ticket->pass += ticket->priority;
    ticket->state = Ticket::State::kGranted;
    ticket->granted.SignalAll();
  }
  waiting_ = std::move(still);
}

bool RateLimiter::Enqueue(Ticket* ticket) {
  if (ticket->state != Ticket::State::kIdle) return ticket->state == Ticket::State::kGranted;
  ticket->pass = std::max(ticket->pass, virtual_time_);
  ticket->seq = next_seq_++;
  ticket->state = Ticket::State::kWaiting;
  waiting_.push_back(ticket);
  Dispatch();
  return ticket->state == Ticket::State::kGranted;
}

void RateLimiter::Acquire(Ticket* ticket) {
  MutexLock lock(&mu_);
  if (Enqueue(ticket)) return;
  while (ticket->state != Ticket::State::kGranted) ticket->granted.Wait(&mu_);
}

bool RateLimiter::Request(Ticket* ticket) {
  MutexLock lock(&mu_);
  return Enqueue(ticket);
}

bool RateLimiter::Granted(const Ticket* ticket) const {
  MutexLock lock(&mu_);
  return ticket->state == Ticket::State::kGranted;
}

void RateLimiter::Release(Ticket* ticket) {
  MutexLock lock(&mu_);
  if (ticket->state != Ticket::State::kGranted) return;
  for (const auto& [pool, count] : ticket->needs) in_use_[pool] -= count;
  ticket->state = Ticket::State::kIdle;
  Dispatch();
}

size_t RateLimiter::Waiting() const {
  MutexLock lock(&mu_);
  return waiting_.size();
}

RateLimiter::PoolState RateLimiter::Pool(const std::string& name, int32_t device) const {
  MutexLock lock(&mu_);
  PoolState state;
  const PoolKey key(name, device);
  if (auto it = sizes_.find(key); it != sizes_.end()) state.size = it->second;
  if (auto it = in_use_.find(key); it != in_use_.end()) state.in_use = it->second;
  return state;
}

}  // namespace inferd
