// The LogSettings RPC (Triton's logging extension over gRPC): a request with
// settings changes them, an empty one only reads them; either way the response
// carries every setting now in force. Quick and non-blocking (no file is
// opened: the log file is set only at start), so it runs on gRPC's callback
// threads.
// Thread-safe (no shared state).
#ifndef INFERD_FRONTENDS_GRPC_LOG_SETTINGS_HANDLER_H_
#define INFERD_FRONTENDS_GRPC_LOG_SETTINGS_HANDLER_H_

#include <string>
#include <string_view>

#include "grpc_service.pb.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::grpc_frontend {

// The request's settings as the JSON object the server API takes: bool_param
// -> true/false, uint32_param -> a number, string_param -> a string, and a
// value with no parameter set -> null (left unchanged, as the HTTP endpoint
// does with null).
std::string LogSettingsUpdateJson(const inference::LogSettingsRequest& request);

// Fills `response` from the server's settings document: booleans, unsigned
// integers and strings become bool_param, uint32_param and string_param.
Status LogSettingsFromJson(std::string_view json, inference::LogSettingsResponse* response);

// INVALID_ARG naming the setting for an unknown key or a value of the
// wrong kind, UNSUPPORTED for a log_file other than the one in force (set
// only at start, with --log-file); no setting changes then.
Status LogSettings(INFERD_Server* server, const inference::LogSettingsRequest& request,
                   inference::LogSettingsResponse* response);

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_LOG_SETTINGS_HANDLER_H_
