// Executing requests on one instance's TorchScript module (see instance_runner.h).
#include "instance_runner.h"

#include <ATen/Parallel.h>
#include <torch/csrc/jit/python/update_graph_executor_opt.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <vector>

#include "error_text.h"
#include "torch_module_impl.h"

namespace inferd::pytorch {
namespace {

// The requests of one forward() call: a run of consecutive prepared requests.
class Batch {
 public:
  Batch(const BatchedRequest* first, size_t count) : first_(first), count_(count) {}
  const BatchedRequest* begin() const { return first_; }
  const BatchedRequest* end() const { return first_ + count_; }
  size_t size() const { return count_; }
  const BatchedRequest& operator[](size_t i) const { return first_[i]; }

 private:
  const BatchedRequest* first_;
  size_t count_;
};

// One configured output of a forward() call, read for scattering.
struct RunOutput {
  const TensorSpec* spec = nullptr;  //!< null: no request of the batch asked for it
  at::Tensor tensor;                 //!< numeric outputs, contiguous
  std::vector<std::string> strings;  //!< BYTES outputs
  std::vector<int64_t> shape;        //!< as forward() produced it (BYTES: [rows, n / rows] or [n])
};

uint64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Gives this thread `count` intra-op threads. OpenMP keeps the count per
// calling thread, so each instance's thread has its own.
void ApplyIntraOpThreads(int count) {
  thread_local int applied = 0;
  if (applied == count) return;
  // get_num_threads() runs LibTorch's lazy per-thread set-up first, which would
  // otherwise reset this thread's count to the last one set by any thread.
  (void)at::get_num_threads();
  at::set_num_threads(count);
  applied = count;
}

std::string InputWhere(const TensorSpec& spec) { return "input '" + spec.name + "'"; }
std::string OutputWhere(const TensorSpec& spec) { return "output '" + spec.name + "'"; }

// The tensor for numeric input `index` of `batch`: a view of the request's
// buffer when it can be, else the requests' rows copied into a new tensor.
INFERD_Error* GatherTensor(INFERD_ModelInstance* instance, const TensorSpec& spec, size_t index,
                           Batch batch, bool batching, int64_t rows,
                           at::Tensor* out) {
  const RequestInput& first = batch[0].inputs[index];
  std::vector<int64_t> shape(first.shape, first.shape + first.rank);
  if (batching) shape[0] = rows;
  const auto options = at::TensorOptions()
                           .dtype(static_cast<c10::ScalarType>(spec.type->scalar))
                           .device(c10::kCPU);
  if (batch.size() == 1 && first.buffer_count == 1) {
    const void* buffer = nullptr;
    uint64_t size = 0;
    if (auto* err = INFERD_InputBuffer(first.input, 0, &buffer, &size, nullptr, nullptr)) {
      return err;
    }
    // Kernels read elements through typed pointers: borrow only aligned memory.
    if (buffer != nullptr && reinterpret_cast<uintptr_t>(buffer) % spec.type->byte_size == 0) {
      *out = torch::from_blob(const_cast<void*>(buffer), shape, options);
      return nullptr;
    }
  }
  at::Tensor tensor = at::empty(shape, options);
  char* cursor = static_cast<char*>(tensor.data_ptr());
  std::vector<INFERD_MemoryCopy> copies;
  for (const BatchedRequest& request : batch) {
    const RequestInput& in = request.inputs[index];
    for (uint32_t b = 0; b < in.buffer_count; ++b) {
      const void* buffer = nullptr;
      uint64_t size = 0;
      if (auto* err = INFERD_InputBuffer(in.input, b, &buffer, &size, nullptr, nullptr)) {
        return err;
      }
      if (size > 0) copies.push_back({cursor, buffer, size});
      cursor += size;
    }
  }
  if (auto* err = INFERD_ModelInstanceCopyBuffers(instance, copies.data(),
                                                  static_cast<uint32_t>(copies.size()))) {
    return err;
  }
  *out = std::move(tensor);
  return nullptr;
}

// The List[str] for BYTES input `index` of `batch`: every element of every
// request, in order.
INFERD_Error* GatherStrings(const TensorSpec& spec, size_t index,
                            Batch batch, c10::List<std::string>* out) {
  std::string joined;
  std::vector<std::string_view> elements;
  for (const BatchedRequest& request : batch) {
    const RequestInput& in = request.inputs[index];
    joined.clear();
    for (uint32_t b = 0; b < in.buffer_count; ++b) {
      const void* buffer = nullptr;
      uint64_t size = 0;
      if (auto* err = INFERD_InputBuffer(in.input, b, &buffer, &size, nullptr, nullptr)) {
        return err;
      }
      joined.append(static_cast<const char*>(buffer), size);
    }
    elements.clear();
    if (std::string problem = SplitBytesElements(joined, &elements); !problem.empty()) {
      return MakeError(INFERD_ERROR_INVALID_ARG, InputWhere(spec) + " (BYTES): " + problem);
    }
    const auto want = static_cast<size_t>(ElementCount(in.shape, in.rank));
    if (elements.size() != want) {
      return MakeError(INFERD_ERROR_INVALID_ARG,
                       InputWhere(spec) + " holds " + std::to_string(elements.size()) +
                           " BYTES elements but its shape " + ShapeString(in.shape, in.rank) +
                           " needs " + std::to_string(want));
    }
    for (std::string_view element : elements) out->push_back(std::string(element));
  }
  return nullptr;
}

// Calls forward() with the configured inputs at their arguments.
c10::IValue Forward(TorchModule& module, const IoBinding& binding,
                    std::vector<c10::IValue> inputs) {
  if (binding.positional) {
    size_t count = 0;
    for (size_t position : binding.input_argument) count = std::max(count, position + 1);
    std::vector<c10::IValue> stack(count);
    for (size_t i = 0; i < inputs.size(); ++i) {
      stack[binding.input_argument[i]] = std::move(inputs[i]);
    }
    return module.forward(std::move(stack));
  }
  torch::jit::Kwargs kwargs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    kwargs[binding.input_argument_name[i]] = std::move(inputs[i]);
  }
  return module.forward({}, kwargs);
}

// The part of forward's `result` that `source` names.
INFERD_Error* SelectOutput(const c10::IValue& result, const OutputSource& source,
                           const TensorSpec& spec, c10::IValue* value) {
  if (!source.index) {
    if (!result.isGenericDict()) {
      return MakeError(INFERD_ERROR_INTERNAL,
                       OutputWhere(spec) + " is not named <name>__<index> but forward() returned " +
                           result.tagKind() + ", not a dictionary");
    }
    const c10::Dict<c10::IValue, c10::IValue> dict = result.toGenericDict();
    auto it = dict.find(c10::IValue(source.key));
    if (it == dict.end()) {
      std::string keys;
      for (const auto& entry : dict) {
        keys += keys.empty() ? "" : ", ";
        keys += entry.key().isString() ? "'" + entry.key().toStringRef() + "'" : "?";
      }
      return MakeError(INFERD_ERROR_INTERNAL, OutputWhere(spec) +
                                                  ": the dictionary forward() returned has no "
                                                  "such key (it has " + keys + ")");
    }
    *value = it->value();
    return nullptr;
  }
  const size_t index = *source.index;
  const bool lone = result.isTensor() || (result.isList() && spec.type->byte_size == 0 &&
                                          (result.toListRef().empty() ||
                                           result.toListRef()[0].isString()));
  if (lone) {
    if (index != 0) {
      return MakeError(INFERD_ERROR_INTERNAL, OutputWhere(spec) + " names element " +
                                                  std::to_string(index) +
                                                  " but forward() returned one value");
    }
    *value = result;
    return nullptr;
  }
  if (result.isTuple() || result.isList()) {
    const auto elements =
        result.isTuple() ? result.toTupleRef().elements() : result.toListRef();
    if (index >= elements.size()) {
      return MakeError(INFERD_ERROR_INTERNAL, OutputWhere(spec) + " names element " +
                                                  std::to_string(index) + " but forward() returned " +
                                                  std::to_string(elements.size()));
    }
    *value = elements[index];
    return nullptr;
  }
  return MakeError(INFERD_ERROR_INTERNAL, OutputWhere(spec) + ": forward() returned " +
                                              result.tagKind() +
                                              ", not a tensor, tuple, list or dictionary");
}

// Reads `value` as configured output `spec` of a call over `rows` rows.
INFERD_Error* ReadOutput(const c10::IValue& value, const TensorSpec& spec, bool batching,
                         int64_t rows, RunOutput* out) {
  out->spec = &spec;
  if (spec.type->byte_size == 0) {
    if (!value.isList()) {
      return MakeError(INFERD_ERROR_INTERNAL, OutputWhere(spec) + " is TYPE_STRING but forward() "
                                                                  "gave it " + value.tagKind() +
                                                  ", not a List[str]");
    }
    for (const c10::IValue& element : value.toListRef()) {
      if (!element.isString()) {
        return MakeError(INFERD_ERROR_INTERNAL,
                         OutputWhere(spec) + " is TYPE_STRING but forward() gave it a list of " +
                             element.tagKind() + ", not of str");
      }
      out->strings.push_back(element.toStringRef());
    }
    const auto count = static_cast<int64_t>(out->strings.size());
    if (batching && (rows == 0 || count % rows != 0)) {
      return MakeError(INFERD_ERROR_INTERNAL, OutputWhere(spec) + " holds " +
                                                  std::to_string(count) +
                                                  " strings, which do not split into " +
                                                  std::to_string(rows) + " rows");
    }
    out->shape = batching ? std::vector<int64_t>{rows, rows > 0 ? count / rows : 0}
                          : std::vector<int64_t>{count};
    return nullptr;
  }
  if (!value.isTensor()) {
    return MakeError(INFERD_ERROR_INTERNAL, OutputWhere(spec) + ": forward() gave " +
                                                value.tagKind() + ", not a Tensor");
  }
  at::Tensor tensor = value.toTensor();
  const auto want = static_cast<c10::ScalarType>(spec.type->scalar);
  if (tensor.scalar_type() != want) {
    const ElementType* got = TypeFromScalar(static_cast<int>(tensor.scalar_type()));
    return MakeError(INFERD_ERROR_INTERNAL,
                     OutputWhere(spec) + " came out as " +
                         (got ? std::string(got->torch_name) : c10::toString(tensor.scalar_type())) +
                         " but the configuration says " + std::string(spec.type->config_name));
  }
  if (!tensor.device().is_cpu()) tensor = tensor.cpu();
  out->tensor = tensor.contiguous();
  out->shape = out->tensor.sizes().vec();
  if (batching && (out->shape.empty() || out->shape[0] != rows)) {
    return MakeError(INFERD_ERROR_INTERNAL,
                     OutputWhere(spec) + " has shape " +
                         ShapeString(out->shape.data(), out->shape.size()) + " for a batch of " +
                         std::to_string(rows) + " rows; its first dimension must be the batch");
  }
  return nullptr;
}

// Which configured outputs any request of the batch asks for.
std::vector<bool> RequestedOutputs(const ModelSettings& settings,
                                   Batch batch) {
  std::vector<bool> wanted(settings.outputs.size(), false);
  for (const BatchedRequest& request : batch) {
    uint32_t count = 0;
    if (INFERD_Error* err = INFERD_RequestOutputCount(request.request, &count)) {
      INFERD_ErrorDelete(err);
      continue;
    }
    for (uint32_t k = 0; k < count; ++k) {
      const char* name = nullptr;
      if (INFERD_Error* err = INFERD_RequestOutputName(request.request, k, &name)) {
        INFERD_ErrorDelete(err);
        continue;
      }
      for (size_t o = 0; o < settings.outputs.size(); ++o) {
        if (settings.outputs[o].name == name) wanted[o] = true;
      }
    }
  }
  return wanted;
}

// Adds to `response` the outputs `request` asks for: its rows, from `row` on.
// Numeric data is left to `copies`.
INFERD_Error* FillResponse(const ModelSettings& settings, const BatchedRequest& request,
                           int64_t row, const std::vector<RunOutput>& outputs,
                           INFERD_Response* response, std::vector<INFERD_MemoryCopy>* copies) {
  uint32_t requested = 0;
  if (auto* err = INFERD_RequestOutputCount(request.request, &requested)) return err;
  for (uint32_t k = 0; k < requested; ++k) {
    const char* name = nullptr;
    if (auto* err = INFERD_RequestOutputName(request.request, k, &name)) return err;
    const RunOutput* output = nullptr;
    for (const RunOutput& candidate : outputs) {
      if (candidate.spec != nullptr && candidate.spec->name == name) output = &candidate;
    }
    if (output == nullptr) {
      return MakeError(INFERD_ERROR_INVALID_ARG,
                       "the request asks for output '" + std::string(name) +
                           "', which the model's configuration does not list");
    }
    const TensorSpec& spec = *output->spec;
    const int64_t all = ElementCount(output->shape.data(), output->shape.size());
    const int64_t total_rows = settings.batching() ? output->shape[0] : 1;
    const int64_t per_row = total_rows > 0 ? all / total_rows : 0;
    const int64_t rows = settings.batching() ? request.rows : 1;
    const auto first = static_cast<size_t>(row * per_row);
    const auto count = static_cast<size_t>(rows * per_row);
    std::vector<int64_t> shape = output->shape;
    if (settings.batching()) shape[0] = rows;
    INFERD_Output* out = nullptr;
    if (auto* err = INFERD_ResponseOutput(response, &out, spec.name.c_str(), spec.type->datatype,
                                          shape.data(), static_cast<uint32_t>(shape.size()))) {
      return err;
    }
    const bool strings = spec.type->byte_size == 0;
    size_t bytes = count * spec.type->byte_size;
    if (strings) {
      bytes = 0;
      for (size_t e = first; e < first + count; ++e) bytes += 4 + output->strings[e].size();
    }
    void* buffer = nullptr;
    INFERD_MemoryType memory_type = INFERD_MEMORY_CPU;
    int64_t memory_type_id = 0;
    if (auto* err = INFERD_OutputBuffer(out, &buffer, bytes, &memory_type, &memory_type_id)) {
      return err;
    }
    if (bytes == 0) continue;
    if (!strings) {
      const char* data = static_cast<const char*>(output->tensor.data_ptr());
      copies->push_back({buffer, data + first * spec.type->byte_size, bytes});
      continue;
    }
    char* cursor = static_cast<char*>(buffer);
    for (size_t e = first; e < first + count; ++e) {
      cursor = WriteBytesElement(cursor, output->strings[e]);
    }
  }
  return nullptr;
}

// Sends every request of the batch its FINAL response.
void ScatterOutputs(INFERD_ModelInstance* instance, const ModelSettings& settings,
                    Batch batch, const std::vector<RunOutput>& outputs,
                    const std::string& error_prefix) {
  struct Filled {
    INFERD_Response* response;
    INFERD_Error* error;
  };
  std::vector<Filled> filled;
  std::vector<INFERD_MemoryCopy> copies;
  int64_t row = 0;
  for (const BatchedRequest& request : batch) {
    INFERD_Response* response = nullptr;
    if (INFERD_Error* err = INFERD_ResponseNew(&response, request.request)) {
      INFERD_ErrorDelete(err);  // nothing can carry it; the release still happens
      row += request.rows;
      continue;
    }
    const size_t copies_before = copies.size();
    INFERD_Error* error = FillResponse(settings, request, row, outputs, response, &copies);
    if (error != nullptr) {
      copies.resize(copies_before);
      INFERD_Error* prefixed =
          MakeError(INFERD_ErrorCode(error), error_prefix + INFERD_ErrorMessage(error));
      INFERD_ErrorDelete(error);
      error = prefixed;
    }
    filled.push_back({response, error});
    row += request.rows;
  }
  INFERD_Error* copied = INFERD_ModelInstanceCopyBuffers(instance, copies.data(),
                                                         static_cast<uint32_t>(copies.size()));
  for (Filled& f : filled) {
    INFERD_Error* error = f.error;
    if (error == nullptr && copied != nullptr) {
      error = MakeError(INFERD_ErrorCode(copied), error_prefix + INFERD_ErrorMessage(copied));
    }
    INFERD_ErrorDelete(INFERD_ResponseSend(f.response, INFERD_RESPONSE_COMPLETE_FINAL, error));
  }
  INFERD_ErrorDelete(copied);
}

}  // namespace

