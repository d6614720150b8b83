// inferd check (inferd-check-config): checks a model repository the way
// inferd would load it, without loading anything: every config.pbtxt is
// parsed, completed with Triton's defaults and validated (errors name file,
// line, column, model and field, and suggest a fix), the version policy is
// applied to the version folders, ensembles' wiring is checked against their
// steps' configurations, and the backend library each version would use is
// looked for. Prints one line per model (and per problem), or the report as
// JSON (--format=json), and exits 0 when every model would load, 1
// otherwise, 2 on a bad command line or an unreadable repository. A
// repository may be an object store URL (s3://, gs://, as://): each model
// checked is copied into the server's model cache first, as a start would.
//
// It asks the server API (INFERD_RepositoryCheck in server.h), so its reasons
// are the loader's own. What it cannot see: errors only the backend finds (a
// model file it cannot read, a config it completes from the model file,
// shapes the model rejects).
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "inferd/server.h"
#include "load_check.h"

namespace {

struct Flags {
  std::vector<std::string> repositories;
  std::string cache_directory;  // object stores' copies; "": the server's default
  std::string backend_directory;
  bool disable_auto_complete_config = false;
  bool strict_model_config = false;  // deprecated inverse of the above
  std::string model_config_name;
  std::vector<std::string> models;  // empty: every model
  bool quiet = false;
  bool load = false;
  std::string format = "text";
};

// <folder of this executable>/../backends: where `make build` puts them.
std::string DefaultBackendDirectory() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "backends" : (exe.parent_path().parent_path() / "backends").string();
}

// Prints `error`'s message to stderr, frees it and returns true; false for OK.
// What separates a problem from its suggested fix in every message.
constexpr std::string_view kFixSeparator = "; fix: ";

bool Failed(INFERD_Error* error) {
  if (error == nullptr) return false;
  std::fprintf(stderr, "error: %s\n", INFERD_ErrorMessage(error));
  INFERD_ErrorDelete(error);
  return true;
}

// Server options as the flags describe them, or null after printing why not.
INFERD_ServerOptions* MakeOptions(const Flags& flags) {
  INFERD_ServerOptions* options = nullptr;
  if (Failed(INFERD_ServerOptionsNew(&options))) return nullptr;
  bool ok = true;
  for (const std::string& repository : flags.repositories) {
    ok = ok && !Failed(INFERD_ServerOptionsAddModelRepositoryPath(options, repository.c_str()));
  }
  ok = ok && !Failed(INFERD_ServerOptionsSetModelRepositoryCache(
                    options, flags.cache_directory.c_str(), 0));
  const std::string backends =
      flags.backend_directory.empty() ? DefaultBackendDirectory() : flags.backend_directory;
  ok = ok && !Failed(INFERD_ServerOptionsSetBackendDirectory(options, backends.c_str()));
  ok = ok && !Failed(INFERD_ServerOptionsSetStrictModelConfig(
                    options, flags.disable_auto_complete_config || flags.strict_model_config));
  ok = ok && !Failed(INFERD_ServerOptionsSetModelConfigName(options,
                                                            flags.model_config_name.c_str()));
  if (ok) return options;
  INFERD_ServerOptionsDelete(options);
  return nullptr;
}

// The server API's report as JSON text, or "" after printing why not.
std::string CheckReport(const Flags& flags) {
  INFERD_ServerOptions* options = MakeOptions(flags);
  if (options == nullptr) return "";
  bool ok = true;
  std::vector<const char*> names;
  for (const std::string& name : flags.models) names.push_back(name.c_str());
  INFERD_Message* report = nullptr;
  ok = ok && !Failed(INFERD_RepositoryCheck(options, names.data(),
                                            static_cast<uint32_t>(names.size()), &report));
  INFERD_ServerOptionsDelete(options);
  if (!ok) return "";
  const char* base = nullptr;
  size_t size = 0;
  std::string json;
  if (!Failed(INFERD_MessageSerializeToJson(report, &base, &size))) json.assign(base, size);
  INFERD_MessageDelete(report);
  return json;
}

std::string Joined(const rapidjson::Value& values, const char* separator) {
  std::string joined;
  for (const auto& value : values.GetArray()) {
    if (!joined.empty()) joined += separator;
    joined += value.IsString() ? value.GetString() : std::to_string(value.GetInt64());
  }
  return joined;
}

// Prints one model's lines.
void PrintModel(const rapidjson::Value& model, bool quiet) {
  for (const auto& error : model["errors"].GetArray()) {
    std::printf("error  %s\n", error.GetString());
  }
  if (!model["ok"].GetBool() || quiet) return;
  if (model["backend"].GetStringLength() == 0 && model["libraries"].Empty() &&
      !model["completed_by_backend"].GetBool()) {
    std::printf("ok     %s: versions %s, ensemble\n", model["name"].GetString(),
                Joined(model["versions"], ",").c_str());
    return;
  }
  std::printf("ok     %s: versions %s, backend '%s' (%s)%s\n", model["name"].GetString(),
              Joined(model["versions"], ",").c_str(), model["backend"].GetString(),
              Joined(model["libraries"], ", ").c_str(),
              model["completed_by_backend"].GetBool()
                  ? "; no config.pbtxt: the backend completes the configuration at load"
                  : "");
}

