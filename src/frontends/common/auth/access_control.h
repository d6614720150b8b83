// API keys with scopes for every frontend (--auth-file, docs/security.md):
// the current key table, replaced whole when the file changes, and the check
// each request makes. The request path reads the table through an atomic
// shared_ptr (no lock: a reload swaps the pointer, requests in flight keep the
// snapshot they took). Per-key counters and quotas (token buckets) outlive
// reloads, by key name. Thread-safe.
#ifndef INFERD_FRONTENDS_COMMON_AUTH_ACCESS_CONTROL_H_
#define INFERD_FRONTENDS_COMMON_AUTH_ACCESS_CONTROL_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/auth/key_table.h"
#include "common/auth/scope.h"
#include "common/auth/token_bucket.h"
#include "inferd/base/mutex.h"
#include "inferd/base/status.h"

namespace inferd::auth {

enum class Verdict : uint8_t {
  kAllowed,
  kUnauthenticated,  // no key, or one the file does not hold: HTTP 401, gRPC UNAUTHENTICATED
  kForbidden,        // a known key without the scope or model: 403, PERMISSION_DENIED
  kRateLimited,      // past the key's quota: 429 with Retry-After, RESOURCE_EXHAUSTED
};

// What a key's name keeps across reloads: its requests, by result.
struct KeyCounters {
  std::atomic<uint64_t> allowed{0};
  std::atomic<uint64_t> forbidden{0};
  std::atomic<uint64_t> rate_limited{0};
};

// One request's check. The key, when known, stays valid with the decision
// (it shares the snapshot it came from).
struct AccessDecision {
  Verdict verdict = Verdict::kAllowed;
  std::string message;                   // why it is refused; never holds the key
  std::chrono::seconds retry_after{0};   // kRateLimited: when a token will be there
  std::shared_ptr<const ApiKey> key;     // the key presented, when the file holds it
  std::shared_ptr<KeyCounters> counters;  // the key's, when known
  std::shared_ptr<TokenBucket> bucket;    // the key's quota, when it has one
  bool allowed() const { return verdict == Verdict::kAllowed; }
};

// The key in an `Authorization: Bearer <key>` value; nullopt when the value
// is not of that form (the scheme's case does not matter).
std::optional<std::string_view> BearerToken(std::string_view authorization);

class AccessControl {
 public:
  using Now = std::function<std::chrono::steady_clock::time_point()>;

  // The keys of the auth file `path`; INVALID_ARG naming file:line when it
  // cannot be read or parsed. `now` is the quotas' clock (tests pass a fake).
  static StatusOr<std::unique_ptr<AccessControl>> Open(std::string path, Now now = {});

  // Re-reads the file and swaps the new table in; on error keeps the current
  // table and returns why (the caller logs it).
  Status Reload();

  // Whether the request whose Authorization value is `authorization` may do
  // what `scope` names (with `model`, for infer, when given); then takes a
  // token of the key's quota. `count_allowed` false: an allowed verdict is
  // not counted yet, since FinishModelCheck will (a model named later, in an
  // OpenAI request's body).
  AccessDecision Check(std::string_view authorization, Scope scope,
                       std::optional<std::string_view> model = std::nullopt,
                       bool count_allowed = true) const;
  // The opening of a stream whose requests are each checked (gRPC's
  // ModelStreamInfer): the key and `scope` only. A refusal is counted; an
  // allowed opening is neither counted nor charged to the key's quota, so a
  // stream counts what it carries, request by request (docs/security.md).
  AccessDecision CheckStreamOpen(std::string_view authorization, Scope scope) const;
  // After Check(..., count_allowed=false) allowed `decision`: whether its key
  // may infer with `model`; counts the result.
  AccessDecision FinishModelCheck(AccessDecision decision, std::string_view model) const;

  // The scheduler priority of the key in `authorization` (its "priority"
  // field); 0 when it has none or the key is unknown. Counts nothing.
  uint32_t PriorityOf(std::string_view authorization) const;

  // The counters, in Prometheus text: requests by key and result, reloads.
  std::string RenderMetrics() const;

  const std::string& path() const { return path_; }
  size_t key_count() const;

 private:
  // One version of the file: its keys and, in the same order, their
  // counters and quotas (null: none; a bucket passes to the next snapshot while the
  // key's quota stays the same).
  struct Snapshot {
    KeyTable table;
    std::vector<std::shared_ptr<KeyCounters>> counters;
    std::vector<std::shared_ptr<TokenBucket>> buckets;
  };

  AccessControl(std::string path, Now now) : path_(std::move(path)), now_(std::move(now)) {}
  // Pairs each key of `table` with its state (made for a new name, its
  // bucket remade when its quota changed) and swaps the snapshot in.
  void Install(KeyTable table) EXCLUDES(mu_);
  // The key in `authorization`, if it may do what `scope` names (with
  // `model`): refusals counted, an allowed verdict not counted, no quota taken.
  AccessDecision Identify(std::string_view authorization, Scope scope,
                          std::optional<std::string_view> model) const;
  // A refusal, counted (for the key, when known).
  AccessDecision Refuse(Verdict verdict, std::string message, AccessDecision known) const;

  // Constant after construction.
  const std::string path_;
  const Now now_;

  std::atomic<std::shared_ptr<const Snapshot>> snapshot_;
  mutable std::atomic<uint64_t> unauthenticated_{0};
  std::atomic<uint64_t> reloads_{0};
  std::atomic<uint64_t> failed_reloads_{0};

  mutable Mutex mu_;  // reloads and rendering; never the request path
  std::map<std::string, std::shared_ptr<KeyCounters>> counters_ GUARDED_BY(mu_);
};

}  // namespace inferd::auth

#endif  // INFERD_FRONTENDS_COMMON_AUTH_ACCESS_CONTROL_H_
