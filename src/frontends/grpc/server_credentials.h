// The transport security of the gRPC frontend: insecure, TLS, or mutual TLS
// (clients must present a certificate the root certificate signed), built
// from PEM files named on the command line and re-read when they change
// (new handshakes use the new certificate, open connections go on).
// Thread-safe (no shared state).
#ifndef INFERD_FRONTENDS_GRPC_SERVER_CREDENTIALS_H_
#define INFERD_FRONTENDS_GRPC_SERVER_CREDENTIALS_H_

#include <grpcpp/security/server_credentials.h>

#include <memory>

#include "grpc/grpc_server.h"
#include "inferd/base/status.h"

namespace inferd::grpc_frontend {

// How often gRPC looks at the certificate, key and root files for a change.
inline constexpr unsigned kCertificateRefreshSecs = 1;

// Credentials for `options`. INVALID_ARG naming the flag and file when a
// file is missing or unreadable, TLS lacks a certificate or key, or mutual
// TLS a root certificate.
StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const GrpcOptions& options);

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_SERVER_CREDENTIALS_H_
