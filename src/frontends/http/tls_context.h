// HTTPS on the HTTP port (--http-use-ssl, a beyond-Triton feature): the
// OpenSSL context that the TLS settings (tls_options.h) make. The context is
// built once at start and shared, read-only, by every connection. Built into
// the HTTPS module only (https_module.h).
#ifndef INFERD_FRONTENDS_HTTP_TLS_CONTEXT_H_
#define INFERD_FRONTENDS_HTTP_TLS_CONTEXT_H_

#include <boost/asio/ssl/context.hpp>

#include <memory>

#include "http/tls_options.h"
#include "inferd/base/status.h"

namespace inferd::http {

// The server-side TLS context (TLS 1.2 or later). INVALID_ARG naming the flag
// and the file when a file is missing, unreadable or not PEM, or the key does
// not belong to the certificate.
StatusOr<std::unique_ptr<boost::asio::ssl::context>> MakeTlsContext(const HttpTlsOptions& options);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_TLS_CONTEXT_H_
