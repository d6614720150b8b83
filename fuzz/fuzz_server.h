// What the fuzz targets that need a running server share: a real in-process
// INFERD_Server (the server C API, as the binary's frontends use it) over a
// model repository written into a fresh temporary folder, with the identity
// backend of the same build, and system shared memory regions the fuzzer's
// requests can name. $TMPDIR is pointed into that folder first, so whatever
// the server writes (file overrides of repository loads) stays inside it.
// Built once per process; never freed (libFuzzer exits the process).
#ifndef INFERD_FUZZ_FUZZ_SERVER_H_
#define INFERD_FUZZ_FUZZ_SERVER_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "common/shared_memory_registry.h"
#include "inferd/server.h"

namespace inferd::fuzz {

struct FuzzServerOptions {
  // (folder name, config.pbtxt) of each model; each gets a version 1 folder.
  std::vector<std::pair<std::string, std::string>> models;
  // EXPLICIT: nothing loaded at start (repository loads); NONE: every model.
  INFERD_ModelControlMode control_mode = INFERD_MODEL_CONTROL_NONE;
  // Where the server looks for backends; empty: this build's backends/.
  std::string backend_directory;
};

struct FuzzServer {
  std::string root;        // the temporary folder holding everything below
  std::string repository;  // root/repository
  std::string temp;        // root/tmp, the server's $TMPDIR
  INFERD_Server* server = nullptr;
  SharedMemoryRegistry registry;
  // shm_open keys of the regions Register created, each `kRegionBytes` long.
  std::vector<std::string> region_keys;
};

inline constexpr size_t kRegionBytes = 4096;

// Starts the server (aborts with a message when it cannot), then creates and
// registers `region_count` shared memory objects as regions "region0", ...
// (the objects are unlinked at exit).
FuzzServer* StartFuzzServer(const FuzzServerOptions& options, int region_count);

// The model config of an identity model `name` with one input and output of
// `data_type` (a config.pbtxt type such as TYPE_FP32) and dims [ -1 ].
std::string IdentityConfig(const std::string& name, const std::string& data_type,
                           int max_batch_size);

// Aborts when `root` holds anything but `repository` and `tmp`: a load wrote
// outside the folders it may use.
void CheckNothingEscaped(const FuzzServer& server);

}  // namespace inferd::fuzz

#endif  // INFERD_FUZZ_FUZZ_SERVER_H_
