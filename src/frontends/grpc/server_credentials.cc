// Insecure, TLS or mutual-TLS server credentials from PEM files.
#include "grpc/server_credentials.h"

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
  grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
  const char* required_by = options.use_mutual_ssl ? "--grpc-use-ssl-mutual" : "--grpc-use-ssl";
  RETURN_IF_ERROR(
      ReadPem("--grpc-server-cert", options.server_cert, required_by, &pair.cert_chain));
  RETURN_IF_ERROR(
      ReadPem("--grpc-server-key", options.server_key, required_by, &pair.private_key));
  grpc::SslServerCredentialsOptions ssl(
      options.use_mutual_ssl ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
                             : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  if (options.use_mutual_ssl || !options.root_cert.empty()) {
    RETURN_IF_ERROR(
        ReadPem("--grpc-root-cert", options.root_cert, required_by, &ssl.pem_root_certs));
  }
  ssl.pem_key_cert_pairs.push_back(std::move(pair));
  return grpc::SslServerCredentials(ssl);
}

}  // namespace inferd::grpc_frontend
