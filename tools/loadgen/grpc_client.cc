// GrpcClient: metadata and config RPCs, the request with typed or raw
// contents, and ModelInfer calls on the callback API.
#include "loadgen/grpc_client.h"

#include <chrono>
#include <cstring>

namespace inferd::loadgen {
namespace {

template <typename T>
T Load(const char* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

// Fills the typed contents field of `datatype` from the binary layout.
void FillContents(const GeneratedTensor& tensor, inference::InferTensorContents* contents) {
  const std::string& t = tensor.datatype;
  const char* p = tensor.bytes.data();
  const char* end = p + tensor.bytes.size();
  while (p < end) {
    if (t == "BYTES") {
      const uint32_t length = Load<uint32_t>(p);
      contents->add_bytes_contents(p + 4, length);
      p += 4 + length;
      continue;
    }
    if (t == "BOOL") contents->add_bool_contents(*p != 0);
    else if (t == "UINT8") contents->add_uint_contents(Load<uint8_t>(p));
    else if (t == "UINT16") contents->add_uint_contents(Load<uint16_t>(p));
    else if (t == "UINT32") contents->add_uint_contents(Load<uint32_t>(p));
    else if (t == "UINT64") contents->add_uint64_contents(Load<uint64_t>(p));
    else if (t == "INT8") contents->add_int_contents(Load<int8_t>(p));
    else if (t == "INT16") contents->add_int_contents(Load<int16_t>(p));
    else if (t == "INT32") contents->add_int_contents(Load<int32_t>(p));
    else if (t == "INT64") contents->add_int64_contents(Load<int64_t>(p));
    else if (t == "FP32") contents->add_fp32_contents(Load<float>(p));
    else if (t == "FP64") contents->add_fp64_contents(Load<double>(p));
    p += DatatypeSize(t);
  }
}

void CopyTensors(const google::protobuf::RepeatedPtrField<inference::ModelMetadataResponse::TensorMetadata>& from,
                 std::vector<TensorSpec>* to) {
  for (const auto& tensor : from) {
    to->push_back({tensor.name(), tensor.datatype(), {tensor.shape().begin(), tensor.shape().end()}});
  }
}

std::chrono::system_clock::time_point Deadline() {
  return std::chrono::system_clock::now() + std::chrono::seconds(10);
}

}  // namespace

GrpcClient::GrpcClient(const LoadgenOptions& options)
    : options_(options), target_(options.host + ":" + std::to_string(options.port)) {
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(-1);
  arguments.SetMaxSendMessageSize(-1);
  channel_ = grpc::CreateCustomChannel(target_, grpc::InsecureChannelCredentials(), arguments);
  stub_ = inference::GRPCInferenceService::NewStub(channel_);
}

std::string GrpcClient::FetchModelInfo(ModelInfo* info) {
  inference::ModelMetadataRequest metadata_request;
  metadata_request.set_name(options_.model);
  metadata_request.set_version(options_.model_version);
  inference::ModelMetadataResponse metadata;
  grpc::ClientContext metadata_context;
  metadata_context.set_deadline(Deadline());
  grpc::Status status = stub_->ModelMetadata(&metadata_context, metadata_request, &metadata);
  if (!status.ok()) {
    return "ModelMetadata of model '" + options_.model + "' at " + target_ + ": " + status.error_message();
  }
  info->name = options_.model;
  CopyTensors(metadata.inputs(), &info->inputs);
  CopyTensors(metadata.outputs(), &info->outputs);
  if (info->inputs.empty()) return "model '" + options_.model + "' metadata lists no inputs";

  inference::ModelConfigRequest config_request;
  config_request.set_name(options_.model);
  config_request.set_version(options_.model_version);
  inference::ModelConfigResponse config;
  grpc::ClientContext config_context;
  config_context.set_deadline(Deadline());
  status = stub_->ModelConfig(&config_context, config_request, &config);
  if (!status.ok()) {
    return "ModelConfig of model '" + options_.model + "' at " + target_ + ": " + status.error_message();
  }
  info->max_batch_size = config.config().max_batch_size();
  return "";
}

void GrpcClient::PrepareRequest(const ModelInfo& info, const std::vector<GeneratedTensor>& inputs) {
  request_.set_model_name(options_.model);
  request_.set_model_version(options_.model_version);
  bool raw = options_.binary;
  for (const GeneratedTensor& input : inputs) raw |= input.datatype == "FP16" || input.datatype == "BF16";
  for (const GeneratedTensor& input : inputs) {
    inference::ModelInferRequest::InferInputTensor* tensor = request_.add_inputs();
    tensor->set_name(input.name);
    tensor->set_datatype(input.datatype);
    for (int64_t dim : input.shape) tensor->add_shape(dim);
    if (raw) request_.add_raw_input_contents(input.bytes);
    else FillContents(input, tensor->mutable_contents());
  }
}

void GrpcClient::AsyncInfer(InferCallback done) {
  // One call's state, freed by its completion.
  struct Call {
    grpc::ClientContext context;
    inference::ModelInferResponse response;
    InferCallback done;
  };
  auto* call = new Call;
  call->done = std::move(done);
  stub_->async()->ModelInfer(&call->context, &request_, &call->response,
                             [call](grpc::Status status) {
                               if (status.ok()) {
                                 call->done(true, "");
                               } else {
                                 call->done(false, "gRPC " + std::to_string(status.error_code()) +
                                                       ": " + status.error_message());
                               }
                               delete call;
                             });
}

std::unique_ptr<InferClient> MakeGrpcClient(const LoadgenOptions& options) {
  return std::make_unique<GrpcClient>(options);
}

}  // namespace inferd::loadgen
