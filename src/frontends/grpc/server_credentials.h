// The transport security of the gRPC frontend: insecure, TLS, or mutual TLS
// (clients must present a certificate the root certificate signed), built
// from PEM files named on the command line. Thread-safe (no shared state).
#ifndef INFERD_FRONTENDS_GRPC_SERVER_CREDENTIALS_H_
#define INFERD_FRONTENDS_GRPC_SERVER_CREDENTIALS_H_

#include <grpcpp/security/server_credentials.h>

#include <memory>
#include <string>

#include "grpc/grpc_server.h"

namespace inferd::grpc_frontend {

// Credentials for `options`. On error (a file missing or unreadable, TLS
// without a certificate or key, mutual TLS without a root certificate)
// returns null and sets *error to a message naming the flag and file.
std::shared_ptr<grpc::ServerCredentials> MakeServerCredentials(const GrpcOptions& options,
                                                               std::string* error);

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_SERVER_CREDENTIALS_H_
