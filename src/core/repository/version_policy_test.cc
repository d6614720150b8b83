#include "core/repository/version_policy.h"

#include <gtest/gtest.h>

namespace inferd {
namespace {


TEST(VersionPolicyTest, UnsetPolicyServesTheLatestVersion) {
  inference::ModelVersionPolicy policy;
  EXPECT_EQ(SelectVersions(policy, {1, 2, 7}).load, std::vector<int64_t>({7}));
}

TEST(VersionPolicyTest, LatestNServesTheNHighest) {
  inference::ModelVersionPolicy policy;
  policy.mutable_latest()->set_num_versions(2);
  EXPECT_EQ(SelectVersions(policy, {1, 2, 7}).load, std::vector<int64_t>({2, 7}));
  EXPECT_EQ(SelectVersions(policy, {3}).load, std::vector<int64_t>({3}));
}

TEST(VersionPolicyTest, AllServesEveryVersion) {
  inference::ModelVersionPolicy policy;
  policy.mutable_all();
  EXPECT_EQ(SelectVersions(policy, {1, 2, 7}).load, std::vector<int64_t>({1, 2, 7}));
}

TEST(VersionPolicyTest, SpecificReportsVersionsNotOnDisk) {
  inference::ModelVersionPolicy policy;
  policy.mutable_specific()->add_versions(7);
  policy.mutable_specific()->add_versions(3);
  policy.mutable_specific()->add_versions(1);
  VersionSelection selection = SelectVersions(policy, {1, 2, 7});
  EXPECT_EQ(selection.load, std::vector<int64_t>({1, 7}));
  EXPECT_EQ(selection.missing, std::vector<int64_t>({3}));
}

TEST(VersionPolicyTest, NoVersionsOnDiskServesNothing) {
  inference::ModelVersionPolicy policy;
  EXPECT_TRUE(SelectVersions(policy, {}).load.empty());
}

}  // namespace
}  // namespace inferd
