// inferd-check-config: checks a model repository the way inferd would load
// it, without loading anything: every config.pbtxt is parsed, completed with
// Triton's defaults and validated (errors name file, line and field), the
// version policy is applied to the version folders, and the backend library
// each version would use is looked for. Prints one line per model (and per
// problem) and exits 0 when every model would load, 1 otherwise, 2 on a bad
// command line or an unreadable repository.
//
// What it cannot see: errors only the backend finds (a model file it cannot
// read, a config it completes from the model file, shapes the model rejects).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/backend/backend_manager.h"
#include "core/lifecycle/model_plan.h"
#include "core/repository/model_repository.h"

namespace {

using inferd::ModelLocation;
using inferd::ModelPlan;

struct Flags {
  std::vector<std::string> repositories;
  std::string backend_directory;
  bool strict_model_config = true;
  std::vector<std::string> models;  // empty: every model
  bool quiet = false;
};

// <folder of this executable>/../backends: where `make build` puts them.
std::string DefaultBackendDirectory() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "backends" : (exe.parent_path().parent_path() / "backends").string();
}

// The first existing backend library for `version`, or "" with *looked set to
// the paths tried.
std::string FindBackend(const inferd::BackendManager& backends, const ModelPlan& plan,
                        int64_t version, std::string* looked) {
  for (const auto& path : backends.Candidates(plan.config.backend(), plan.context.model_dir,
                                              version)) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) return path.string();
    *looked += (looked->empty() ? "" : ", ") + path.string();
  }
  return "";
}

// Checks one model; prints its lines; returns whether it would load.
bool CheckModel(const ModelLocation& location, const Flags& flags,
                const inferd::BackendManager& backends) {
  auto planned = inferd::PlanModel(location, std::nullopt, flags.strict_model_config);
  if (!planned.ok()) {
    std::printf("error  %s: %s\n", location.name.c_str(), planned.status().message().c_str());
    return false;
  }
  const ModelPlan& plan = planned.value();
  bool ok = plan.missing.empty();
  for (const auto& [version, reason] : plan.missing) std::printf("error  %s\n", reason.c_str());
  std::string versions, libraries;
  for (int64_t version : plan.load) {
    std::string looked;
    const std::string library = FindBackend(backends, plan, version, &looked);
    if (library.empty()) {
      std::printf("error  model '%s' version %lld: backend '%s' not found (looked for %s)\n",
                  location.name.c_str(), static_cast<long long>(version),
                  plan.config.backend().c_str(), looked.c_str());
      ok = false;
    } else if (libraries.find(library) == std::string::npos) {
      libraries += (libraries.empty() ? "" : ", ") + library;
    }
    versions += (versions.empty() ? "" : ",") + std::to_string(version);
  }
  if (ok && !flags.quiet) {
    std::printf("ok     %s: versions %s, backend '%s' (%s)%s\n", location.name.c_str(),
                versions.c_str(), plan.config.backend().c_str(), libraries.c_str(),
                plan.completed_by_backend
                    ? "; no config.pbtxt: the backend completes the configuration at load"
                    : "");
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"inferd-check-config: checks a model repository without loading it"};
  Flags flags;
  app.add_option("--model-repository,--model-store", flags.repositories,
                 "Model repository folder; repeat the flag for several")
      ->required()
      ->allow_extra_args(false);  // what follows is a model name, not another folder
  app.add_option("--backend-directory", flags.backend_directory,
                 "Folder holding <backend>/libinferd_<backend>.so (default: the build's)");
  app.add_option("--strict-model-config", flags.strict_model_config,
                 "Require config.pbtxt for every model (default true), as inferd's flag");
  app.add_option("models", flags.models, "Models to check (default: every model)");
  app.add_flag("-q,--quiet", flags.quiet, "Print only errors");
  CLI11_PARSE(app, argc, argv);

  std::vector<std::filesystem::path> roots(flags.repositories.begin(), flags.repositories.end());
  auto scanned = inferd::ScanRepositories(roots);
  if (!scanned.ok()) {
    std::fprintf(stderr, "error: %s\n", scanned.status().message().c_str());
    return 2;
  }
  inferd::BackendManager backends(
      flags.backend_directory.empty() ? DefaultBackendDirectory() : flags.backend_directory, {});
  std::set<std::string> wanted(flags.models.begin(), flags.models.end());
  const bool every_model = wanted.empty();
  int checked = 0, failed = 0;
  for (const ModelLocation& location : scanned.value()) {
    if (!every_model && wanted.erase(location.name) == 0) continue;
    ++checked;
    if (!CheckModel(location, flags, backends)) ++failed;
  }
  for (const std::string& name : wanted) {
    std::printf("error  %s: no such model in the repositories\n", name.c_str());
    ++failed;
  }
  if (!flags.quiet) std::printf("%d model(s) checked, %d with errors\n", checked, failed);
  return failed == 0 ? 0 : 1;
}