InstanceRunner::InstanceRunner(const ModelSettings& settings, const RunSettings& run,
                               const IoBinding& binding, TorchModulePtr module,
                               std::string error_prefix)
    : settings_(settings),
      run_(run),
      binding_(binding),
      module_(std::move(module)),
      error_prefix_(std::move(error_prefix)) {}

void InstanceRunner::Execute(INFERD_ModelInstance* instance, INFERD_Request* const* requests,
                             uint32_t count) {
  ApplyIntraOpThreads(run_.intra_op_threads);
  torch::jit::setGraphExecutorOptimize(run_.optimized_execution);
  std::vector<BatchedRequest> ready;
  ready.reserve(count);
  for (uint32_t r = 0; r < count; ++r) {
    INFERD_Request* request = requests[r];
    BatchedRequest prepared;
    if (INFERD_Error* err = PrepareRequest(settings_, request, &prepared)) {
      RespondWithError(request, err, error_prefix_);
      INFERD_ErrorDelete(err);
      INFERD_ErrorDelete(INFERD_RequestRelease(request, INFERD_REQUEST_RELEASE_ALL));
      continue;
    }
    ready.push_back(std::move(prepared));
  }
  size_t begin = 0;
  while (begin < ready.size()) {
    size_t end = begin + 1;
    if (settings_.batching()) {
      while (end < ready.size() && SameRowShape(ready[begin], ready[end])) ++end;
    }
    RunBatch(instance, ready.data() + begin, end - begin);
    begin = end;
  }
  for (const BatchedRequest& request : ready) {
    INFERD_ErrorDelete(INFERD_RequestRelease(request.request, INFERD_REQUEST_RELEASE_ALL));
  }
}

