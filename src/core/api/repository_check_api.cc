// C ABI: checking a repository without loading it (server.h).
#include "core/api/error.h"
#include "core/api/server_options_handle.h"
#include "core/lifecycle/repository_check.h"
#include "core/repository/repository_source.h"

using inferd::GuardedCall;
using inferd::Status;

extern "C" {

INFERD_Error* INFERD_RepositoryCheck(const INFERD_ServerOptions* options,
                                     const char* const* model_names, uint32_t model_count,
                                     INFERD_Message** report) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(options);
    INFERD_REQUIRE_ARG(report);
    if (model_count > 0) INFERD_REQUIRE_ARG(model_names);
    const inferd::ServerOptions& server = options->options;
    if (server.repository_paths.empty()) {
      return Status::InvalidArg("no model repository given (--model-repository)");
    }
    inferd::RepositoryCheckOptions check;
    check.repositories.assign(server.repository_paths.begin(), server.repository_paths.end());
    // Object store URLs too: each model checked is copied into the server's cache first.
    inferd::MirrorOptions mirror;
    mirror.dir = server.model_cache_directory;
    mirror.byte_limit = server.model_cache_bytes;
    auto source = inferd::OpenModelSource(server.repository_paths, false, std::move(mirror));
    if (!source.ok()) return source.status();
    check.source = std::move(source).value();
    check.backend_directory = server.backend_directory;
    check.strict_model_config = server.strict_model_config;
    check.model_config_name = server.model_config_name;
    for (uint32_t i = 0; i < model_count; ++i) {
      INFERD_REQUIRE_ARG(model_names[i]);
      check.models.emplace_back(model_names[i]);
    }
    auto checks = inferd::CheckRepository(check);
    if (!checks.ok()) return checks.status();
    *report = new INFERD_Message{inferd::RepositoryCheckJson(checks.value())};
    return Status::Ok();
  });
}

}  // extern "C"
