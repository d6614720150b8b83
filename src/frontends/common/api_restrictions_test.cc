// ApiRestrictions: parsing Triton's restricted-api flag values.
#include "common/api_restrictions.h"

#include <gtest/gtest.h>

namespace inferd {
namespace {

constexpr std::string_view kFlag = "--http-restricted-api";

std::string AddError(ApiRestrictions& restrictions, std::string_view value) {
  const Status status = restrictions.AddGroup(kFlag, value);
  EXPECT_FALSE(status.ok()) << value;
  return status.message();
}

TEST(ApiRestrictionsTest, StartsEmptyWithEveryCategoryOpen) {
  const ApiRestrictions restrictions;
  EXPECT_TRUE(restrictions.empty());
  for (size_t i = 0; i <= kApiCategoryCount; ++i) {
    EXPECT_EQ(restrictions.Find(static_cast<ApiCategory>(i)), nullptr);
  }
}

TEST(ApiRestrictionsTest, RestrictsEachCategoryOfAGroupBehindItsHeader) {
  ApiRestrictions restrictions;
  ASSERT_TRUE(restrictions.AddGroup(kFlag, "model-repository,shared-memory:admin-key=s3cret").ok());
  EXPECT_FALSE(restrictions.empty());
  for (ApiCategory category : {ApiCategory::kModelRepository, ApiCategory::kSharedMemory}) {
    const ApiRestriction* restriction = restrictions.Find(category);
    ASSERT_NE(restriction, nullptr);
    EXPECT_EQ(restriction->header, "admin-key");
    EXPECT_EQ(restriction->value, "s3cret");
  }
  EXPECT_EQ(restrictions.Find(ApiCategory::kInference), nullptr);
  EXPECT_EQ(restrictions.Find(ApiCategory::kUnrestricted), nullptr);
}

TEST(ApiRestrictionsTest, GroupsHaveTheirOwnKeys) {
  ApiRestrictions restrictions;
  ASSERT_TRUE(restrictions.AddGroup(kFlag, "health:probe=p").ok());
  ASSERT_TRUE(restrictions.AddGroup(kFlag, "logging,trace:ops=o").ok());
  EXPECT_EQ(restrictions.Find(ApiCategory::kHealth)->header, "probe");
  EXPECT_EQ(restrictions.Find(ApiCategory::kTrace)->header, "ops");
  EXPECT_EQ(restrictions.Find(ApiCategory::kLogging)->value, "o");
}

TEST(ApiRestrictionsTest, ValueKeepsColonsAndEqualsSigns) {
  ApiRestrictions restrictions;
  ASSERT_TRUE(restrictions.AddGroup(kFlag, "statistics:k=a:b=c").ok());
  EXPECT_EQ(restrictions.Find(ApiCategory::kStatistics)->header, "k");
  EXPECT_EQ(restrictions.Find(ApiCategory::kStatistics)->value, "a:b=c");
}

TEST(ApiRestrictionsTest, GrpcHeadersGetTritonsPrefixInLowercase) {
  ApiRestrictions restrictions;
  ASSERT_TRUE(restrictions
                  .AddGroup("--grpc-restricted-protocol", "inference:Admin-Key=V",
                            ApiRestrictions::kGrpcHeaderPrefix)
                  .ok());
  EXPECT_EQ(restrictions.Find(ApiCategory::kInference)->header, "triton-grpc-protocol-admin-key");
  EXPECT_EQ(restrictions.Find(ApiCategory::kInference)->value, "V");  // values stay as given
}

TEST(ApiRestrictionsTest, KnowsTritonsNineCategories) {
  for (std::string_view name : {"health", "metadata", "inference", "shared-memory", "model-config",
                                "model-repository", "statistics", "trace", "logging"}) {
    const std::optional<ApiCategory> category = ApiCategoryFromName(name);
    ASSERT_TRUE(category.has_value()) << name;
    EXPECT_EQ(ApiCategoryName(*category), name);
  }
  EXPECT_FALSE(ApiCategoryFromName("metrics").has_value());
  EXPECT_FALSE(ApiCategoryFromName("Health").has_value());
}

TEST(ApiRestrictionsTest, RefusesMalformedValuesNamingTheFlagAndTheForm) {
  ApiRestrictions restrictions;
  for (std::string_view value :
       {"health", "health:key", "health=key:value", ":k=v", "health:=v", "health:k="}) {
    const std::string error = AddError(restrictions, value);
    EXPECT_NE(error.find("--http-restricted-api"), std::string::npos) << error;
    EXPECT_NE(error.find("<category>[,<category>...]:<key>=<value>"), std::string::npos) << error;
  }
  EXPECT_TRUE(restrictions.empty());
}

TEST(ApiRestrictionsTest, RefusesUnknownCategoriesByName) {
  ApiRestrictions restrictions;
  std::string error = AddError(restrictions, "health,metrics:k=v");
  EXPECT_NE(error.find("unknown category 'metrics'"), std::string::npos) << error;
  EXPECT_NE(error.find("model-repository"), std::string::npos) << error;  // lists the known ones
  error = AddError(restrictions, "health,,trace:k=v");
  EXPECT_NE(error.find("unknown category ''"), std::string::npos) << error;
  EXPECT_TRUE(restrictions.empty());  // nothing of a refused group is kept
}

TEST(ApiRestrictionsTest, RefusesACategoryInTwoGroups) {
  ApiRestrictions restrictions;
  ASSERT_TRUE(restrictions.AddGroup(kFlag, "trace:a=1").ok());
  std::string error = AddError(restrictions, "logging,trace:b=2");
  EXPECT_NE(error.find("'trace' is restricted more than once"), std::string::npos) << error;
  EXPECT_EQ(restrictions.Find(ApiCategory::kLogging), nullptr);
  EXPECT_EQ(restrictions.Find(ApiCategory::kTrace)->header, "a");
  error = AddError(restrictions, "health,health:c=3");
  EXPECT_NE(error.find("'health' is restricted more than once"), std::string::npos) << error;
}

TEST(ApiRestrictionsTest, RefusalMessagesAreTritons) {
  const ApiRestriction restriction{"admin-key", "v"};
  EXPECT_EQ(ApiRestrictions::RefusalMessage(restriction, /*grpc=*/false),
            "This API is restricted, expecting header 'admin-key'");
  EXPECT_EQ(ApiRestrictions::RefusalMessage(restriction, /*grpc=*/true),
            "This protocol is restricted, expecting header 'admin-key'");
}

}  // namespace
}  // namespace inferd
