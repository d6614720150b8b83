// The API key's header is never forwarded to a model.
#include "common/auth/credential_headers.h"

#include <gtest/gtest.h>

namespace inferd::auth {
namespace {

TEST(CredentialHeadersTest, DropsTheKeysHeadersInAnyCaseOnly) {
  ForwardedHeaders headers = {{"Authorization", "Bearer k"},
                              {"x-tenant", "a"},
                              {"TRITON-GRPC-PROTOCOL-AUTHORIZATION", "Bearer k"},
                              {"authorization-hint", "b"}};
  DropCredentialHeaders(&headers);
  ASSERT_EQ(headers.size(), 2u);
  EXPECT_EQ(headers[0].name, "x-tenant");
  EXPECT_EQ(headers[1].name, "authorization-hint");
}

}  // namespace
}  // namespace inferd::auth
