// C ABI: the logging extension (server.h).
#include "core/api/error.h"
#include "core/common/logging.h"
#include "core/server/log_settings_json.h"

using inferd::GuardedCall;
using inferd::LogSettings;
using inferd::Status;
using inferd::StatusOr;

extern "C" {

INFERD_Error* INFERD_ServerLogSettings(INFERD_Server* server, INFERD_Message** settings) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(server);
    INFERD_REQUIRE_ARG(settings);
    *settings = new INFERD_Message{inferd::LogSettingsJson(inferd::CurrentLogSettings())};
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerUpdateLogSettings(INFERD_Server* server, const char* json,
                                            size_t byte_size, INFERD_Message** settings) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(server);
    INFERD_REQUIRE_ARG(settings);
    if (json == nullptr && byte_size > 0) INFERD_REQUIRE_ARG(json);
    const std::string_view update(json == nullptr ? "" : json, byte_size);
    LogSettings applied;
    RETURN_IF_ERROR(inferd::UpdateLogging(
        [&](const LogSettings& current) -> StatusOr<LogSettings> {
          return inferd::ApplyLogSettingsUpdate(current, update);
        },
        &applied));
    *settings = new INFERD_Message{inferd::LogSettingsJson(applied)};
    return Status::Ok();
  });
}

}  // extern "C"
