#include "core/cloud/crypto.h"

#include <gtest/gtest.h>

namespace inferd {
namespace {

TEST(CryptoTest, Sha256AndHmacMatchKnownVectors) {
  EXPECT_EQ(HexEncode(Sha256("")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // RFC 4231, test case 2.
  EXPECT_EQ(HexEncode(HmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(CryptoTest, Base64RoundTrips) {
  for (std::string text : {"", "f", "fo", "foo", "foob", "fooba", "foobar"}) {
    auto back = Base64Decode(Base64Encode(text));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, text);
  }
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Decode("Zm9vYg").value(), "foob");  // padding optional
  EXPECT_FALSE(Base64Decode("!!!!").ok());
}

TEST(CryptoTest, UriEncodeKeepsUnreservedAndOptionallySlashes) {
  EXPECT_EQ(UriEncode("a/b c~d_e.f-g", false), "a/b%20c~d_e.f-g");
  EXPECT_EQ(UriEncode("a/b=c+d", true), "a%2Fb%3Dc%2Bd");
  EXPECT_EQ(UriEncode("\xc3\xa9", false), "%C3%A9");
}

}  // namespace
}  // namespace inferd
