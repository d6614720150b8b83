#include "http/tls_context.h"

#include <openssl/ssl.h>
#include <spdlog/spdlog.h>

#include <fstream>
#include <vector>

namespace inferd::http {
namespace ssl = boost::asio::ssl;
using boost::system::error_code;

namespace {

// OpenSSL's reason for a file it cannot open says only "asio.ssl error": so
// unreadable files are told apart first.
Status FileError(const char* flag, const std::string& path, const error_code& ec) {
  if (!std::ifstream(path).is_open()) {
    return Status::InvalidArg(std::string(flag) + ": cannot read '" + path + "'");
  }
  return Status::InvalidArg(std::string(flag) + ": cannot use '" + path + "': " + ec.message());
}

Status Required(const char* flag, const HttpTlsOptions& options) {
  return Status::InvalidArg(std::string(flag) + " is required with " +
                            (options.use_mutual_ssl ? "--http-use-ssl-mutual" : "--http-use-ssl"));
}

}  // namespace

StatusOr<std::unique_ptr<ssl::context>> MakeTlsContext(const HttpTlsOptions& options) {
  if (options.server_cert.empty()) return Required("--http-server-cert", options);
  if (options.server_key.empty()) return Required("--http-server-key", options);
  if (options.use_mutual_ssl && options.root_cert.empty()) {
    return Required("--http-root-cert", options);
  }
  auto context = std::make_unique<ssl::context>(ssl::context::tls_server);
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                       ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                       ssl::context::no_tlsv1_1 | ssl::context::single_dh_use);
  // A TLS 1.2 client asking to renegotiate again and again costs the server
  // a handshake each time; nothing inferd serves needs renegotiation.
  SSL_CTX_set_options(context->native_handle(), SSL_OP_NO_RENEGOTIATION);
  error_code ec;
  if (context->use_certificate_chain_file(options.server_cert, ec)) {
    return FileError("--http-server-cert", options.server_cert, ec);
  }
  if (context->use_private_key_file(options.server_key, ssl::context::pem, ec)) {
    return FileError("--http-server-key", options.server_key, ec);
  }
  if (SSL_CTX_check_private_key(context->native_handle()) != 1) {
    return Status::InvalidArg("--http-server-key: '" + options.server_key +
                              "' is not the key of the certificate in '" + options.server_cert +
                              "'");
  }
  if (!options.root_cert.empty() && context->load_verify_file(options.root_cert, ec)) {
    return FileError("--http-root-cert", options.root_cert, ec);
  }
  if (options.use_mutual_ssl) {
    context->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
  }
  return context;
}

StatusOr<std::unique_ptr<ReloadingTlsContext>> ReloadingTlsContext::Create(
    const HttpTlsOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<ssl::context> first, MakeTlsContext(options));
  std::unique_ptr<ReloadingTlsContext> reloading(new ReloadingTlsContext(options));
  reloading->current_.store(std::shared_ptr<ssl::context>(std::move(first)));
  std::vector<std::string> files = {options.server_cert, options.server_key};
  if (!options.root_cert.empty()) files.push_back(options.root_cert);
  ReloadingTlsContext* self = reloading.get();
  StatusOr<std::unique_ptr<FileWatcher>> watcher =
      FileWatcher::Start(std::move(files), [self] { self->Reload(); });
  if (!watcher.ok()) return watcher.status().WithPrefix("--http-server-cert: ");
  reloading->watcher_ = std::move(watcher).value();
  return reloading;
}

ReloadingTlsContext::~ReloadingTlsContext() { watcher_.reset(); }

void ReloadingTlsContext::Reload() {
  StatusOr<std::unique_ptr<ssl::context>> next = MakeTlsContext(options_);
  if (!next.ok()) {
    SPDLOG_WARN("HTTPS: the certificate files changed but make no valid context ({}); new "
                "connections keep the previous certificate until they do",
                next.status().message());
    return;
  }
  current_.store(std::shared_ptr<ssl::context>(std::move(next).value()));
  SPDLOG_INFO("HTTPS: certificate re-read from {}; new connections use it",
              options_.server_cert);
}

}  // namespace inferd::http
