// inferd_ort_bench: runs an ONNX model in-process with ONNX Runtime (the same
// libonnxruntime the onnxruntime backend uses) at a fixed batch size, as the
// ceiling a server can approach. Every input must be FP32 with a variable
// first dimension and fixed others; they are filled with a constant.
//
//   inferd_ort_bench MODEL.onnx [--batch 64] [--threads N] [--seconds 5] [--spin 0|1]
//
// --spin sets ORT's session.intra_op.allow_spinning (ORT's default is 1; the
// onnxruntime backend uses 0).
//
// Prints one JSON line: {"batch", "threads", "spin", "runs", "seconds", "rows_per_s",
// "ms_per_batch", "cpu_us_per_row"} (cpu: the process's user + system time over
// the timed runs, every thread). Exit status 1 with a message on stderr on any error.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "onnxruntime_c_api.h"
#include "process_cpu.h"

namespace {

const OrtApi* g_ort = nullptr;

void Check(OrtStatus* status, const char* what) {
  if (status == nullptr) return;
  std::fprintf(stderr, "inferd_ort_bench: %s: %s\n", what, g_ort->GetErrorMessage(status));
  std::exit(1);
}

struct Input {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> data;
  OrtValue* value = nullptr;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s MODEL.onnx [--batch N] [--threads N] [--seconds S] [--spin B]\n",
                 argv[0]);
    return 1;
  }
  const char* model = argv[1];
  int64_t batch = 64;
  int threads = static_cast<int>(std::thread::hardware_concurrency());
  double seconds = 5.0;
  const char* spin = "1";
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--batch") == 0) batch = std::atoll(argv[i + 1]);
    else if (std::strcmp(argv[i], "--threads") == 0) threads = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--seconds") == 0) seconds = std::atof(argv[i + 1]);
    else if (std::strcmp(argv[i], "--spin") == 0) spin = argv[i + 1];
  }
  g_ort = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  OrtEnv* env = nullptr;
  Check(g_ort->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "inferd_ort_bench", &env), "CreateEnv");
  OrtSessionOptions* options = nullptr;
  Check(g_ort->CreateSessionOptions(&options), "CreateSessionOptions");
  Check(g_ort->SetIntraOpNumThreads(options, threads), "SetIntraOpNumThreads");
  Check(g_ort->SetInterOpNumThreads(options, 1), "SetInterOpNumThreads");
  Check(g_ort->AddSessionConfigEntry(options, "session.intra_op.allow_spinning", spin), "--spin");
  OrtSession* session = nullptr;
  Check(g_ort->CreateSession(env, model, options, &session), "CreateSession");

  OrtAllocator* allocator = nullptr;
  Check(g_ort->GetAllocatorWithDefaultOptions(&allocator), "allocator");
  OrtMemoryInfo* memory = nullptr;
  Check(g_ort->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &memory), "memory");
  size_t input_count = 0, output_count = 0;
  Check(g_ort->SessionGetInputCount(session, &input_count), "inputs");
  Check(g_ort->SessionGetOutputCount(session, &output_count), "outputs");
  std::vector<Input> inputs(input_count);
  std::vector<const char*> input_names, output_names;
  std::vector<const OrtValue*> input_values;
  for (size_t i = 0; i < input_count; ++i) {
    char* name = nullptr;
    Check(g_ort->SessionGetInputName(session, i, allocator, &name), "input name");
    inputs[i].name = name;
    OrtTypeInfo* type = nullptr;
    Check(g_ort->SessionGetInputTypeInfo(session, i, &type), "input type");
    const OrtTensorTypeAndShapeInfo* info = nullptr;
    Check(g_ort->CastTypeInfoToTensorInfo(type, &info), "input tensor");
    size_t rank = 0;
    Check(g_ort->GetDimensionsCount(info, &rank), "rank");
    inputs[i].shape.resize(rank);
    Check(g_ort->GetDimensions(info, inputs[i].shape.data(), rank), "dims");
    g_ort->ReleaseTypeInfo(type);
    if (rank == 0) {
      std::fprintf(stderr, "inferd_ort_bench: input '%s' has no batch dimension\n", name);
      return 1;
    }
    inputs[i].shape[0] = batch;
    size_t count = 1;
    for (int64_t d : inputs[i].shape) count *= static_cast<size_t>(d > 0 ? d : 1);
    inputs[i].data.assign(count, 0.5f);
    Check(g_ort->CreateTensorWithDataAsOrtValue(
              memory, inputs[i].data.data(), count * sizeof(float), inputs[i].shape.data(), rank,
              ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &inputs[i].value),
          "input tensor");
    input_values.push_back(inputs[i].value);
    g_ort->ReleaseStatus(g_ort->AllocatorFree(allocator, name));
  }
  for (Input& in : inputs) input_names.push_back(in.name.c_str());
  std::vector<std::string> output_storage(output_count);
  for (size_t i = 0; i < output_count; ++i) {
    char* name = nullptr;
    Check(g_ort->SessionGetOutputName(session, i, allocator, &name), "output name");
    output_storage[i] = name;
    g_ort->ReleaseStatus(g_ort->AllocatorFree(allocator, name));
  }
  for (const std::string& name : output_storage) output_names.push_back(name.c_str());

  auto run_once = [&] {
    std::vector<OrtValue*> outputs(output_count, nullptr);
    Check(g_ort->Run(session, nullptr, input_names.data(), input_values.data(), input_count,
                     output_names.data(), output_count, outputs.data()),
          "Run");
    for (OrtValue* v : outputs) g_ort->ReleaseValue(v);
  };
  for (int i = 0; i < 3; ++i) run_once();  // warm-up
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
      "{\"batch\": %lld, \"threads\": %d, \"spin\": \"%s\", \"runs\": %lld, \"seconds\": %.3f, "
      "\"rows_per_s\": %.1f, \"ms_per_batch\": %.3f, \"cpu_us_per_row\": %.1f}\n",
      static_cast<long long>(batch), threads, spin, static_cast<long long>(runs), elapsed,
      rows / elapsed, 1000.0 * elapsed / static_cast<double>(runs), 1e6 * cpu / rows);
  for (Input& in : inputs) g_ort->ReleaseValue(in.value);
  g_ort->ReleaseMemoryInfo(memory);
  g_ort->ReleaseSession(session);
  g_ort->ReleaseSessionOptions(options);
  g_ort->ReleaseEnv(env);
  return 0;
}
