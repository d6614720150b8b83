// The in-process server the command-line flags (server_flags.h) describe.
// Used by main only.
#ifndef INFERD_SERVER_FROM_FLAGS_H_
#define INFERD_SERVER_FROM_FLAGS_H_

#include <string>

#include "inferd/server.h"
#include "server_flags.h"

namespace inferd {

// The server the flags describe; null (with the reason on stderr) when it
// cannot be created.
INFERD_Server* CreateServer(const Flags& flags);

// Prints an error (and frees it) saying what failed; returns true when there
// was one.
bool Failed(INFERD_Error* error, const char* what);

// The folder of this executable, where `make build` puts the gRPC module and
// backends/.
std::string ExecutableDirectory();

}  // namespace inferd

#endif  // INFERD_SERVER_FROM_FLAGS_H_
