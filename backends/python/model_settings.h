// What every instance of one Python model version shares: where model.py and
// the interpreter are, the configuration, the shared memory sizes. Built once
// in INFERD_ModelInitialize; constant after that.
#ifndef INFERD_BACKENDS_PYTHON_MODEL_SETTINGS_H_
#define INFERD_BACKENDS_PYTHON_MODEL_SETTINGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "inferd/backend.h"
#include "inferd/base/status.h"

namespace inferd::python {

struct ModelSettings {
  INFERD_Model* model = nullptr;  // the version these settings are of
  std::string model_name;
  uint64_t version = 0;
  std::string repository_path;  // <repository>/<model>
  std::string model_file;       // <repository>/<model>/<version>/model.py
  std::string config_json;
  bool decoupled = false;
  // sequence_batching { iterative_sequence: true }: execute() may reschedule
  // a request (set_release_flags), so the request stays the backend's until
  // execute() returned.
  bool iterative = false;
  // The interpreter: /usr/bin/python3, or <EXECUTION_ENV_PATH>/bin/python3.
  std::string python;
  std::string stub_script;  // inferd_python_stub.py beside the backend library
  uint64_t shm_request_bytes = 64ull << 20;
  uint64_t shm_ring_bytes = 64ull << 20;
  // How long the backend and the stub poll for the other's next message
  // before they sleep (--backend-config=python,spin-us=N), while their
  // previous wait was that short (AdaptiveSpin). Off by default: on a busy
  // 2-core box a poller takes the core the other side needs (bench section
  // 7: HTTP c1 tax 48 us without, 93 us polling 50 us; gRPC c16 2.6x less).
  uint64_t spin_us = 0;
  // The most the thread that handed a batch to the stub polls for its answer
  // before it sleeps (--backend-config=python,execute-spin-us=N; 0: never),
  // as the recent turnarounds say it is due (TurnaroundSpin): on the dev VM
  // a sleeping waiter's wake-up costs more CPU than a trivial execute() takes.
  // Short, because an answer polled for longer costs more CPU than the sleep
  // it saves: at 1,000 req/s over gRPC, polling up to 100 us spent 37 to 51 us
  // per request polling for answers that came 40 to 60 us late; up to 30 us,
  // 0.5 us.
  uint64_t execute_spin_us = 30;

  // The stub's command line.
  std::vector<std::string> StubArgv() const;
  // "python model 'name' version N"
  std::string Label() const;
};

// Reads `model`'s settings (its configuration as it stands now) and the
// backend's (--backend-config=python,shm-region-size=BYTES,spin-us=N,
// execute-spin-us=N).
Status LoadModelSettings(INFERD_Model* model, ModelSettings* settings);

// The folder of the shared library holding this code (the backend's folder).
std::string BackendLibraryDir();

}  // namespace inferd::python

#endif  // INFERD_BACKENDS_PYTHON_MODEL_SETTINGS_H_
