// HTTPS as a loadable module (libinferd_https_frontend.so beside the inferd
// binary). OpenSSL is the largest library the binary would otherwise link:
// libcrypto binds its ~4,900 symbols at load (BIND_NOW), and with libssl it
// was ~1.5 of an idle server's ~9 ms to ready and 2 of its 11 MiB, for a
// feature most servers never turn on. So the binary's HTTP frontend has no TLS transport,
// and main loads this module only for --http-use-ssl / --http-use-ssl-mutual:
// the module is the whole HTTP frontend built again with HTTPS
// (INFERD_HTTP_TLS=1, see http_session.h), so a TLS server runs entirely on
// the module's code, as before.
//
// The boundary is internal (module and binary come from one build), so C++
// types cross it; the entry point has C linkage only to be found by dlsym.
#ifndef INFERD_FRONTENDS_HTTP_HTTPS_MODULE_H_
#define INFERD_FRONTENDS_HTTP_HTTPS_MODULE_H_

#include <spdlog/logger.h>

#include <memory>

#include "common/frontend.h"
#include "http/http_server.h"
#include "inferd/server.h"

namespace inferd::http {

// The module's file name, looked up in the binary's folder.
inline constexpr const char* kHttpsModuleFile = "libinferd_https_frontend.so";

// Creates an HttpServer for `server` with `options` (TLS on), not started
// yet. The caller owns it and deletes it through Frontend (which stops it);
// the module must stay loaded until then. spdlog is header-only, so the
// module has a registry of its own: `log` (the binary's default logger)
// becomes its default logger, and the module's lines go where the binary's
// go, filtered alike.
using NewHttpsFrontendFn = Frontend* (*)(INFERD_Server* server, const HttpOptions& options,
                                         std::shared_ptr<spdlog::logger> log);

inline constexpr const char* kNewHttpsFrontendSymbol = "InferdHttpsFrontendNew";

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_HTTPS_MODULE_H_
