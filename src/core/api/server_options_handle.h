// The struct behind the opaque C handle INFERD_ServerOptions, shared by the
// shells that take one (server_options_api.cc, server_api.cc,
// repository_check_api.cc).
#ifndef INFERD_CORE_API_SERVER_OPTIONS_HANDLE_H_
#define INFERD_CORE_API_SERVER_OPTIONS_HANDLE_H_

#include "core/server/server_options.h"

struct INFERD_ServerOptions {
  inferd::ServerOptions options;
};

#endif  // INFERD_CORE_API_SERVER_OPTIONS_HANDLE_H_
