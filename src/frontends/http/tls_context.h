// HTTPS on the HTTP port (--http-use-ssl, a beyond-Triton feature): the TLS
// settings, in the style of Triton's gRPC SSL flags, and the OpenSSL context
// they make. The context is built once at start and shared, read-only, by
// every connection.
#ifndef INFERD_FRONTENDS_HTTP_TLS_CONTEXT_H_
#define INFERD_FRONTENDS_HTTP_TLS_CONTEXT_H_

#include <boost/asio/ssl/context.hpp>

#include <memory>
#include <string>

#include "inferd/base/status.h"

namespace inferd::http {

struct HttpTlsOptions {
  bool use_ssl = false;         // serve HTTPS with server_cert and server_key
  bool use_mutual_ssl = false;  // implies use_ssl; clients need a certificate signed by root_cert
  std::string server_cert;      // PEM: the server's certificate chain
  std::string server_key;       // PEM: its private key
  std::string root_cert;        // PEM: the CA that signs client certificates
  bool enabled() const { return use_ssl || use_mutual_ssl; }
};

// The server-side TLS context (TLS 1.2 or later). INVALID_ARG naming the flag
// and the file when a file is missing, unreadable or not PEM, or the key does
// not belong to the certificate.
StatusOr<std::unique_ptr<boost::asio::ssl::context>> MakeTlsContext(const HttpTlsOptions& options);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_TLS_CONTEXT_H_
