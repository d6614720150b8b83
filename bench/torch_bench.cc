// inferd_torch_bench: runs a TorchScript model in-process with LibTorch (the
// same libtorch the pytorch backend uses, under the same InferenceMode) at a
// fixed batch size, as the ceiling a server can approach. forward() must take
// one FP32 tensor [batch, width]; it is filled with a constant.
//
//   inferd_torch_bench MODEL.pt --width W [--batch 64] [--threads N] [--seconds 5]
//
// Prints one JSON line: {"batch", "threads", "runs", "seconds", "rows_per_s",
// "ms_per_batch", "cpu_us_per_row"} (cpu: the process's user + system time over
// the timed runs, every thread). Exit status 1 with a message on stderr on any
// error.
#include <ATen/Parallel.h>
#include <torch/script.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "process_cpu.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s MODEL.pt --width W [--batch N] [--threads N] [--seconds S]\n",
                 argv[0]);
    return 1;
  }
  const char* model_path = argv[1];
  int64_t batch = 64;
  int64_t width = 0;
  int threads = static_cast<int>(std::thread::hardware_concurrency());
  double seconds = 5.0;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--batch") == 0) batch = std::atoll(argv[i + 1]);
    else if (std::strcmp(argv[i], "--width") == 0) width = std::atoll(argv[i + 1]);
    else if (std::strcmp(argv[i], "--threads") == 0) threads = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--seconds") == 0) seconds = std::atof(argv[i + 1]);
  }
  if (width <= 0) {
    std::fprintf(stderr, "inferd_torch_bench: --width W (the input's second dimension) is needed\n");
    return 1;
  }
  try {
    (void)at::get_num_threads();
    at::set_num_threads(threads);
    torch::jit::Module module = torch::jit::load(model_path);
    module.eval();
    c10::InferenceMode guard;
    const at::Tensor input = torch::full({batch, width}, 0.5f);
    auto run_once = [&] { (void)module.forward({input}); };
    for (int i = 0; i < 3; ++i) run_once();  // warm-up (and the profiling executor's runs)
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = ProcessCpuSeconds();
    int64_t runs = 0;
    double elapsed = 0;
    while (elapsed < seconds) {
      run_once();
      ++runs;
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    const double cpu = ProcessCpuSeconds() - cpu_start;
    const double rows = static_cast<double>(runs * batch);
    std::printf(
        "{\"batch\": %lld, \"threads\": %d, \"runs\": %lld, \"seconds\": %.3f, "
        "\"rows_per_s\": %.1f, \"ms_per_batch\": %.3f, \"cpu_us_per_row\": %.1f}\n",
        static_cast<long long>(batch), threads, static_cast<long long>(runs), elapsed,
        rows / elapsed, 1000.0 * elapsed / static_cast<double>(runs), 1e6 * cpu / rows);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "inferd_torch_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
