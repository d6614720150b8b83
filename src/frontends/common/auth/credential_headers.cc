#include "common/auth/credential_headers.h"

#include <algorithm>
#include <cctype>

namespace inferd::auth {
namespace {

bool EqualsNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

bool IsCredentialHeader(std::string_view name) {
  return EqualsNoCase(name, "authorization") ||
         EqualsNoCase(name, "triton-grpc-protocol-authorization");
}

void DropCredentialHeaders(ForwardedHeaders* headers) {
  std::erase_if(*headers, [](const ForwardedHeader& header) {
    return IsCredentialHeader(header.name);
  });
}

}  // namespace inferd::auth
