// JSON of the logging extension: the settings document GET /v2/logging
// answers with, and the update a POST carries. Pure; thread-safe.
#ifndef INFERD_CORE_SERVER_LOG_SETTINGS_JSON_H_
#define INFERD_CORE_SERVER_LOG_SETTINGS_JSON_H_

#include <string>
#include <string_view>

#include "core/common/logging.h"
#include "inferd/base/status.h"

namespace inferd {

// {"log_file": "", "log_info": true, "log_warning": true, "log_error": true,
//  "log_verbose_level": 0, "log_format": "default"}, in Triton's key order.
std::string LogSettingsJson(const LogSettings& settings);

// `current` with the keys of `update` (a JSON object) applied; a key whose
// value is null, and an empty or all-blank `update`, change nothing. Returns
// INVALID_ARG naming the key for an unknown key or a value of the wrong type
// or range (log_verbose_level: an integer 0..4294967295; log_format: "default"
// or "ISO8601"), and when `update` is not a JSON object. A log_file other than
// `current.file` is UNSUPPORTED (as in Triton, the file is set only at start,
// with --log-file: a network client must not choose a file the server appends
// to); the same value is accepted and changes nothing. Any error: no setting
// changes.
StatusOr<LogSettings> ApplyLogSettingsUpdate(const LogSettings& current, std::string_view update);

}  // namespace inferd

#endif  // INFERD_CORE_SERVER_LOG_SETTINGS_JSON_H_
