// Executing requests on one instance's TorchScript module (see instance_runner.h).
#include "instance_runner.h"

#include <ATen/Parallel.h>
#include <torch/csrc/jit/python/update_graph_executor_opt.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "common/entry_points.h"
#include "common/input_collector.h"
#include "common/output_responder.h"
#include "common/shapes.h"
#include "common/steady_clock.h"
#include "error_text.h"
#include "torch_module_impl.h"

namespace inferd::pytorch {
namespace {

using backend_common::Batch;
using backend_common::BatchedRequest;
using backend_common::MakeError;
using backend_common::RequestInput;
using backend_common::RunOutput;
using backend_common::ShapeString;
using backend_common::SteadyNowNs;

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

std::string OutputWhere(const TensorSpec& spec) { return "output '" + spec.name + "'"; }

// The tensor for numeric input `index` of `batch`: a view of the request's
// buffer when it can be, else the requests' rows copied into a new tensor.
INFERD_Error* GatherTensor(INFERD_ModelInstance* instance, const TensorSpec& spec, size_t index,
                           Batch batch, bool batching, int64_t rows,
                           std::vector<INFERD_MemoryCopy>* copies, at::Tensor* out) {
  const RequestInput& first = batch[0].inputs[index];
  std::vector<int64_t> shape(first.shape, first.shape + first.rank);
  if (batching) shape[0] = rows;
  const auto options = at::TensorOptions()
                           .dtype(static_cast<c10::ScalarType>(ScalarOf(*spec.type)))
                           .device(c10::kCPU);
  void* borrowed = nullptr;
  if (auto* err = backend_common::BorrowInput(batch, index, spec.type->byte_size, &borrowed)) {
    return err;
  }
  if (borrowed != nullptr) {
    *out = torch::from_blob(borrowed, shape, options);
    return nullptr;
  }
  at::Tensor tensor = at::empty(shape, options);
  if (auto* err = backend_common::CopyInputRows(instance, batch, index,
                                                static_cast<char*>(tensor.data_ptr()), copies)) {
    return err;
  }
  *out = std::move(tensor);
  return nullptr;
}

// The List[str] for BYTES input `index` of `batch`: every element of every
// request, in order.
INFERD_Error* GatherStrings(const TensorSpec& spec, size_t index, Batch batch,
                            backend_common::BytesInputReader* reader,
                            c10::List<std::string>* out) {
  for (const BatchedRequest& request : batch) {
    const std::vector<std::string_view>* elements = nullptr;
    if (auto* err = reader->Elements(spec, request.inputs[index], &elements)) return err;
    for (std::string_view element : *elements) out->push_back(std::string(element));
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

// Reads List[str] `value` as BYTES output `spec` of a call over `rows` rows.
INFERD_Error* ReadStrings(const c10::IValue& value, const TensorSpec& spec, bool batching,
                          int64_t rows, RunOutput* out) {
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
    out->offsets.push_back(out->strings.size());
    out->strings += element.toStringRef();
  }
  const auto count = static_cast<int64_t>(out->offsets.size());
  out->offsets.push_back(out->strings.size());
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

// Reads `value` as configured output `spec` of a call over `rows` rows;
// a numeric output's memory is held by `*tensor`.
INFERD_Error* ReadOutput(const c10::IValue& value, const TensorSpec& spec, bool batching,
                         int64_t rows, RunOutput* out, at::Tensor* tensor) {
  out->spec = &spec;
  if (spec.type->byte_size == 0) return ReadStrings(value, spec, batching, rows, out);
  if (!value.isTensor()) {
    return MakeError(INFERD_ERROR_INTERNAL, OutputWhere(spec) + ": forward() gave " +
                                                value.tagKind() + ", not a Tensor");
  }
  at::Tensor produced = value.toTensor();
  const auto want = static_cast<c10::ScalarType>(ScalarOf(*spec.type));
  if (produced.scalar_type() != want) {
    const ElementType* got = TypeFromScalar(static_cast<int>(produced.scalar_type()));
    return MakeError(INFERD_ERROR_INTERNAL,
                     OutputWhere(spec) + " came out as " +
                         (got ? std::string(got->native_name)
                              : c10::toString(produced.scalar_type())) +
                         " but the configuration says " + std::string(spec.type->config_name));
  }
  if (!produced.device().is_cpu()) produced = produced.cpu();
  *tensor = produced.contiguous();
  out->data = static_cast<const char*>(tensor->data_ptr());
  out->shape = tensor->sizes().vec();
  if (batching && (out->shape.empty() || out->shape[0] != rows)) {
    return MakeError(INFERD_ERROR_INTERNAL,
                     OutputWhere(spec) + " has shape " + ShapeString(out->shape) +
                         " for a batch of " + std::to_string(rows) +
                         " rows; its first dimension must be the batch");
  }
  return nullptr;
}

// What one forward() call uses of its instance.
struct ForwardCall {
  const ModelSettings& settings;
  const RunSettings& run;
  const IoBinding& binding;
  TorchModule& module;
  std::vector<INFERD_MemoryCopy>* copies;  //!< scratch
  backend_common::BytesInputReader* bytes;  //!< scratch
};

// One input value per configured input, for forward().
INFERD_Error* GatherInputs(const ForwardCall& call, INFERD_ModelInstance* instance, Batch batch,
                           std::vector<c10::IValue>* inputs) {
  const ModelSettings& settings = call.settings;
  const int64_t rows = batch.rows();
  inputs->resize(settings.inputs.size());
  for (size_t i = 0; i < settings.inputs.size(); ++i) {
    const TensorSpec& spec = settings.inputs[i];
    INFERD_Error* error = nullptr;
    if (spec.type->byte_size == 0) {
      c10::List<std::string> strings;
      error = GatherStrings(spec, i, batch, call.bytes, &strings);
      (*inputs)[i] = std::move(strings);
    } else {
      at::Tensor tensor;
      error = GatherTensor(instance, spec, i, batch, settings.batching(), rows, call.copies,
                           &tensor);
      (*inputs)[i] = std::move(tensor);
    }
    if (error != nullptr) return error;
  }
  return nullptr;
}

// Gathers, calls forward() and reads the outputs any request asks for into
// `outputs` (numeric memory held by `tensors`), both indexed like the
// configured outputs. Throws what LibTorch throws.
INFERD_Error* RunForward(const ForwardCall& call, INFERD_ModelInstance* instance, Batch batch,
                         std::vector<RunOutput>* outputs, std::vector<at::Tensor>* tensors) {
  const ModelSettings& settings = call.settings;
  // Inference mode (or at least no autograd) for the inputs made here too:
  // inference tensors skip version counting.
  std::optional<c10::InferenceMode> inference_mode;
  std::optional<torch::NoGradGuard> no_grad;
  if (call.run.inference_mode) {
    inference_mode.emplace();
  } else {
    no_grad.emplace();
  }
  std::vector<c10::IValue> inputs;
  if (INFERD_Error* err = GatherInputs(call, instance, batch, &inputs)) return err;
  const uint64_t compute_start = SteadyNowNs();
  const c10::IValue result = Forward(call.module, call.binding, std::move(inputs));
  // Gathering inputs before and scattering outputs after are compute_input
  // and compute_output in the statistics.
  INFERD_ErrorDelete(
      INFERD_ModelInstanceReportComputeTimes(instance, compute_start, SteadyNowNs()));
  const std::vector<bool> wanted = backend_common::RequestedOutputs(settings, batch);
  const int64_t rows = batch.rows();
  for (size_t o = 0; o < settings.outputs.size(); ++o) {
    if (!wanted[o]) continue;
    const TensorSpec& spec = settings.outputs[o];
    c10::IValue value;
    if (INFERD_Error* err = SelectOutput(result, call.binding.outputs[o], spec, &value)) return err;
    if (INFERD_Error* err = ReadOutput(value, spec, settings.batching(), rows, &(*outputs)[o],
                                       &(*tensors)[o])) {
      return err;
    }
  }
  return nullptr;
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
  backend_common::PrepareRequests(settings_, requests, count, /*check_data_size=*/true,
                                  error_prefix_, &ready);
  for (size_t begin = 0, end = 0; begin < ready.size(); begin = end) {
    end = backend_common::RunEnd(settings_, ready, begin);
    RunBatch(instance, Batch{ready.data() + begin, end - begin});
  }
  backend_common::ReleaseRequests(ready);
}

void InstanceRunner::RunBatch(INFERD_ModelInstance* instance, Batch batch) {
  std::vector<RunOutput> outputs(settings_.outputs.size());
  std::vector<at::Tensor> tensors(settings_.outputs.size());  // numeric outputs' memory
  INFERD_Error* error = nullptr;
  try {
    const ForwardCall call{settings_, run_, binding_, *module_, &copies_, &bytes_};
    error = RunForward(call, instance, batch, &outputs, &tensors);
  } catch (const c10::Error& e) {
    error = MakeError(INFERD_ERROR_INVALID_ARG, "LibTorch failed to run forward(): " +
                                                    TrimTorchMessage(e.what_without_backtrace()));
  } catch (const std::exception& e) {
    error = MakeError(INFERD_ERROR_INVALID_ARG,
                      "LibTorch failed to run forward(): " + TrimTorchMessage(e.what()));
  }
  if (error != nullptr) {
    backend_common::RespondAllWithError(batch, error, error_prefix_);
    INFERD_ErrorDelete(error);
    return;
  }
  backend_common::ScatterOutputs(instance, settings_, batch, outputs.data(), outputs.size(),
                                 error_prefix_);
}

}  // namespace inferd::pytorch
