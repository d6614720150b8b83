#include "common/auth/access_control.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace inferd::auth {
namespace {

bool StartsWithNoCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  }
  return true;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// A Prometheus label value: backslash, quote and newline escaped.
std::string LabelValue(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\' || c == '"') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out;
}

std::string ModelRefusal(const ApiKey& key, std::string_view model) {
  std::string list;
  for (const std::string& glob : key.models) {
    if (!list.empty()) list += ", ";
    list += glob;
  }
  return "API key '" + key.name + "' may not infer with model '" + std::string(model) +
         "' (its models: " + list + ")";
}

std::string FormatRate(double rate) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", rate);
  return text;
}

}  // namespace

std::optional<std::string_view> BearerToken(std::string_view authorization) {
  authorization = Trim(authorization);
  if (!StartsWithNoCase(authorization, "bearer ")) return std::nullopt;
  const std::string_view token = Trim(authorization.substr(7));
  if (token.empty()) return std::nullopt;
  return token;
}

StatusOr<std::unique_ptr<AccessControl>> AccessControl::Open(std::string path, Now now) {
  if (!now) now = [] { return std::chrono::steady_clock::now(); };
  ASSIGN_OR_RETURN(KeyTable table, KeyTable::Read(path));
  std::unique_ptr<AccessControl> access(new AccessControl(std::move(path), std::move(now)));
  access->Install(std::move(table));
  return access;
}

Status AccessControl::Reload() {
  StatusOr<KeyTable> table = KeyTable::Read(path_);
  if (!table.ok()) {
    failed_reloads_.fetch_add(1, std::memory_order_relaxed);
    return table.status();
  }
  Install(std::move(table).value());
  reloads_.fetch_add(1, std::memory_order_relaxed);
  return Status::Ok();
}

void AccessControl::Install(KeyTable table) {
  auto next = std::make_shared<Snapshot>();
  next->table = std::move(table);
  const std::shared_ptr<const Snapshot> previous = snapshot_.load();
  MutexLock lock(&mu_);
  for (const ApiKey& key : next->table.keys()) {
    std::shared_ptr<KeyCounters>& counters = counters_[key.name];
    if (counters == nullptr) counters = std::make_shared<KeyCounters>();
    next->counters.push_back(counters);
    std::shared_ptr<TokenBucket> bucket;
    const double burst = key.burst > 0 ? key.burst : std::max(1.0, key.rate_limit_rps);
    for (size_t i = 0; previous != nullptr && i < previous->table.keys().size(); ++i) {
      const std::shared_ptr<TokenBucket>& old = previous->buckets[i];
      if (previous->table.keys()[i].name == key.name && old != nullptr &&
          old->rate() == key.rate_limit_rps && old->burst() == burst) {
        bucket = old;
      }
    }
    if (bucket == nullptr && key.rate_limit_rps > 0) {
      bucket = std::make_shared<TokenBucket>(key.rate_limit_rps, burst, now_());
    }
    next->buckets.push_back(std::move(bucket));
  }
  snapshot_.store(std::move(next));
}

size_t AccessControl::key_count() const { return snapshot_.load()->table.keys().size(); }

AccessDecision AccessControl::Refuse(Verdict verdict, std::string message,
                                     AccessDecision known) const {
  if (verdict == Verdict::kUnauthenticated) {
    unauthenticated_.fetch_add(1, std::memory_order_relaxed);
  } else if (known.counters != nullptr) {
    auto& counter =
        verdict == Verdict::kRateLimited ? known.counters->rate_limited : known.counters->forbidden;
    counter.fetch_add(1, std::memory_order_relaxed);
  }
  known.verdict = verdict;
  known.message = std::move(message);
  return known;
}