// Without --model-repository the first argument is the repository:
// inferd check REPO [MODEL ...]. False after printing why not.
bool TakeRepositoryArgument(Flags& flags) {
  if (!flags.repositories.empty()) return true;
  if (flags.models.empty()) {
    std::fprintf(stderr, "error: name a repository: inferd check REPO [MODEL ...]\n");
    return false;
  }
  flags.repositories.push_back(flags.models.front());
  flags.models.erase(flags.models.begin());
  return true;
}

// Adds to the report what loading each model that passed found (--load).
bool AddLoadErrors(const Flags& flags, rapidjson::Document& report) {
  std::vector<std::string> passed;
  for (const auto& model : report["models"].GetArray()) {
    if (model["ok"].GetBool()) passed.push_back(model["name"].GetString());
  }
  if (passed.empty()) return true;
  INFERD_ServerOptions* options = MakeOptions(flags);
  if (options == nullptr) return false;
  const std::map<std::string, std::string> errors = inferd_check::LoadErrors(options, passed);
  if (auto setup = errors.find(""); setup != errors.end()) {
    std::fprintf(stderr, "error: cannot start a server to load the models: %s\n",
                 setup->second.c_str());
    return false;
  }
  auto& alloc = report.GetAllocator();
  for (auto& model : report["models"].GetArray()) {
    auto error = errors.find(model["name"].GetString());
    if (error == errors.end()) continue;
    const std::string& text = error->second;
    const size_t fix = text.find(kFixSeparator);
    rapidjson::Value problem(rapidjson::kObjectType);
    auto add = [&](const char* key, const std::string& value) {
      problem.AddMember(rapidjson::StringRef(key), rapidjson::Value(value.c_str(), alloc), alloc);
    };
    add("file", "");
    problem.AddMember("line", 0, alloc);
    problem.AddMember("column", 0, alloc);
    add("model", model["name"].GetString());
    add("field", "");
    add("message", text.substr(0, fix));
    add("fix", fix == std::string::npos ? "" : text.substr(fix + kFixSeparator.size()));
    model["ok"] = false;
    model["errors"].PushBack(rapidjson::Value(text.c_str(), alloc), alloc);
    model["problems"].PushBack(problem, alloc);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"inferd check: checks a model repository without loading it"};
  Flags flags;
  app.add_option("--model-repository,--model-store", flags.repositories,
                 "Model repository folder or s3://, gs://, as:// URL; repeat the flag for "
                 "several (without it, the first argument is the repository)")
      ->allow_extra_args(false);  // what follows is a model name, not another folder
  app.add_option("--model-repository-cache-directory", flags.cache_directory,
                 "Where an object store's models are copied to be checked, as inferd's flag "
                 "(default ~/.cache/inferd/model-repositories)");
  app.add_option("--backend-directory", flags.backend_directory,
                 "Folder holding <backend>/libinferd_<backend>.so (default: the build's)");
  app.add_flag("--disable-auto-complete-config", flags.disable_auto_complete_config,
               "Require a whole config.pbtxt for every model, as inferd's flag");
  app.add_option("--strict-model-config", flags.strict_model_config,
                 "Deprecated inverse of --disable-auto-complete-config (default false)");
  app.add_option("--model-config-name", flags.model_config_name,
                 "Read <model>/configs/<name>.pbtxt where it exists, as inferd's flag");
  app.add_option("models", flags.models, "Models to check (default: every model)");
  app.add_flag("-q,--quiet", flags.quiet, "Print only errors");
  app.add_flag("--load", flags.load,
               "Also load each model that passes, in this process, so that its backend checks "
               "the configuration against the model file (names, types, shapes)");
  app.add_option("--format", flags.format, "text (one line per model and problem) or json")
      ->check(CLI::IsMember({"text", "json"}));
  CLI11_PARSE(app, argc, argv);
  if (!TakeRepositoryArgument(flags)) return 2;

  const std::string json = CheckReport(flags);
  if (json.empty()) return 2;
  rapidjson::Document report;
  report.Parse(json.data(), json.size());
  if (report.HasParseError() || !report.HasMember("models")) {
    std::fprintf(stderr, "error: the server API returned an unreadable report\n");
    return 2;
  }
  if (flags.load && !AddLoadErrors(flags, report)) return 2;
  if (flags.format == "json") {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    report.Accept(writer);
    std::printf("%s\n", buffer.GetString());
  }
  int checked = 0, failed = 0;
  for (const auto& model : report["models"].GetArray()) {
    if (model["in_repository"].GetBool()) ++checked;
    if (!model["ok"].GetBool()) ++failed;
    if (flags.format == "text") PrintModel(model, flags.quiet);
  }
  if (!flags.quiet && flags.format == "text") {
    std::printf("%d model(s) checked, %d with errors\n", checked, failed);
  }
  return failed == 0 ? 0 : 1;
}
