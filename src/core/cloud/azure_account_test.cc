#include "core/cloud/azure_account.h"

#include <gtest/gtest.h>

namespace inferd {
namespace {

TEST(AzureAccountTest, ConnectionStringGivesAccountKeyEndpointAndSas) {
  auto parsed = ParseAzureConnectionString(
      "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=a2V5==;"
      "BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1/;SharedAccessSignature=?sv=1&sig=x=");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->account_name, "devstoreaccount1");
  EXPECT_EQ(parsed->account_key, "a2V5==");  // values keep their '='
  EXPECT_EQ(parsed->blob_endpoint, "http://127.0.0.1:10000/devstoreaccount1");
  EXPECT_EQ(parsed->sas, "sv=1&sig=x=");
}

TEST(AzureAccountTest, ConnectionStringWithoutEndpointBuildsItFromProtocolAndSuffix) {
  auto parsed = ParseAzureConnectionString(
      "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=k;"
      "EndpointSuffix=core.chinacloudapi.cn;");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->blob_endpoint, "https://acct.blob.core.chinacloudapi.cn");
}

TEST(AzureAccountTest, DevelopmentStorageIsAzuritesWellKnownAccount) {
  auto parsed = ParseAzureConnectionString("UseDevelopmentStorage=true");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->account_name, "devstoreaccount1");
  EXPECT_EQ(parsed->blob_endpoint, "http://127.0.0.1:10000/devstoreaccount1");
  EXPECT_FALSE(parsed->account_key.empty());
}

TEST(AzureAccountTest, APartThatIsNotKeyValueIsNamed) {
  auto parsed = ParseAzureConnectionString("AccountName=a;garbage;");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), Status::Code::kInvalidArg);
  EXPECT_NE(parsed.status().message().find("'garbage'"), std::string::npos);
}

TEST(AzureAccountTest, WithoutOverridesTheUrlsAccountOnThePublicEndpointAnonymously) {
  auto account = ResolveAzureAccount({.url_account = "acct"});
  ASSERT_TRUE(account.ok());
  EXPECT_EQ(account->name, "acct");
  EXPECT_EQ(account->endpoint, "https://acct.blob.core.windows.net");
  EXPECT_TRUE(account->key.empty());
  EXPECT_TRUE(account->sas.empty());
}

TEST(AzureAccountTest, TheUrlMayNameTheAccountByItsHost) {
  auto account = ResolveAzureAccount({.url_account = "acct.blob.core.windows.net"});
  ASSERT_TRUE(account.ok());
  EXPECT_EQ(account->name, "acct");
}

// As Triton: AZURE_STORAGE_ACCOUNT (or account_str) wins over the URL's account.
TEST(AzureAccountTest, TheCredentialsAccountAndKeyWin) {
  auto account = ResolveAzureAccount(
      {.url_account = "fromurl", .credential_account = "acct", .credential_key = "a2V5"});
  ASSERT_TRUE(account.ok());
  EXPECT_EQ(account->name, "acct");
  EXPECT_EQ(account->key, "a2V5");
}

TEST(AzureAccountTest, TheConnectionStringSpeaksOnlyForItsOwnAccount) {
  const std::string azurite = "AccountName=devstoreaccount1;AccountKey=a2V5;"
                              "BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1";
  auto same =
      ResolveAzureAccount({.url_account = "devstoreaccount1", .connection_string = azurite});
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->endpoint, "http://127.0.0.1:10000/devstoreaccount1");
  EXPECT_EQ(same->key, "a2V5");
  auto other = ResolveAzureAccount({.url_account = "other", .connection_string = azurite});
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->endpoint, "https://other.blob.core.windows.net");
  EXPECT_TRUE(other->key.empty());
}

TEST(AzureAccountTest, TheUrlsSasWinsOverTheConnectionStrings) {
  auto account = ResolveAzureAccount({.url_account = "a",
                                      .url_sas = "?sv=url",
                                      .connection_string = "SharedAccessSignature=sv=cs"});
  ASSERT_TRUE(account.ok());
  EXPECT_EQ(account->sas, "sv=url");
  auto fallback = ResolveAzureAccount(
      {.url_account = "a", .connection_string = "SharedAccessSignature=sv=cs"});
  ASSERT_TRUE(fallback.ok());
  EXPECT_EQ(fallback->sas, "sv=cs");
}

TEST(AzureAccountTest, NoAccountAnywhereIsRefused) {
  auto account = ResolveAzureAccount({});
  ASSERT_FALSE(account.ok());
  EXPECT_EQ(account.status().code(), Status::Code::kInvalidArg);
}

}  // namespace
}  // namespace inferd
