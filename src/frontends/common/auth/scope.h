// The scopes of an API key (--auth-file, docs/security.md): what a key may
// do, one per group of endpoints. Each HTTP endpoint and gRPC RPC already has
// Triton's restriction category (api_restrictions.h); a category maps onto
// one scope here, so the two tables cannot drift apart. Pure; thread-safe.
#ifndef INFERD_FRONTENDS_COMMON_AUTH_SCOPE_H_
#define INFERD_FRONTENDS_COMMON_AUTH_SCOPE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/api_restrictions.h"

namespace inferd::auth {

enum class Scope : uint8_t {
  kInfer,         // infer, generate, the OpenAI completions (limited by a key's models)
  kMetadata,      // server and model metadata and configuration, the OpenAI model list
  kRepository,    // the repository index, model load and unload
  kMetrics,       // /metrics and model statistics
  kSharedMemory,  // shared memory status, register, unregister
  kTrace,         // trace settings
  kLogging,       // log settings
  kAdmin,         // everything
};
inline constexpr size_t kScopeCount = static_cast<size_t>(Scope::kAdmin) + 1;

// A set of scopes, one bit each.
using ScopeSet = uint16_t;
constexpr ScopeSet ScopeBit(Scope scope) { return static_cast<ScopeSet>(1u << static_cast<unsigned>(scope)); }

// The auth file's spelling ("shared-memory").
std::string_view ScopeName(Scope scope);
// The scope the auth file names; nullopt when none has that name.
std::optional<Scope> ScopeFromName(std::string_view name);
// Every scope's name, comma-separated, for errors.
std::string AllScopeNames();

// The scope a request of `category` needs; nullopt for health (liveness and
// readiness stay open, so that probes need no key).
std::optional<Scope> ScopeOfCategory(ApiCategory category);

// Whether `scopes` grant `needed` (admin grants all).
constexpr bool Grants(ScopeSet scopes, Scope needed) {
  return (scopes & (ScopeBit(needed) | ScopeBit(Scope::kAdmin))) != 0;
}

}  // namespace inferd::auth

#endif  // INFERD_FRONTENDS_COMMON_AUTH_SCOPE_H_
