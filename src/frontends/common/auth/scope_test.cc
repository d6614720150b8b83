// Scopes: names, and the category of every endpoint mapped to one.
#include "common/auth/scope.h"

#include <gtest/gtest.h>

namespace inferd::auth {
namespace {

TEST(ScopeTest, NamesRoundTrip) {
  for (size_t i = 0; i < kScopeCount; ++i) {
    const Scope scope = static_cast<Scope>(i);
    EXPECT_EQ(ScopeFromName(ScopeName(scope)), scope);
  }
  EXPECT_EQ(ScopeFromName("shared-memory"), Scope::kSharedMemory);
  EXPECT_FALSE(ScopeFromName("inference").has_value());
  EXPECT_FALSE(ScopeFromName("Admin").has_value());
  EXPECT_EQ(AllScopeNames(),
            "infer, metadata, repository, metrics, shared-memory, trace, logging, admin");
}

TEST(ScopeTest, EveryCategoryHasItsScopeAndHealthIsOpen) {
  EXPECT_FALSE(ScopeOfCategory(ApiCategory::kHealth).has_value());
  EXPECT_EQ(ScopeOfCategory(ApiCategory::kMetadata), Scope::kMetadata);
  EXPECT_EQ(ScopeOfCategory(ApiCategory::kModelConfig), Scope::kMetadata);
  EXPECT_EQ(ScopeOfCategory(ApiCategory::kInference), Scope::kInfer);
  EXPECT_EQ(ScopeOfCategory(ApiCategory::kSharedMemory), Scope::kSharedMemory);
  EXPECT_EQ(ScopeOfCategory(ApiCategory::kModelRepository), Scope::kRepository);
  EXPECT_EQ(ScopeOfCategory(ApiCategory::kStatistics), Scope::kMetrics);
  EXPECT_EQ(ScopeOfCategory(ApiCategory::kUnrestricted), Scope::kMetrics);
  EXPECT_EQ(ScopeOfCategory(ApiCategory::kTrace), Scope::kTrace);
  EXPECT_EQ(ScopeOfCategory(ApiCategory::kLogging), Scope::kLogging);
}

TEST(ScopeTest, AdminGrantsEveryScopeAndOthersOnlyTheirOwn) {
  const ScopeSet admin = ScopeBit(Scope::kAdmin);
  const ScopeSet infer = ScopeBit(Scope::kInfer) | ScopeBit(Scope::kMetadata);
  for (size_t i = 0; i < kScopeCount; ++i) {
    const Scope scope = static_cast<Scope>(i);
    EXPECT_TRUE(Grants(admin, scope));
    EXPECT_EQ(Grants(infer, scope), scope == Scope::kInfer || scope == Scope::kMetadata);
  }
}

}  // namespace
}  // namespace inferd::auth
