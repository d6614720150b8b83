// Model globs of API keys.
#include "common/auth/model_glob.h"

#include <gtest/gtest.h>

#include <string>

namespace inferd::auth {
namespace {

TEST(ModelGlobTest, StarMatchesAnyRunIncludingNone) {
  EXPECT_TRUE(GlobMatch("fraud_*", "fraud_"));
  EXPECT_TRUE(GlobMatch("fraud_*", "fraud_v2"));
  EXPECT_FALSE(GlobMatch("fraud_*", "fraud"));
  EXPECT_FALSE(GlobMatch("fraud_*", "xfraud_v2"));
  EXPECT_TRUE(GlobMatch("*_onnx", "mlp_onnx"));
  EXPECT_TRUE(GlobMatch("a*b*c", "aXXbYYc"));
  EXPECT_FALSE(GlobMatch("a*b*c", "aXXbYY"));
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("**", "anything"));
}

TEST(ModelGlobTest, QuestionMarkMatchesExactlyOne) {
  EXPECT_TRUE(GlobMatch("model_?", "model_1"));
  EXPECT_FALSE(GlobMatch("model_?", "model_"));
  EXPECT_FALSE(GlobMatch("model_?", "model_12"));
}

TEST(ModelGlobTest, OtherCharactersMatchThemselvesOnly) {
  EXPECT_TRUE(GlobMatch("identity_fp32", "identity_fp32"));
  EXPECT_FALSE(GlobMatch("identity_fp32", "identity_fp3"));
  EXPECT_FALSE(GlobMatch("identity_fp32", "Identity_fp32"));
  EXPECT_FALSE(GlobMatch("", "x"));
  EXPECT_TRUE(GlobMatch("", ""));
}

TEST(ModelGlobTest, ManyStarsOnALongNameStayFast) {
  const std::string name(10000, 'a');
  EXPECT_FALSE(GlobMatch("*a*a*a*a*a*a*a*b", name));
  EXPECT_TRUE(GlobMatch("*a*a*a*a*a*a*a*a", name));
}

}  // namespace
}  // namespace inferd::auth
