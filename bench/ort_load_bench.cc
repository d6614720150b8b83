// inferd_ort_load_bench: what ONNX Runtime alone needs to load N models, as the
// floor under bench.py's "start to ready, 100 ONNX models": the environment the
// onnxruntime backend makes (global thread pools, one per core, no spinning,
// telemetry off), then one session per model created on --threads threads (the
// server's --model-load-thread-count), sessions sharing the global pools as the
// backend's do. No server, no configs, no instances: a model's load in
// inferd cannot take less than this.
//
//   inferd_ort_load_bench MODEL.onnx [--sessions 100] [--threads 4]
//
// Prints one JSON line: {"sessions", "threads", "env_ms", "sessions_ms"} (wall
// times inside the process); bench.py times the whole process, launch to exit,
// as the figure comparable to a server's start. Exits at once after printing
// (no teardown, as a server killed at ready has none). Exit status 1 with a
// message on stderr on any error.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "onnxruntime_c_api.h"

namespace {

const OrtApi* g_ort = nullptr;

void Check(OrtStatus* status, const char* what) {
  if (status == nullptr) return;
  std::fprintf(stderr, "inferd_ort_load_bench: %s: %s\n", what, g_ort->GetErrorMessage(status));
  std::_Exit(1);
}

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

OrtEnv* CreateEnvLikeTheBackend() {
  setenv("ORT_DISABLE_TELEMETRY", "1", 0);
  OrtThreadingOptions* threading = nullptr;
  Check(g_ort->CreateThreadingOptions(&threading), "CreateThreadingOptions");
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  Check(g_ort->SetGlobalIntraOpNumThreads(threading, cores), "SetGlobalIntraOpNumThreads");
  Check(g_ort->SetGlobalInterOpNumThreads(threading, 1), "SetGlobalInterOpNumThreads");
  Check(g_ort->SetGlobalSpinControl(threading, 0), "SetGlobalSpinControl");
  OrtEnv* env = nullptr;
  Check(g_ort->CreateEnvWithGlobalThreadPools(ORT_LOGGING_LEVEL_WARNING, "inferd_ort_load_bench",
                                              threading, &env),
        "CreateEnvWithGlobalThreadPools");
  Check(g_ort->DisableTelemetryEvents(env), "DisableTelemetryEvents");
  g_ort->ReleaseThreadingOptions(threading);
  return env;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL.onnx [--sessions N] [--threads N]\n", argv[0]);
    return 1;
  }
  const char* model = argv[1];
  int sessions = 100;
  int threads = 4;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--sessions") == 0) sessions = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--threads") == 0) threads = std::max(1, std::atoi(argv[i + 1]));
  }
  g_ort = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  const auto start = std::chrono::steady_clock::now();
  OrtEnv* env = CreateEnvLikeTheBackend();
  const double env_ms = MillisecondsSince(start);

  OrtSessionOptions* options = nullptr;
  Check(g_ort->CreateSessionOptions(&options), "CreateSessionOptions");
  Check(g_ort->DisablePerSessionThreads(options), "DisablePerSessionThreads");
  const auto sessions_start = std::chrono::steady_clock::now();
  std::atomic<int> next{0};
  auto worker = [&] {
    // Kept, not released: the server keeps its models too.
    for (int i = next++; i < sessions; i = next++) {
      OrtSession* session = nullptr;
      Check(g_ort->CreateSession(env, model, options, &session), "CreateSession");
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& thread : pool) thread.join();
  const double sessions_ms = MillisecondsSince(sessions_start);
  std::printf("{\"sessions\": %d, \"threads\": %d, \"env_ms\": %.2f, \"sessions_ms\": %.2f}\n",
              sessions, threads, env_ms, sessions_ms);
  std::fflush(stdout);
  std::_Exit(0);
}
