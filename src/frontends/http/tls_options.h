// The HTTPS settings of the HTTP port (--http-use-ssl, a beyond-Triton
// feature), in the style of Triton's gRPC SSL flags. Plain data: the binary
// holds them without OpenSSL, which only the HTTPS module links
// (https_module.h, tls_context.h).
#ifndef INFERD_FRONTENDS_HTTP_TLS_OPTIONS_H_
#define INFERD_FRONTENDS_HTTP_TLS_OPTIONS_H_

#include <string>

namespace inferd::http {

struct HttpTlsOptions {
  bool use_ssl = false;         // serve HTTPS with server_cert and server_key
  bool use_mutual_ssl = false;  // implies use_ssl; clients need a certificate signed by root_cert
  std::string server_cert;      // PEM: the server's certificate chain
  std::string server_key;       // PEM: its private key
  std::string root_cert;        // PEM: the CA that signs client certificates
  bool enabled() const { return use_ssl || use_mutual_ssl; }
};

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_TLS_OPTIONS_H_
