// The model patterns of an API key ("fraud_*"): shell-style globs where `*`
// matches any run of characters (none included) and `?` any one; every other
// character matches itself. Pure; thread-safe.
#ifndef INFERD_FRONTENDS_COMMON_AUTH_MODEL_GLOB_H_
#define INFERD_FRONTENDS_COMMON_AUTH_MODEL_GLOB_H_

#include <string_view>

namespace inferd::auth {

// Whether `text` matches `pattern` as a whole. Linear in practice: a `*`
// retries from the last star only (no backtracking explosion).
bool GlobMatch(std::string_view pattern, std::string_view text);

}  // namespace inferd::auth

#endif  // INFERD_FRONTENDS_COMMON_AUTH_MODEL_GLOB_H_
