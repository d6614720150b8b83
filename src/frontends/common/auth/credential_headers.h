// With API keys on (--auth-file), the header that carries a key is never
// forwarded to a model as a request parameter, whatever
// --http/grpc-header-forward-pattern matches: a backend could log or pass it on.
#ifndef INFERD_FRONTENDS_COMMON_AUTH_CREDENTIAL_HEADERS_H_
#define INFERD_FRONTENDS_COMMON_AUTH_CREDENTIAL_HEADERS_H_

#include <string_view>

#include "common/header_forward.h"

namespace inferd::auth {

// Whether `name` (any case) carries an API key: Authorization, or gRPC's
// triton-grpc-protocol-authorization.
bool IsCredentialHeader(std::string_view name);

// Removes the credential headers from `headers`.
void DropCredentialHeaders(ForwardedHeaders* headers);

}  // namespace inferd::auth

#endif  // INFERD_FRONTENDS_COMMON_AUTH_CREDENTIAL_HEADERS_H_