AccessDecision AccessControl::Identify(std::string_view authorization, Scope scope,
                                       std::optional<std::string_view> model) const {
  const std::optional<std::string_view> token = BearerToken(authorization);
  if (!token) {
    return Refuse(Verdict::kUnauthenticated,
                  "this server requires an API key: send 'Authorization: Bearer <key>'", {});
  }
  const std::shared_ptr<const Snapshot> snapshot = snapshot_.load();
  const ApiKey* found = snapshot->table.Find(*token);
  if (found == nullptr) {
    return Refuse(Verdict::kUnauthenticated, "the API key is not valid", {});
  }
  const size_t index = static_cast<size_t>(found - snapshot->table.keys().data());
  AccessDecision known;
  known.key = std::shared_ptr<const ApiKey>(snapshot, found);
  known.counters = snapshot->counters[index];
  known.bucket = snapshot->buckets[index];
  if (!Grants(found->scopes, scope)) {
    return Refuse(Verdict::kForbidden,
                  "API key '" + found->name + "' does not have the '" +
                      std::string(ScopeName(scope)) + "' scope",
                  std::move(known));
  }
  if (scope == Scope::kInfer && model && !found->AllowsModel(*model)) {
    return Refuse(Verdict::kForbidden, ModelRefusal(*found, *model), std::move(known));
  }
  return known;
}

AccessDecision AccessControl::Check(std::string_view authorization, Scope scope,
                                    std::optional<std::string_view> model,
                                    bool count_allowed) const {
  AccessDecision known = Identify(authorization, scope, model);
  if (!known.allowed()) return known;
  if (known.bucket != nullptr) {
    std::chrono::seconds retry_after{0};
    if (!known.bucket->TryTake(now_(), &retry_after)) {
      const std::string why = "API key '" + known.key->name + "' is over its quota of " +
                              FormatRate(known.key->rate_limit_rps) +
                              " requests a second; retry after " +
                              std::to_string(retry_after.count()) + " s";
      AccessDecision refused = Refuse(Verdict::kRateLimited, why, std::move(known));
      refused.retry_after = retry_after;
      return refused;
    }
  }
  if (count_allowed) known.counters->allowed.fetch_add(1, std::memory_order_relaxed);
  return known;
}

AccessDecision AccessControl::CheckStreamOpen(std::string_view authorization, Scope scope) const {
  return Identify(authorization, scope, std::nullopt);
}

AccessDecision AccessControl::FinishModelCheck(AccessDecision decision,
                                               std::string_view model) const {
  if (!decision.allowed() || decision.key == nullptr) return decision;
  if (!decision.key->AllowsModel(model)) {
    std::string why = ModelRefusal(*decision.key, model);
    return Refuse(Verdict::kForbidden, std::move(why), std::move(decision));
  }
  decision.counters->allowed.fetch_add(1, std::memory_order_relaxed);
  return decision;
}

uint32_t AccessControl::PriorityOf(std::string_view authorization) const {
  const std::optional<std::string_view> token = BearerToken(authorization);
  if (!token) return 0;
  const std::shared_ptr<const Snapshot> snapshot = snapshot_.load();
  const ApiKey* found = snapshot->table.Find(*token);
  return found != nullptr && found->priority ? *found->priority : 0;
}

std::string AccessControl::RenderMetrics() const {
  std::string text =
      "# HELP inferd_auth_requests_total Requests checked against the API keys of --auth-file, "
      "by key name and result\n# TYPE inferd_auth_requests_total counter\n";
  {
    MutexLock lock(&mu_);
    for (const auto& [name, counters] : counters_) {
      const std::string key =
          "inferd_auth_requests_total{key=\"" + LabelValue(name) + "\",result=\"";
      text += key + "allowed\"} " + std::to_string(counters->allowed.load()) + "\n";
      text += key + "forbidden\"} " + std::to_string(counters->forbidden.load()) + "\n";
      text += key + "rate_limited\"} " + std::to_string(counters->rate_limited.load()) + "\n";
    }
  }
  text += "inferd_auth_requests_total{result=\"unauthenticated\"} " +
          std::to_string(unauthenticated_.load()) + "\n";
  text += "# HELP inferd_auth_reloads_total Re-reads of the auth file, by result\n"
          "# TYPE inferd_auth_reloads_total counter\n"
          "inferd_auth_reloads_total{result=\"success\"} " + std::to_string(reloads_.load()) +
          "\ninferd_auth_reloads_total{result=\"failure\"} " +
          std::to_string(failed_reloads_.load()) + "\n";
  text += "# HELP inferd_auth_keys API keys in the auth file now\n# TYPE inferd_auth_keys gauge\n"
          "inferd_auth_keys " + std::to_string(key_count()) + "\n";
  return text;
}

}  // namespace inferd::auth
