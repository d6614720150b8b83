// Executing requests on one instance's session (see instance_runner.h).
#include "instance_runner.h"

#include "common/steady_clock.h"

namespace inferd::onnxruntime {

using backend_common::SteadyNowNs;

InstanceRunner::InstanceRunner(const ModelSettings& settings, std::shared_ptr<OrtSession> session,
                               std::string error_prefix)
    : settings_(settings), session_(std::move(session)), error_prefix_(std::move(error_prefix)) {
  for (const TensorSpec& spec : settings_.inputs) input_names_.push_back(spec.name.c_str());
}

void InstanceRunner::Execute(INFERD_ModelInstance* instance,
                             std::span<INFERD_Request* const> requests) {
  std::vector<BatchedRequest> ready;
  // Data sizes are checked as the inputs are gathered.
  backend_common::PrepareRequests(settings_, requests.data(), requests.size(),
                                  /*check_data_size=*/false, error_prefix_, &ready);
  for (size_t begin = 0, end = 0; begin < ready.size(); begin = end) {
    end = backend_common::RunEnd(settings_, ready, begin);
    RunBatch(instance, Batch{ready.data() + begin, end - begin});
  }
  backend_common::ReleaseRequests(ready);
}

void InstanceRunner::RunBatch(INFERD_ModelInstance* instance, Batch batch) {
  if (INFERD_Error* err = Run(instance, batch)) {
    backend_common::RespondAllWithError(batch, err, error_prefix_);
    INFERD_ErrorDelete(err);
  } else {
    backend_common::ScatterOutputs(instance, settings_, batch, outputs_.data(), outputs_.size(),
                                   error_prefix_);
  }
  inputs_.clear();  // drops views of request buffers before the requests are released
  outputs_.clear();
  output_values_.clear();
}

INFERD_Error* InstanceRunner::Run(INFERD_ModelInstance* instance, Batch batch) {
  if (auto* err = gather_.Gather(instance, settings_, batch, &inputs_)) return err;
  const std::vector<bool> wanted = backend_common::RequestedOutputs(settings_, batch);
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
  const int64_t rows = batch.rows();
  outputs_.resize(output_names.size());
  INFERD_Error* error = nullptr;
  for (size_t o = 0; o < raw_outputs.size(); ++o) {
    output_values_.emplace_back(raw_outputs[o]);
    if (error == nullptr) {
      error = ReadRunOutput(*output_specs[o], raw_outputs[o], settings_.batching(), rows,
                            &outputs_[o]);
    }
  }
  return error;
}

}  // namespace inferd::onnxruntime