void InstanceRunner::RunBatch(INFERD_ModelInstance* instance, const BatchedRequest* first,
                              size_t count) {
  const Batch batch(first, count);
  int64_t rows = 0;
  for (const BatchedRequest& request : batch) rows += request.rows;
  std::vector<RunOutput> outputs(settings_.outputs.size());
  INFERD_Error* error = nullptr;
  try {
    // Inference mode (or at least no autograd) for the inputs made here too:
    // inference tensors skip version counting.
    std::optional<c10::InferenceMode> inference_mode;
    std::optional<torch::NoGradGuard> no_grad;
    if (run_.inference_mode) {
      inference_mode.emplace();
    } else {
      no_grad.emplace();
    }
    std::vector<c10::IValue> inputs(settings_.inputs.size());
    for (size_t i = 0; i < settings_.inputs.size() && error == nullptr; ++i) {
      const TensorSpec& spec = settings_.inputs[i];
      if (spec.type->byte_size == 0) {
        c10::List<std::string> strings;
        error = GatherStrings(spec, i, batch, &strings);
        inputs[i] = std::move(strings);
      } else {
        at::Tensor tensor;
        error = GatherTensor(instance, spec, i, batch, settings_.batching(), rows, &tensor);
        inputs[i] = std::move(tensor);
      }
    }
    if (error == nullptr) {
      const uint64_t compute_start = SteadyNowNs();
      const c10::IValue result = Forward(*module_, binding_, std::move(inputs));
      // Gathering inputs before and scattering outputs after are compute_input
      // and compute_output in the statistics.
      INFERD_ErrorDelete(
          INFERD_ModelInstanceReportComputeTimes(instance, compute_start, SteadyNowNs()));
      const std::vector<bool> wanted = RequestedOutputs(settings_, batch);
      for (size_t o = 0; o < settings_.outputs.size() && error == nullptr; ++o) {
        if (!wanted[o]) continue;
        c10::IValue value;
        error = SelectOutput(result, binding_.outputs[o], settings_.outputs[o], &value);
        if (error == nullptr) {
          error = ReadOutput(value, settings_.outputs[o], settings_.batching(), rows, &outputs[o]);
        }
      }
    }
  } catch (const c10::Error& e) {
    error = MakeError(INFERD_ERROR_INVALID_ARG, "LibTorch failed to run forward(): " +
                                                    TrimTorchMessage(e.what_without_backtrace()));
  } catch (const std::exception& e) {
    error = MakeError(INFERD_ERROR_INVALID_ARG,
                      "LibTorch failed to run forward(): " + TrimTorchMessage(e.what()));
  }
  if (error != nullptr) {
    for (const BatchedRequest& request : batch) {
      RespondWithError(request.request, error, error_prefix_);
    }
    INFERD_ErrorDelete(error);
    return;
  }
  ScatterOutputs(instance, settings_, batch, outputs, error_prefix_);
}

}  // namespace inferd::pytorch
