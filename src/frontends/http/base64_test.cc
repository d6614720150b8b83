#include "http/base64.h"

#include <gtest/gtest.h>

namespace inferd::http {
namespace {

TEST(Base64Test, DecodesWithAndWithoutPadding) {
  EXPECT_EQ(DecodeBase64("aGVsbG8="), "hello");
  EXPECT_EQ(DecodeBase64("aGk="), "hi");
  EXPECT_EQ(DecodeBase64("aGV5"), "hey");
  EXPECT_EQ(DecodeBase64(""), "");
  EXPECT_EQ(DecodeBase64("AAEC/w=="), std::string("\x00\x01\x02\xff", 4));
}

TEST(Base64Test, RejectsMalformedText) {
  EXPECT_FALSE(DecodeBase64("aGVsbG8"));    // length not a multiple of 4
  EXPECT_FALSE(DecodeBase64("aGV*bG8="));   // bad character
  EXPECT_FALSE(DecodeBase64("a===aGk="));   // padding in the middle
}

TEST(Base64Test, EncodesWithPaddingAndRoundTrips) {
  EXPECT_EQ(EncodeBase64(""), "");
  EXPECT_EQ(EncodeBase64("hello"), "aGVsbG8=");
  EXPECT_EQ(EncodeBase64(std::string("\x00\x01\x02\xff", 4)), "AAEC/w==");
  EXPECT_EQ(EncodeBase64("abc"), "YWJj");
  const std::string all = [] {
    std::string bytes;
    for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(i));
    return bytes;
  }();
  EXPECT_EQ(DecodeBase64(EncodeBase64(all)), all);
}

}  // namespace
}  // namespace inferd::http
