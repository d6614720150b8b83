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

struct Options {
  const char* model = nullptr;
  int64_t batch = 64;
  int threads = static_cast<int>(std::thread::hardware_concurrency());
  double seconds = 5.0;
  const char* spin = "1";
};

bool ParseOptions(int argc, char** argv, Options* options) {
  if (argc < 2) return false;
  options->model = argv[1];
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--batch") == 0) options->batch = std::atoll(argv[i + 1]);
    else if (std::strcmp(argv[i], "--threads") == 0) options->threads = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--seconds") == 0) options->seconds = std::atof(argv[i + 1]);
    else if (std::strcmp(argv[i], "--spin") == 0) options->spin = argv[i + 1];
  }
  return true;
}

// The session, with what its runs need: a tensor for every input and the
// names of every output.
struct Session {
  OrtEnv* env = nullptr;
  OrtSessionOptions* options = nullptr;
  OrtSession* session = nullptr;
  OrtMemoryInfo* memory = nullptr;
  std::vector<Input> inputs;
  std::vector<const char*> input_names;
  std::vector<const OrtValue*> input_values;
  std::vector<std::string> output_storage;
  std::vector<const char*> output_names;
};

void CreateSession(const Options& options, Session* s) {
  Check(g_ort->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "inferd_ort_bench", &s->env), "CreateEnv");
  Check(g_ort->CreateSessionOptions(&s->options), "CreateSessionOptions");
  Check(g_ort->SetIntraOpNumThreads(s->options, options.threads), "SetIntraOpNumThreads");
  Check(g_ort->SetInterOpNumThreads(s->options, 1), "SetInterOpNumThreads");
  Check(g_ort->AddSessionConfigEntry(s->options, "session.intra_op.allow_spinning",
                                     options.spin),
        "--spin");
  Check(g_ort->CreateSession(s->env, options.model, s->options, &s->session), "CreateSession");
  Check(g_ort->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &s->memory), "memory");
}

// Input `index` at `batch` rows, filled with a constant; false (with a message)
// when it has no batch dimension.
bool MakeInput(Session* s, OrtAllocator* allocator, size_t index, int64_t batch, Input* input) {
  char* name = nullptr;
  Check(g_ort->SessionGetInputName(s->session, index, allocator, &name), "input name");
  input->name = name;
  g_ort->ReleaseStatus(g_ort->AllocatorFree(allocator, name));
  OrtTypeInfo* type = nullptr;
  Check(g_ort->SessionGetInputTypeInfo(s->session, index, &type), "input type");
  const OrtTensorTypeAndShapeInfo* info = nullptr;
  Check(g_ort->CastTypeInfoToTensorInfo(type, &info), "input tensor");
  size_t rank = 0;
  Check(g_ort->GetDimensionsCount(info, &rank), "rank");
  input->shape.resize(rank);
  Check(g_ort->GetDimensions(info, input->shape.data(), rank), "dims");
  g_ort->ReleaseTypeInfo(type);
  if (rank == 0) {
    std::fprintf(stderr, "inferd_ort_bench: input '%s' has no batch dimension\n",
                 input->name.c_str());
    return false;
  }
  input->shape[0] = batch;
  size_t count = 1;
  for (int64_t d : input->shape) count *= static_cast<size_t>(d > 0 ? d : 1);
  input->data.assign(count, 0.5f);
  Check(g_ort->CreateTensorWithDataAsOrtValue(
            s->memory, input->data.data(), count * sizeof(float), input->shape.data(), rank,
            ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &input->value),
        "input tensor");
  return true;
}

bool PrepareInputsAndOutputs(Session* s, int64_t batch) {
  OrtAllocator* allocator = nullptr;
  Check(g_ort->GetAllocatorWithDefaultOptions(&allocator), "allocator");
  size_t input_count = 0, output_count = 0;
  Check(g_ort->SessionGetInputCount(s->session, &input_count), "inputs");
  Check(g_ort->SessionGetOutputCount(s->session, &output_count), "outputs");
  s->inputs.resize(input_count);
  for (size_t i = 0; i < input_count; ++i) {
    if (!MakeInput(s, allocator, i, batch, &s->inputs[i])) return false;
    s->input_values.push_back(s->inputs[i].value);
  }
  for (Input& in : s->inputs) s->input_names.push_back(in.name.c_str());
  s->output_storage.resize(output_count);
  for (size_t i = 0; i < output_count; ++i) {
    char* name = nullptr;
    Check(g_ort->SessionGetOutputName(s->session, i, allocator, &name), "output name");
    s->output_storage[i] = name;
    g_ort->ReleaseStatus(g_ort->AllocatorFree(allocator, name));
  }
  for (const std::string& name : s->output_storage) s->output_names.push_back(name.c_str());
  return true;
}

void RunOnce(const Session& s) {
  std::vector<OrtValue*> outputs(s.output_names.size(), nullptr);
  Check(g_ort->Run(s.session, nullptr, s.input_names.data(), s.input_values.data(),
                   s.input_names.size(), s.output_names.data(), s.output_names.size(),
                   outputs.data()),
        "Run");
  for (OrtValue* v : outputs) g_ort->ReleaseValue(v);
}

// Runs back to back for `options.seconds` after a warm-up and prints the JSON line.
void TimeRuns(const Session& s, const Options& options) {
  for (int i = 0; i < 3; ++i) RunOnce(s);  // warm-up
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = ProcessCpuSeconds();
  int64_t runs = 0;
  double elapsed = 0;
  while (elapsed < options.seconds) {
    RunOnce(s);
    ++runs;
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  const double cpu = ProcessCpuSeconds() - cpu_start;
  const double rows = static_cast<double>(runs * options.batch);
  std::printf(
      "{\"batch\": %lld, \"threads\": %d, \"spin\": \"%s\", \"runs\": %lld, \"seconds\": %.3f, "
      "\"rows_per_s\": %.1f, \"ms_per_batch\": %.3f, \"cpu_us_per_row\": %.1f}\n",
      static_cast<long long>(options.batch), options.threads, options.spin,
      static_cast<long long>(runs), elapsed, rows / elapsed,
      1000.0 * elapsed / static_cast<double>(runs), 1e6 * cpu / rows);
}

void ReleaseSession(Session* s) {
  for (Input& in : s->inputs) g_ort->ReleaseValue(in.value);
  g_ort->ReleaseMemoryInfo(s->memory);
  g_ort->ReleaseSession(s->session);
  g_ort->ReleaseSessionOptions(s->options);
  g_ort->ReleaseEnv(s->env);
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!ParseOptions(argc, argv, &options)) {
    std::fprintf(stderr,
                 "usage: %s MODEL.onnx [--batch N] [--threads N] [--seconds S] [--spin B]\n",
                 argv[0]);
    return 1;
  }
  g_ort = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  Session session;
  CreateSession(options, &session);
  if (!PrepareInputsAndOutputs(&session, options.batch)) return 1;
  TimeRuns(session, options);
  ReleaseSession(&session);
  return 0;
}
