// The inferd binary: command-line flags (Triton's names) -> an in-process
// server (server.h) -> the HTTP frontend; then waits for SIGINT or SIGTERM and
// shuts down gracefully.
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <spdlog/spdlog.h>
#include <string>
#include <vector>

#include "frontends/http/http_server.h"
#include "inferd/server.h"

namespace {

struct Flags {
  std::vector<std::string> model_repositories;
  std::string backend_directory;
  std::vector<std::string> backend_configs;
  bool allow_http = true;
  std::string http_address = "0.0.0.0";
  int http_port = 8000;
  int http_thread_count = 0;
  int log_verbose = 0;
  bool log_info = true;
  bool log_warning = true;
  bool log_error = true;
  int exit_timeout_secs = 30;
  bool strict_model_config = true;
};

// Prints an error (and frees it); returns true when there was one.
bool Failed(INFERD_Error* error, const char* what) {
  if (error == nullptr) return false;
  std::fprintf(stderr, "error: %s: %s\n", what, INFERD_ErrorMessage(error));
  INFERD_ErrorDelete(error);
  return true;
}

// <directory of this executable>/backends, where `make build` puts them.
std::string DefaultBackendDirectory() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "backends" : (exe.parent_path() / "backends").string();
}

void AddFlags(CLI::App& app, Flags& f) {
  app.add_option("--model-repository,--model-store", f.model_repositories,
                 "Model repository folder; repeat the flag for several")
      ->required();
  app.add_option("--backend-directory", f.backend_directory,
                 "Folder holding <backend>/libinferd_<backend>.so (default: <binary dir>/backends)");
  app.add_option("--backend-config", f.backend_configs,
                 "Backend setting as <backend>,<setting>=<value>; repeatable");
  app.add_option("--allow-http", f.allow_http, "Serve HTTP/REST (default true)");
  app.add_option("--http-address", f.http_address, "Address the HTTP server binds (default 0.0.0.0)");
  app.add_option("--http-port", f.http_port, "HTTP port (default 8000; 0 picks a free port)");
  app.add_option("--http-thread-count", f.http_thread_count,
                 "Threads serving HTTP (default: number of cores, at least 2)");
  app.add_option("--log-verbose", f.log_verbose, "Verbose logging level (0 = off)");
  app.add_option("--log-info", f.log_info, "Print info lines (default true)");
  app.add_option("--log-warning", f.log_warning, "Print warning lines (default true)");
  app.add_option("--log-error", f.log_error, "Print error lines (default true)");
  app.add_option("--exit-timeout-secs", f.exit_timeout_secs,
                 "On SIGINT/SIGTERM, how long to wait for in-flight requests (default 30)");
  app.add_option("--strict-model-config", f.strict_model_config,
                 "Require config.pbtxt for every model (default true)");
}

// Parses "<backend>,<setting>=<value>".
bool AddBackendConfig(INFERD_ServerOptions* options, const std::string& spec) {
  const size_t comma = spec.find(',');
  const size_t equals = spec.find('=', comma == std::string::npos ? 0 : comma);
  if (comma == std::string::npos || equals == std::string::npos) {
    std::fprintf(stderr, "error: --backend-config '%s': expected <backend>,<setting>=<value>\n",
                 spec.c_str());
    return false;
  }
  return !Failed(INFERD_ServerOptionsSetBackendConfig(
                     options, spec.substr(0, comma).c_str(),
                     spec.substr(comma + 1, equals - comma - 1).c_str(),
                     spec.substr(equals + 1).c_str()),
                 "--backend-config");
}

INFERD_Server* CreateServer(const Flags& f) {
  INFERD_ServerOptions* options = nullptr;
  if (Failed(INFERD_ServerOptionsNew(&options), "server options")) return nullptr;
  for (const std::string& repo : f.model_repositories) {
    INFERD_ErrorDelete(INFERD_ServerOptionsAddModelRepositoryPath(options, repo.c_str()));
  }
  const std::string backends =
      f.backend_directory.empty() ? DefaultBackendDirectory() : f.backend_directory;
  INFERD_ErrorDelete(INFERD_ServerOptionsSetBackendDirectory(options, backends.c_str()));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetExitTimeout(options, f.exit_timeout_secs));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetStrictModelConfig(options, f.strict_model_config));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetLogVerbose(options, f.log_verbose));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetLogInfo(options, f.log_info));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetLogWarn(options, f.log_warning));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetLogError(options, f.log_error));
  bool ok = true;
  for (const std::string& spec : f.backend_configs) ok = ok && AddBackendConfig(options, spec);
  INFERD_Server* server = nullptr;
  if (ok) Failed(INFERD_ServerNew(&server, options), "creating the server");
  INFERD_ServerOptionsDelete(options);
  return server;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"inferd: a model-inference server for Triton-style model repositories"};
  Flags flags;
  AddFlags(app, flags);
  CLI11_PARSE(app, argc, argv);

  // Signals are taken synchronously by sigwait below; every thread started
  // from here on inherits the blocked mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  INFERD_Server* server = CreateServer(flags);
  if (server == nullptr) return 1;

  std::unique_ptr<inferd::http::HttpServer> http;
  if (flags.allow_http) {
    inferd::http::HttpOptions http_options;
    http_options.address = flags.http_address;
    http_options.port = static_cast<uint16_t>(flags.http_port);
    http_options.thread_count = flags.http_thread_count;
    http = std::make_unique<inferd::http::HttpServer>(server, http_options);
    const std::string error = http->Start();
    if (!error.empty()) {
      spdlog::error("failed to start the HTTP service on {}:{}: {}", flags.http_address,
                    flags.http_port, error);
      INFERD_ServerDelete(server);
      return 1;
    }
    spdlog::info("Started HTTPService at {}:{}", flags.http_address, http->port());
  }

  int signal_number = 0;
  sigwait(&signals, &signal_number);
  spdlog::info("received signal {}; waiting up to {}s for in-flight requests", signal_number,
               flags.exit_timeout_secs);
  // Stop the server first (new requests are refused, in-flight ones finish and
  // are answered over the still-running frontend), then the frontend.
  const bool clean = !Failed(INFERD_ServerStop(server), "stopping the server");
  if (http) http->Stop();
  INFERD_ServerDelete(server);
  spdlog::info("inferd exited");
  return clean ? 0 : 1;
}
