// A real server over a temporary repository, for the fuzz targets.
#include "fuzz/fuzz_server.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <google/protobuf/stubs/logging.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace inferd::fuzz {
namespace {

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "fuzz server: %s\n", what.c_str());
  std::abort();
}

void Check(INFERD_Error* error, const char* what) {
  if (error == nullptr) return;
  Die(std::string(what) + ": " + INFERD_ErrorMessage(error));
}

void WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) Die("cannot write " + path.string());
}

std::vector<std::string> g_keys;  // unlinked at exit
std::string g_root;               // removed at exit

void CleanUp() {
  for (const std::string& key : g_keys) shm_unlink(key.c_str());
  std::error_code ec;
  if (!g_root.empty()) std::filesystem::remove_all(g_root, ec);
}

// A shared memory object of kRegionBytes bytes, each byte its offset mod 251.
std::string CreateRegion(int index) {
  const std::string key =
      "/inferd-fuzz-" + std::to_string(getpid()) + "-" + std::to_string(index);
  const int fd = shm_open(key.c_str(), O_CREAT | O_RDWR | O_TRUNC, 0600);
  if (fd < 0 || ftruncate(fd, kRegionBytes) != 0) Die("cannot create shared memory " + key);
  void* bytes = mmap(nullptr, kRegionBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (bytes == MAP_FAILED) Die("cannot map shared memory " + key);
  for (size_t i = 0; i < kRegionBytes; ++i) static_cast<unsigned char*>(bytes)[i] = i % 251;
  munmap(bytes, kRegionBytes);
  g_keys.push_back(key);
  return key;
}

}  // namespace

std::string IdentityConfig(const std::string& name, const std::string& data_type,
                           int max_batch_size) {
  return "name: \"" + name + "\"\nbackend: \"identity\"\nmax_batch_size: " +
         std::to_string(max_batch_size) +
         "\ninput [ { name: \"INPUT0\" data_type: " + data_type +
         " dims: [ -1 ] } ]\noutput [ { name: \"OUTPUT0\" data_type: " + data_type +
         " dims: [ -1 ] } ]\n";
}

FuzzServer* StartFuzzServer(const FuzzServerOptions& options, int region_count) {
  // Protobuf logs every string field with invalid UTF-8 it parses: noise here.
  google::protobuf::SetLogHandler(nullptr);
  auto* fuzz = new FuzzServer;
  std::string pattern =
      (std::filesystem::temp_directory_path() / "inferd-fuzz-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) Die("cannot create a temporary folder");
  fuzz->root = pattern;
  g_root = pattern;
  std::atexit(CleanUp);
  fuzz->repository = fuzz->root + "/repository";
  fuzz->temp = fuzz->root + "/tmp";
  std::filesystem::create_directories(fuzz->repository);
  std::filesystem::create_directories(fuzz->temp);
  // The server's own temporary files (file overrides) go here.
  setenv("TMPDIR", fuzz->temp.c_str(), 1);
  for (const auto& [name, config] : options.models) {
    WriteFile(std::filesystem::path(fuzz->repository) / name / "config.pbtxt", config);
    std::filesystem::create_directories(std::filesystem::path(fuzz->repository) / name / "1");
  }

  INFERD_ServerOptions* server_options = nullptr;
  Check(INFERD_ServerOptionsNew(&server_options), "server options");
  Check(INFERD_ServerOptionsAddModelRepositoryPath(server_options, fuzz->repository.c_str()),
        "repository");
  Check(INFERD_ServerOptionsSetBackendDirectory(
            server_options, options.backend_directory.empty()
                                ? INFERD_FUZZ_BACKEND_DIRECTORY
                                : options.backend_directory.c_str()),
        "backend directory");
  Check(INFERD_ServerOptionsSetModelControlMode(server_options, options.control_mode),
        "control mode");
  // Errors are the fuzzer's everyday answers: logging them would drown its output.
  Check(INFERD_ServerOptionsSetLogInfo(server_options, false), "log info");
  Check(INFERD_ServerOptionsSetLogWarn(server_options, false), "log warn");
  Check(INFERD_ServerOptionsSetLogError(server_options, false), "log error");
  Check(INFERD_ServerNew(&fuzz->server, server_options), "server");
  INFERD_ServerOptionsDelete(server_options);

  for (int i = 0; i < region_count; ++i) {
    const std::string key = CreateRegion(i);
    fuzz->region_keys.push_back(key);
    const Status s = fuzz->registry.Register("region" + std::to_string(i), key, 0, kRegionBytes);
    if (!s.ok()) Die("cannot register " + key + ": " + s.message());
  }
  return fuzz;
}

void CheckNothingEscaped(const FuzzServer& server) {
  for (const auto& entry : std::filesystem::directory_iterator(server.root)) {
    const std::string path = entry.path().string();
    if (path != server.repository && path != server.temp) Die("a load wrote " + path);
  }
  for (const auto& entry : std::filesystem::directory_iterator(server.temp)) {
    if (entry.path().filename().string().rfind("inferd-model-", 0) != 0) {
      Die("a load wrote " + entry.path().string());
    }
  }
}

}  // namespace inferd::fuzz
