// Insecure, TLS or mutual-TLS server credentials from PEM files, which gRPC
// re-reads while the server runs.
#include "grpc/server_credentials.h"

#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_credentials_options.h>

#include <fstream>
#include <sstream>
#include <string>

namespace inferd::grpc_frontend {
namespace {

// Reads the file `path` named by `flag`, which `required_by` needs.
Status ReadPem(const char* flag, const std::string& path, const char* required_by,
               std::string* out) {
  if (path.empty()) {
    return Status::InvalidArg(std::string(flag) + " is required with " + required_by);
  }
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  if (!file || text.str().empty()) {
    return Status::InvalidArg(std::string(flag) + ": cannot read '" + path + "'");
  }
  *out = text.str();
  return Status::Ok();
}

}  // namespace

StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const GrpcOptions& options) {
  if (!options.use_ssl && !options.use_mutual_ssl) return grpc::InsecureServerCredentials();
  // Read once here only so that a missing file fails the start, naming its flag.
  std::string pem;
  const char* required_by = options.use_mutual_ssl ? "--grpc-use-ssl-mutual" : "--grpc-use-ssl";
  RETURN_IF_ERROR(ReadPem("--grpc-server-cert", options.server_cert, required_by, &pem));
  RETURN_IF_ERROR(ReadPem("--grpc-server-key", options.server_key, required_by, &pem));
  const bool roots = options.use_mutual_ssl || !options.root_cert.empty();
  if (roots) RETURN_IF_ERROR(ReadPem("--grpc-root-cert", options.root_cert, required_by, &pem));
  // gRPC's own watcher re-reads the files every kCertificateRefreshSecs: a
  // rotated certificate serves new handshakes, open connections go on.
  auto provider = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
      options.server_key, options.server_cert, roots ? options.root_cert : std::string(),
      kCertificateRefreshSecs);
  grpc::experimental::TlsServerCredentialsOptions tls(provider);
  tls.watch_identity_key_cert_pairs();
  if (roots) tls.watch_root_certs();
  tls.set_cert_request_type(options.use_mutual_ssl
                                ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
                                : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  return grpc::experimental::TlsServerCredentials(tls);
}

}  // namespace inferd::grpc_frontend
