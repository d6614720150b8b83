// Splitting the binary tensor data section of a request body.
#include "http/binary_section.h"

#include <gtest/gtest.h>

namespace inferd::http {
namespace {

using Code = Status::Code;

TEST(BinarySectionTest, HeaderLengthDefaultsToTheWholeBody) {
  size_t json_size = 0;
  ASSERT_TRUE(ParseInferHeaderLength("", 120, &json_size).ok());
  EXPECT_EQ(json_size, 120u);
  ASSERT_TRUE(ParseInferHeaderLength("80", 120, &json_size).ok());
  EXPECT_EQ(json_size, 80u);
}

TEST(BinarySectionTest, RejectsABadOrTooLargeHeaderLength) {
  size_t json_size = 0;
  EXPECT_EQ(ParseInferHeaderLength("12x", 120, &json_size).code(), Code::kInvalidArg);
  EXPECT_EQ(ParseInferHeaderLength("-1", 120, &json_size).code(), Code::kInvalidArg);
  const Status too_large = ParseInferHeaderLength("121", 120, &json_size);
  EXPECT_EQ(too_large.code(), Code::kInvalidArg);
  EXPECT_NE(too_large.message().find("exceeds"), std::string::npos);
}

TEST(BinarySectionTest, HandsOutSlicesInOrder) {
  const std::string_view bytes = "aaaabbbbbbbbcc";
  BinarySection section(bytes);
  std::string_view a, b, c;
  ASSERT_TRUE(section.Take("A", 4, &a).ok());
  ASSERT_TRUE(section.Take("B", 8, &b).ok());
  ASSERT_TRUE(section.Take("C", 2, &c).ok());
  EXPECT_TRUE(section.Finish().ok());
  EXPECT_EQ(a, "aaaa");
  EXPECT_EQ(b, "bbbbbbbb");
  EXPECT_EQ(c, "cc");
  EXPECT_EQ(a.data(), bytes.data());  // a view, not a copy
  EXPECT_EQ(c.data(), bytes.data() + 12);
}

TEST(BinarySectionTest, TooFewBytesNamesTheInput) {
  BinarySection section("aaaabb");
  std::string_view slice;
  ASSERT_TRUE(section.Take("A", 4, &slice).ok());
  const Status status = section.Take("INPUT1", 4, &slice);
  EXPECT_EQ(status.code(), Code::kInvalidArg);
  EXPECT_NE(status.message().find("'INPUT1'"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("2 bytes"), std::string::npos) << status.message();
}

TEST(BinarySectionTest, LeftoverBytesAreAnError) {
  BinarySection section("aaaabb");
  std::string_view slice;
  ASSERT_TRUE(section.Take("A", 4, &slice).ok());
  const Status status = section.Finish();
  EXPECT_EQ(status.code(), Code::kInvalidArg);
  EXPECT_NE(status.message().find("'A'"), std::string::npos) << status.message();
  EXPECT_FALSE(BinarySection("zz").Finish().ok());
  EXPECT_TRUE(BinarySection("").Finish().ok());
}

TEST(BinarySectionTest, VendorContentTypeGivesTheJsonLength) {
  constexpr std::string_view kVendor = "application/vnd.x-triton.binary+json;json-header-size=";
  size_t json_size = 120;
  ASSERT_TRUE(ParseVendorHeaderLength("application/json", kVendor, 120, &json_size).ok());
  EXPECT_EQ(json_size, 120u);  // another type leaves it
  ASSERT_TRUE(ParseVendorHeaderLength(std::string(kVendor) + "45", kVendor, 120, &json_size).ok());
  EXPECT_EQ(json_size, 45u);
  ASSERT_TRUE(ParseVendorHeaderLength(std::string(kVendor) + "7", "", 120, &json_size).ok());
  EXPECT_EQ(json_size, 45u);  // no vendor type: KServe v2, the header alone
}

TEST(BinarySectionTest, RejectsABadVendorContentType) {
  constexpr std::string_view kVendor = "application/vnd.x-triton.binary+json;json-header-size=";
  size_t json_size = 0;
  EXPECT_EQ(ParseVendorHeaderLength("text/plain, " + std::string(kVendor) + "4", kVendor, 120,
                                    &json_size).code(),
            Code::kInvalidArg);
  EXPECT_EQ(ParseVendorHeaderLength(std::string(kVendor) + "x", kVendor, 120, &json_size).code(),
            Code::kInvalidArg);
  const Status too_long = ParseVendorHeaderLength(std::string(kVendor) + "121", kVendor, 120,
                                                  &json_size);
  EXPECT_EQ(too_long.code(), Code::kInvalidArg);
  EXPECT_NE(too_long.message().find("exceeds the request body size 120"), std::string::npos);
}

}  // namespace
}  // namespace inferd::http
