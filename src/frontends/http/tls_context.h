// HTTPS on the HTTP port (--http-use-ssl, a beyond-Triton feature): the
// OpenSSL context that the TLS settings (tls_options.h) make, shared,
// read-only, by every connection, and made again when its files change
// (ReloadingTlsContext). Built into the HTTPS module only (https_module.h).
#ifndef INFERD_FRONTENDS_HTTP_TLS_CONTEXT_H_
#define INFERD_FRONTENDS_HTTP_TLS_CONTEXT_H_

#include <boost/asio/ssl/context.hpp>

#include <atomic>
#include <memory>

#include "common/file_watcher.h"
#include "http/tls_options.h"
#include "inferd/base/status.h"

namespace inferd::http {

// The server-side TLS context (TLS 1.2 or later). INVALID_ARG naming the flag
// and the file when a file is missing, unreadable or not PEM, or the key does
// not belong to the certificate.
StatusOr<std::unique_ptr<boost::asio::ssl::context>> MakeTlsContext(const HttpTlsOptions& options);

// The current context, made again from the files when the certificate, key
// or root certificate changes (a FileWatcher) or at ReloadSoon (SIGHUP): new
// handshakes use the new one, open connections go on with the one they began
// with (their SSL objects hold its OpenSSL context). A change that makes no
// valid context (a key that does not match the certificate yet, a file half
// written) is logged and the current one kept, so a rotation fails no
// handshake. current() takes no lock. Thread-safe.
class ReloadingTlsContext {
 public:
  // INVALID_ARG as MakeTlsContext, or naming a folder that cannot be watched.
  static StatusOr<std::unique_ptr<ReloadingTlsContext>> Create(const HttpTlsOptions& options);
  ~ReloadingTlsContext();  // stops watching first

  std::shared_ptr<boost::asio::ssl::context> current() const { return current_.load(); }
  // Re-reads the files soon, changed or not. Any thread.
  void ReloadSoon() { watcher_->Trigger(); }

 private:
  explicit ReloadingTlsContext(HttpTlsOptions options) : options_(std::move(options)) {}
  void Reload();  // on the watcher's thread

  const HttpTlsOptions options_;
  std::atomic<std::shared_ptr<boost::asio::ssl::context>> current_;
  std::unique_ptr<FileWatcher> watcher_;
};

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_TLS_CONTEXT_H_
