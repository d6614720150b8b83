// The TraceSetting RPC (trace extension): reads, and with settings given
// updates, the global trace settings or a model's. The protocol's map of
// setting -> repeated string becomes the server API's JSON object (an empty
// value list clears the setting) and back. Quick and non-blocking.
// Thread-safe (no shared state).
#ifndef INFERD_FRONTENDS_GRPC_TRACE_HANDLERS_H_
#define INFERD_FRONTENDS_GRPC_TRACE_HANDLERS_H_

#include <string>

#include "grpc_service.pb.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::grpc_frontend {

Status TraceSetting(INFERD_Server* server, const inference::TraceSettingRequest& request,
                    inference::TraceSettingResponse* response);

// The server API's update document for `request`'s settings.
std::string TraceUpdateJson(const inference::TraceSettingRequest& request);

// Fills `response` from the server API's settings document.
Status TraceSettingsFromJson(const std::string& json,
                             inference::TraceSettingResponse* response);

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_TRACE_HANDLERS_H_
