#include "core/cloud/google_credentials.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <rapidjson/document.h>

#include <memory>

#include "core/cloud/crypto.h"
#include "core/cloud/jwt_signer.h"

namespace inferd {
namespace {

using KeyPtr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

// A fresh RSA key, and its private half as PKCS#8 PEM (as in Google's files).
struct TestKey {
  KeyPtr key{nullptr, &EVP_PKEY_free};
  std::string pem;
};
TestKey MakeKey() {
  TestKey out;
  out.key.reset(EVP_RSA_gen(2048));
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), &BIO_free);
  PEM_write_bio_PKCS8PrivateKey(bio.get(), out.key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio.get(), &data);
  out.pem.assign(data, static_cast<size_t>(len));
  return out;
}

std::string Base64UrlDecode(std::string text) {
  for (char& c : text) c = c == '-' ? '+' : c == '_' ? '/' : c;
  while (text.size() % 4) text += '=';
  auto bytes = Base64Decode(text);
  return bytes.ok() ? *bytes : "<not base64url>";
}

bool VerifyRs256(EVP_PKEY* key, const std::string& data, const std::string& signature) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  return EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key) == 1 &&
         EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                          signature.size(), reinterpret_cast<const unsigned char*>(data.data()),
                          data.size()) == 1;
}

GoogleServiceAccount Account(const std::string& pem) {
  return {"loader@proj.iam.gserviceaccount.com", pem, "key-1", "http://127.0.0.1:9/token"};
}

TEST(GoogleCredentialsTest, AssertionIsAVerifiableRs256JwtWithGooglesClaims) {
  const TestKey key = MakeKey();
  auto jwt = ServiceAccountAssertion(Account(key.pem), kGcsReadOnlyScope, 1'800'000'000);
  ASSERT_TRUE(jwt.ok()) << jwt.status().ToString();
  const size_t dot1 = jwt->find('.');
  const size_t dot2 = jwt->rfind('.');
  ASSERT_NE(dot1, dot2);
  EXPECT_EQ(jwt->find_first_of("+/="), std::string::npos);  // base64url, unpadded

  rapidjson::Document header, claims;
  header.Parse(Base64UrlDecode(jwt->substr(0, dot1)).c_str());
  claims.Parse(Base64UrlDecode(jwt->substr(dot1 + 1, dot2 - dot1 - 1)).c_str());
  ASSERT_TRUE(header.IsObject() && claims.IsObject());
  EXPECT_STREQ(header["alg"].GetString(), "RS256");
  EXPECT_STREQ(header["typ"].GetString(), "JWT");
  EXPECT_STREQ(header["kid"].GetString(), "key-1");
  EXPECT_STREQ(claims["iss"].GetString(), "loader@proj.iam.gserviceaccount.com");
  EXPECT_STREQ(claims["scope"].GetString(), "https://www.googleapis.com/auth/devstorage.read_only");
  EXPECT_STREQ(claims["aud"].GetString(), "http://127.0.0.1:9/token");
  EXPECT_EQ(claims["iat"].GetInt64(), 1'800'000'000);
  EXPECT_EQ(claims["exp"].GetInt64(), 1'800'003'600);

  const std::string signature = Base64UrlDecode(jwt->substr(dot2 + 1));
  EXPECT_TRUE(VerifyRs256(key.key.get(), jwt->substr(0, dot2), signature));
  EXPECT_FALSE(VerifyRs256(key.key.get(), jwt->substr(0, dot2) + "x", signature));
  EXPECT_FALSE(VerifyRs256(MakeKey().key.get(), jwt->substr(0, dot2), signature));
}

TEST(GoogleCredentialsTest, AKeyThatIsNotPemIsRefusedNamingTheAccount) {
  auto jwt = ServiceAccountAssertion(Account("-----BEGIN PRIVATE KEY-----\nxx\n"),
                                     kGcsReadOnlyScope, 0);
  ASSERT_FALSE(jwt.ok());
  EXPECT_EQ(jwt.status().code(), Status::Code::kInvalidArg);
  EXPECT_NE(jwt.status().message().find("loader@proj"), std::string::npos);
}

TEST(GoogleCredentialsTest, ServiceAccountFileParsesWithGooglesDefaultTokenUri) {
  auto creds = ParseGoogleCredentials(
      R"({"type": "service_account", "client_email": "a@b", "private_key": "pem",
          "private_key_id": "k"})", "sa.json");
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  const auto& account = std::get<GoogleServiceAccount>(*creds);
  EXPECT_EQ(account.client_email, "a@b");
  EXPECT_EQ(account.token_uri, "https://oauth2.googleapis.com/token");
}

TEST(GoogleCredentialsTest, ErrorsNameTheFileAndTheField) {
  auto missing =
      ParseGoogleCredentials(R"({"type": "service_account", "private_key": "p"})", "sa.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("sa.json"), std::string::npos);
  EXPECT_NE(missing.status().message().find("client_email"), std::string::npos);
  auto kind = ParseGoogleCredentials(R"({"type": "external_account"})", "x.json");
  ASSERT_FALSE(kind.ok());
  EXPECT_EQ(kind.status().code(), Status::Code::kUnsupported);
  EXPECT_FALSE(ParseGoogleCredentials("not json", "y.json").ok());
  auto absent = ReadGoogleCredentialsFile("/nonexistent/creds.json");
  ASSERT_FALSE(absent.ok());
  EXPECT_NE(absent.status().message().find("/nonexistent/creds.json"), std::string::npos);
}

TEST(GoogleCredentialsTest, TokenRequestsAreFormEncoded) {
  const TestKey key = MakeKey();
  auto request = MakeTokenRequest(GoogleCredentialsFile(Account(key.pem)), 100);
  ASSERT_TRUE(request.ok());
  EXPECT_EQ(request->uri, "http://127.0.0.1:9/token");
  EXPECT_EQ(request->body.rfind(
                "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=", 0),
            0u);
  auto user = MakeTokenRequest(
      GoogleCredentialsFile(
          GoogleAuthorizedUser{"id", "s/cret", "r+t", "https://oauth2.googleapis.com/token"}),
      100);
  ASSERT_TRUE(user.ok());
  EXPECT_EQ(user->body,
            "grant_type=refresh_token&client_id=id&client_secret=s%2Fcret&refresh_token=r%2Bt");
}

TEST(GoogleCredentialsTest, TokenResponseGivesTheTokenAndWhenItExpires) {
  auto token = ParseTokenResponse(
      R"({"access_token": "ya29.x", "expires_in": 3599, "token_type": "Bearer"})", 1000);
  ASSERT_TRUE(token.ok());
  EXPECT_EQ(token->token, "ya29.x");
  EXPECT_EQ(token->expires_at_s, 4599);
  EXPECT_FALSE(ParseTokenResponse(R"({"error": "invalid_grant"})", 0).ok());
  EXPECT_FALSE(ParseTokenResponse("<html>", 0).ok());
}

TEST(JwtSignerTest, Base64UrlHasNoPaddingAndTheUrlSafeAlphabet) {
  EXPECT_EQ(Base64UrlEncode("\xfb\xff"), "-_8");
  EXPECT_EQ(Base64UrlEncode("hello"), "aGVsbG8");
}

}  // namespace
}  // namespace inferd
