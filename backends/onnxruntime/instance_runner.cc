// Executing requests on one instance's session (see instance_runner.h).
#include "instance_runner.h"

#include <chrono>

namespace inferd::onnxruntime {
namespace {

// Which configured outputs any request of the batch asks for.
std::vector<bool> RequestedOutputs(const ModelSettings& settings,
                                   std::span<const BatchedRequest> batch) {
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

uint64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

InstanceRunner::InstanceRunner(const ModelSettings& settings, std::shared_ptr<OrtSession> session,
                               std::string error_prefix)
    : settings_(settings), session_(std::move(session)), error_prefix_(std::move(error_prefix)) {
  for (const TensorSpec& spec : settings_.inputs) input_names_.push_back(spec.name.c_str());
}

void InstanceRunner::Execute(INFERD_ModelInstance* instance,
                             std::span<INFERD_Request* const> requests) {
  std::vector<BatchedRequest> ready;
  ready.reserve(requests.size());
  for (INFERD_Request* request : requests) {
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
    RunBatch(instance, std::span<const BatchedRequest>(ready.data() + begin, end - begin));
    begin = end;
  }
  for (const BatchedRequest& request : ready) {
    INFERD_ErrorDelete(INFERD_RequestRelease(request.request, INFERD_REQUEST_RELEASE_ALL));
  }
}

void InstanceRunner::RunBatch(INFERD_ModelInstance* instance,
                              std::span<const BatchedRequest> batch) {
  std::vector<RunOutput> outputs;
  if (INFERD_Error* err = Run(instance, batch, &outputs)) {
    for (const BatchedRequest& request : batch) {
      RespondWithError(request.request, err, error_prefix_);
    }
    INFERD_ErrorDelete(err);
  } else {
    ScatterOutputs(instance, settings_, batch, outputs, error_prefix_);
  }
  inputs_.clear();  // drops views of request buffers before the requests are released
}

INFERD_Error* InstanceRunner::Run(INFERD_ModelInstance* instance,
                                  std::span<const BatchedRequest> batch,
                                  std::vector<RunOutput>* outputs) {
  if (auto* err = gather_.Gather(instance, settings_, batch, &inputs_)) return err;
  const std::vector<bool> wanted = RequestedOutputs(settings_, batch);
  std::vector<const char*> output_names;
  std::vector<const TensorSpec*> output_specs;
  for (size_t o = 0; o < settings_.outputs.size(); ++o) {
    if (!wanted[o]) continue;
    output_names.push_back(settings_.outputs[o].name.c_str());
    output_specs.push_back(&settings_.outputs[o]);
  }
  if (output_names.empty()) return nullptr;  // nothing asked for: responses stay empty
  std::vector<const OrtValue*> input_values;
  for (const auto& value : inputs_) input_values.push_back(value.get());
  std::vector<OrtValue*> raw_outputs(output_names.size(), nullptr);
  const uint64_t compute_start = SteadyNowNs();
  if (auto* err = OrtError(Ort().Run(session_.get(), nullptr, input_names_.data(),
                                     input_values.data(), input_values.size(),
                                     output_names.data(), output_names.size(),
                                     raw_outputs.data()),
                           "ONNX Runtime failed to run the model")) {
    for (OrtValue* value : raw_outputs) Ort().ReleaseValue(value);
    return err;
  }
  // Gathering inputs before and scattering outputs after are compute_input
  // and compute_output in the statistics.
  INFERD_ErrorDelete(INFERD_ModelInstanceReportComputeTimes(instance, compute_start, SteadyNowNs()));
  int64_t rows = 0;
  for (const BatchedRequest& request : batch) rows += request.rows;
  outputs->resize(output_names.size());
  INFERD_Error* error = nullptr;
  for (size_t o = 0; o < raw_outputs.size(); ++o) {
    OrtPtr<OrtValue> value(raw_outputs[o]);
    if (error == nullptr) {
      error = ReadRunOutput(*output_specs[o], std::move(value), settings_.batching(), rows,
                            &(*outputs)[o]);
    }
  }
  return error;
}

}  // namespace inferd::onnxruntime
