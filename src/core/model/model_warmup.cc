#include "core/model/model_warmup.h"

#include <fstream>
#include <future>
#include <iterator>
#include <random>

#include "core/common/c_error.h"
#include "core/common/datatype.h"
#include "core/infer/inference_request.h"
#include "core/infer/inference_response.h"
#include "core/infer/request_validator.h"
#include "core/model/model_instance.h"
#include "core/model/model_version.h"

namespace inferd {
namespace {

// The bytes of one warmup input: `elements` values of `type`.
StatusOr<std::string> SampleData(const ModelVersion& model, const std::string& input_name,
                                 const inference::ModelWarmup::Input& input, int64_t elements) {
  const INFERD_DataType type = FromConfigDataType(input.data_type());
  const size_t element_size = DataTypeByteSize(type);
  if (input.has_input_data_file()) {
    const auto path = model.model_dir() / "warmup" / input.input_data_file();
    std::ifstream file(path, std::ios::binary);
    if (!file) return Status::NotFound("warmup input '" + input_name + "': cannot read " + path.string());
    return std::string(std::istreambuf_iterator<char>(file), {});
  }
  if (type == INFERD_TYPE_BYTES) {
    // Every element an empty string: a zero length prefix each.
    return std::string(static_cast<size_t>(elements) * 4, '\0');
  }
  std::string data(static_cast<size_t>(elements) * element_size, '\0');
  if (input.random_data()) {
    std::mt19937 rng(0x1f2e3d4c);
    for (char& byte : data) byte = static_cast<char>(rng() & 0x3f);  // small, finite values
  }
  return data;
}

// Receives the sample's response and release on the instance's (this) thread.
struct Outcome {
  Status status;
  std::promise<void> released;
};

}  // namespace

Status RunWarmup(const std::shared_ptr<ModelVersion>& model, ModelInstance& instance) {
  const inference::ModelConfig& config = model->config();
  for (const auto& sample : config.model_warmup()) {
    const std::string where = "warmup sample '" + sample.name() + "' on instance '" +
                              instance.name() + "': ";
    for (uint32_t run = 0; run < std::max<uint32_t>(1, sample.count()); ++run) {
      InferenceRequest request(model->name(), model->version());
      request.id = "warmup:" + sample.name();
      request.counts_in_stats = false;
      std::vector<std::string> buffers;
      buffers.reserve(sample.inputs_size());
      for (const auto& [name, input] : sample.inputs()) {
        std::vector<int64_t> shape;
        if (config.max_batch_size() > 0) shape.push_back(std::max<uint32_t>(1, sample.batch_size()));
        shape.insert(shape.end(), input.dims().begin(), input.dims().end());
        ASSIGN_OR_RETURN(std::string data, SampleData(*model, name, input, ElementCount(shape)));
        buffers.push_back(std::move(data));
        RETURN_IF_ERROR(request.AddInput(name, FromConfigDataType(input.data_type()),
                                         shape.data(), shape.size()));
        RETURN_IF_ERROR(request.AppendInputData(name, {buffers.back().data(), buffers.back().size()}));
      }
      RETURN_IF_ERROR(ValidateRequest(config, model->all_outputs(), &request).WithPrefix(where));
      Outcome outcome;
      request.route.response_fn = [](INFERD_InferenceResponse* response, uint32_t, void* userp) {
        auto* r = reinterpret_cast<InferenceResponse*>(response);
        if (r != nullptr && !r->error().ok()) static_cast<Outcome*>(userp)->status = r->error();
        delete r;
      };
      request.route.response_userp = &outcome;
      request.release_fn = [](INFERD_InferenceRequest*, uint32_t, void* userp) {
        static_cast<Outcome*>(userp)->released.set_value();
      };
      request.release_userp = &outcome;
      model->OnRequestAdmitted();
      request.Bind(model);
      std::vector<InferenceRequest*> batch{&request};
      instance.ExecuteNow(batch, /*record_stats=*/false);
      outcome.released.get_future().wait();
      RETURN_IF_ERROR(outcome.status.WithPrefix(where));
    }
  }
  return Status::Ok();
}

}  // namespace inferd
