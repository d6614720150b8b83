// The /dashboard page's files, built into the binary (cmake/embed_files.cmake
// generates their arrays from src/frontends/http/dashboard/assets/ and
// third_party/uplot/). Immutable; thread-safe.
#ifndef INFERD_FRONTENDS_HTTP_DASHBOARD_DASHBOARD_FILES_H_
#define INFERD_FRONTENDS_HTTP_DASHBOARD_DASHBOARD_FILES_H_

#include <cstddef>
#include <string_view>

namespace inferd::http {

struct EmbeddedFile {
  std::string_view name;  // as the URL names it: /dashboard/<name>
  std::string_view body;
};

// Defined in the generated source.
extern const EmbeddedFile kDashboardFiles[];
extern const size_t kDashboardFilesCount;

// The file called `name`, or null.
const EmbeddedFile* FindDashboardFile(std::string_view name);

// The Content-Type of a file, from its name's extension.
std::string_view DashboardContentType(std::string_view name);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_DASHBOARD_DASHBOARD_FILES_H_
