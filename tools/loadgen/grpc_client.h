// The gRPC client of the load generator: inference.GRPCInferenceService over
// one channel, ModelInfer on gRPC's callback API (no thread per request; the
// completions run on gRPC's own threads). Inputs go as raw_input_contents
// with --binary, else as typed contents (raw anyway for FP16 and BF16, which
// have no typed field). Thread-safe.
#ifndef INFERD_TOOLS_LOADGEN_GRPC_CLIENT_H_
#define INFERD_TOOLS_LOADGEN_GRPC_CLIENT_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <vector>

#include "grpc_service.grpc.pb.h"
#include "loadgen/infer_client.h"

namespace inferd::loadgen {

class GrpcClient final : public InferClient {
 public:
  explicit GrpcClient(const LoadgenOptions& options);
  GrpcClient(const GrpcClient&) = delete;
  GrpcClient& operator=(const GrpcClient&) = delete;

  std::string FetchModelInfo(ModelInfo* info) override;
  void PrepareRequest(const ModelInfo& info, const std::vector<GeneratedTensor>& inputs) override;
  void AsyncInfer(InferCallback done) override;
  size_t connection_count() const override { return 1; }

 private:
  // Constant after construction.
  const LoadgenOptions options_;
  const std::string target_;  // host:port
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<inference::GRPCInferenceService::Stub> stub_;
  // Constant after PrepareRequest; read by every call at once.
  inference::ModelInferRequest request_;
};

}  // namespace inferd::loadgen

#endif  // INFERD_TOOLS_LOADGEN_GRPC_CLIENT_H_
