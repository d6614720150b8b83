#include "common/auth/scope.h"

#include <array>

namespace inferd::auth {
namespace {

constexpr std::array<std::string_view, kScopeCount> kScopeNames = {
    "infer", "metadata", "repository", "metrics", "shared-memory", "trace", "logging", "admin"};

}  // namespace

std::string_view ScopeName(Scope scope) { return kScopeNames[static_cast<size_t>(scope)]; }

std::optional<Scope> ScopeFromName(std::string_view name) {
  for (size_t i = 0; i < kScopeNames.size(); ++i) {
    if (kScopeNames[i] == name) return static_cast<Scope>(i);
  }
  return std::nullopt;
}

std::string AllScopeNames() {
  std::string names;
  for (std::string_view name : kScopeNames) {
    if (!names.empty()) names += ", ";
    names += name;
  }
  return names;
}

std::optional<Scope> ScopeOfCategory(ApiCategory category) {
  switch (category) {
    case ApiCategory::kHealth:
      return std::nullopt;
    case ApiCategory::kMetadata:
    case ApiCategory::kModelConfig:
      return Scope::kMetadata;
    case ApiCategory::kInference:
      return Scope::kInfer;
    case ApiCategory::kSharedMemory:
      return Scope::kSharedMemory;
    case ApiCategory::kModelRepository:
      return Scope::kRepository;
    case ApiCategory::kStatistics:
    case ApiCategory::kUnrestricted:  // the metrics endpoint
      return Scope::kMetrics;
    case ApiCategory::kTrace:
      return Scope::kTrace;
    case ApiCategory::kLogging:
      return Scope::kLogging;
  }
  return Scope::kAdmin;
}

}  // namespace inferd::auth
