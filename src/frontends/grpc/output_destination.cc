// Output tensors allocated inside ModelInferResponse.raw_output_contents.
#include "grpc/output_destination.h"

#include <exception>
#include <string>

namespace inferd::grpc_frontend {

Status OutputDestination::AllocateOutput(const char* name, size_t byte_size, void** buffer,
                                         void** buffer_userp) {
  std::string* raw = message->add_raw_output_contents();
  try {
    raw->resize(byte_size);
  } catch (const std::exception&) {  // nothing may be thrown across the server API
    message->mutable_raw_output_contents()->RemoveLast();
    return Status::Internal("no memory for the " + std::to_string(byte_size) +
                            " bytes of output '" + name + "'");
  }
  *buffer = raw->data();
  *buffer_userp = raw;
  return Status::Ok();
}

}  // namespace inferd::grpc_frontend
