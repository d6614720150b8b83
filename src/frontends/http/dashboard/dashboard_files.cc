#include "http/dashboard/dashboard_files.h"

namespace inferd::http {

const EmbeddedFile* FindDashboardFile(std::string_view name) {
  for (size_t i = 0; i < kDashboardFilesCount; ++i) {
    if (kDashboardFiles[i].name == name) return &kDashboardFiles[i];
  }
  return nullptr;
}

std::string_view DashboardContentType(std::string_view name) {
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  return "text/plain; charset=utf-8";
}

}  // namespace inferd::http
