// HeaderForwarder: Triton's matching rules for forwarded header names.
#include "common/header_forward.h"

#include <gtest/gtest.h>

namespace inferd {
namespace {

std::unique_ptr<const HeaderForwarder> Make(const std::string& pattern) {
  auto created = HeaderForwarder::Create(pattern, "--http-header-forward-pattern");
  EXPECT_TRUE(created.ok()) << created.status().message();
  return std::move(created).value();
}

TEST(HeaderForwarderTest, MatchesAnywhereInTheName) {
  auto forwarder = Make("my_header");
  EXPECT_TRUE(forwarder->Matches("my_header_1"));
  EXPECT_TRUE(forwarder->Matches("x-my_header"));
  EXPECT_FALSE(forwarder->Matches("header_1"));
}

TEST(HeaderForwarderTest, AnchorsRestrictToWholeNames) {
  auto forwarder = Make("^my_header$");
  EXPECT_TRUE(forwarder->Matches("my_header"));
  EXPECT_FALSE(forwarder->Matches("my_header_1"));
}

TEST(HeaderForwarderTest, IsCaseInsensitiveUnlessThePatternSaysOtherwise) {
  EXPECT_TRUE(Make("MY_HEADER.*")->Matches("my_header_1"));
  EXPECT_FALSE(Make("(?-i)MY_HEADER.*")->Matches("my_header_1"));
  EXPECT_TRUE(Make("(?-i)MY_HEADER.*")->Matches("MY_HEADER_1"));
}

TEST(HeaderForwarderTest, AnInvalidPatternNamesTheFlagAndThePattern) {
  auto created = HeaderForwarder::Create("my_(header", "--grpc-header-forward-pattern");
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.status().code(), Status::Code::kInvalidArg);
  EXPECT_NE(created.status().message().find("--grpc-header-forward-pattern"), std::string::npos);
  EXPECT_NE(created.status().message().find("'my_(header'"), std::string::npos);
  EXPECT_NE(created.status().message().find("missing )"), std::string::npos)
      << created.status().message();
}

TEST(HeaderForwarderTest, CollectsMatchingHeadersOnly) {
  auto forwarder = Make("^x-");
  ForwardedHeaders out;
  ASSERT_TRUE(forwarder->Collect("X-Tenant", "blue", &out).ok());
  ASSERT_TRUE(forwarder->Collect("accept", "*/*", &out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name, "X-Tenant");
  EXPECT_EQ(out[0].value, "blue");
}

TEST(HeaderForwarderTest, RefusesAMatchingReservedName) {
  auto forwarder = Make(".*");
  ForwardedHeaders out;
  for (const char* name : {"priority", "Timeout", "sequence_id", "headers", "triton_anything"}) {
    const Status s = forwarder->Collect(name, "1", &out);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArg) << name;
    EXPECT_NE(s.message().find(std::string("'") + name + "'"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("--http-header-forward-pattern"), std::string::npos);
  }
  EXPECT_TRUE(out.empty());
}

TEST(HeaderForwarderTest, AReservedNameThatDoesNotMatchIsIgnored) {
  auto forwarder = Make("^x-");
  ForwardedHeaders out;
  EXPECT_TRUE(forwarder->Collect("priority", "1", &out).ok());
  EXPECT_TRUE(out.empty());
}

TEST(ReservedParameterNameTest, KnowsTritonsList) {
  EXPECT_TRUE(IsReservedParameterName("sequence_start"));
  EXPECT_TRUE(IsReservedParameterName("binary_data_output"));
  EXPECT_TRUE(IsReservedParameterName("TRITON_x"));
  EXPECT_FALSE(IsReservedParameterName("triton"));
  EXPECT_FALSE(IsReservedParameterName("my_priority"));
}

}  // namespace
}  // namespace inferd
