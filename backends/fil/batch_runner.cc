// Gathering, predicting and answering one execute call (see batch_runner.h).
#include "batch_runner.h"

#include <algorithm>
#include <vector>

#include "common/entry_points.h"
#include "common/steady_clock.h"
#include "output_transform.h"

namespace inferd::fil {
namespace {

using backend_common::SteadyNowNs;

// One request that joins the batch.
struct Part {
  INFERD_Request* request = nullptr;
  INFERD_Input* input = nullptr;
  uint32_t buffer_count = 0;
  int64_t rows = 0;
  int64_t first_row = 0;  //!< where its rows start in the batch
};

void Finish(INFERD_Request* request, INFERD_Error* error, const std::string& prefix) {
  INFERD_Response* response = nullptr;
  if (INFERD_Error* err = INFERD_ResponseNew(&response, request)) {
    INFERD_ErrorDelete(err);
  } else {
    INFERD_Error* sent = error != nullptr ? backend_common::PrefixedError(error, prefix) : nullptr;
    INFERD_ErrorDelete(INFERD_ResponseSend(response, INFERD_RESPONSE_COMPLETE_FINAL, sent));
  }
  INFERD_ErrorDelete(error);
  INFERD_ErrorDelete(INFERD_RequestRelease(request, INFERD_REQUEST_RELEASE_ALL));
}

INFERD_Error* Invalid(const std::string& message) {
  return INFERD_ErrorNew(INFERD_ERROR_INVALID_ARG, message.c_str());
}

// Reads `request`'s input into `part`; an error says what is wrong with it.
INFERD_Error* ReadRequest(const FilSettings& settings, INFERD_Request* request, Part* part) {
  part->request = request;
  if (INFERD_Error* err = INFERD_RequestInput(request, settings.input_name.c_str(),
                                              &part->input)) {
    INFERD_ErrorDelete(err);
    return Invalid("the request lacks input '" + settings.input_name + "'");
  }
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  const int64_t* shape = nullptr;
  uint32_t rank = 0;
  uint64_t byte_size = 0;
  if (INFERD_Error* err = INFERD_InputProperties(part->input, nullptr, &datatype, &shape, &rank,
                                                 &byte_size, &part->buffer_count)) {
    return err;
  }
  if (datatype != INFERD_TYPE_FP32) {
    return Invalid("input '" + settings.input_name + "' is " + INFERD_DataTypeString(datatype) +
                   " but the model expects FP32");
  }
  const uint32_t want_rank = settings.max_batch_size > 0 ? 2 : 1;
  if (rank != want_rank || shape[rank - 1] != settings.features) {
    return Invalid("input '" + settings.input_name + "' must have shape " +
                   (want_rank == 2 ? "[rows, " : "[") + std::to_string(settings.features) + "]");
  }
  part->rows = rank == 2 ? shape[0] : 1;
  if (byte_size != static_cast<uint64_t>(part->rows * settings.features) * sizeof(float)) {
    return Invalid("input '" + settings.input_name + "' has " + std::to_string(byte_size) +
                   " bytes of data, not rows x features x 4");
  }
  return nullptr;
}

// The batch's features: the one buffer in place when it is aligned, or every buffer copied once
// into `gathered`. Null with `*error` set on failure.
const float* GatherRows(INFERD_ModelInstance* instance, const std::vector<Part>& parts,
                        int64_t rows, int64_t features, std::vector<float>* gathered,
                        INFERD_Error** error) {
  std::vector<INFERD_MemoryCopy> copies;
  char* dst = nullptr;
  for (const Part& part : parts) {
    for (uint32_t b = 0; b < part.buffer_count; ++b) {
      const void* buffer = nullptr;
      uint64_t size = 0;
      INFERD_MemoryType memory_type = INFERD_MEMORY_CPU;
      int64_t memory_type_id = 0;
      if ((*error = INFERD_InputBuffer(part.input, b, &buffer, &size, &memory_type,
                                       &memory_type_id))) {
        return nullptr;
      }
      // XGBoost refuses, and reading floats needs, 4-byte aligned rows; an
      // HTTP binary body may place them anywhere.
      if (parts.size() == 1 && part.buffer_count == 1 &&
          reinterpret_cast<uintptr_t>(buffer) % alignof(float) == 0) {
        return static_cast<const float*>(buffer);
      }
      if (dst == nullptr) {
        gathered->resize(static_cast<size_t>(rows * features));
        dst = reinterpret_cast<char*>(gathered->data());
      }
      copies.push_back(INFERD_MemoryCopy{dst, buffer, size});
      dst += size;
    }
  }
  if (copies.empty()) return gathered->data();
  *error = INFERD_ModelInstanceCopyBuffers(instance, copies.data(),
                                           static_cast<uint32_t>(copies.size()));
  return *error ? nullptr : gathered->data();
}

// Sends `part` its rows of the output; null or the error to answer it with.
INFERD_Error* Respond(const FilSettings& settings, int64_t model_width, bool class_ids,
                      const std::vector<float>& predictions, const Part& part) {
  INFERD_Response* response = nullptr;
  if (INFERD_Error* err = INFERD_ResponseNew(&response, part.request)) return err;
  const int64_t batched[2] = {part.rows, settings.output_width};
  const bool batching = settings.max_batch_size > 0;
  INFERD_Output* output = nullptr;
  INFERD_Error* err = INFERD_ResponseOutput(response, &output, settings.output_name.c_str(),
                                            INFERD_TYPE_FP32, batching ? batched : batched + 1,
                                            batching ? 2 : 1);
  void* buffer = nullptr;
  INFERD_MemoryType memory_type = INFERD_MEMORY_CPU;
  int64_t memory_type_id = 0;
  const uint64_t byte_size = static_cast<uint64_t>(part.rows * settings.output_width) * 4;
  if (err == nullptr && byte_size > 0) {
    err = INFERD_OutputBuffer(output, &buffer, byte_size, &memory_type, &memory_type_id);
  }
  if (err != nullptr) {
    INFERD_ErrorDelete(INFERD_ResponseDelete(response));
    return err;
  }
  if (byte_size > 0) {
    const float* rows = predictions.data() + part.first_row * model_width;
    if (class_ids) {
      std::copy(rows, rows + part.rows, static_cast<float*>(buffer));
    } else {
      TransformOutput(settings, model_width, rows, part.rows, static_cast<float*>(buffer));
    }
  }
  INFERD_ErrorDelete(INFERD_ResponseSend(response, INFERD_RESPONSE_COMPLETE_FINAL, nullptr));
  return nullptr;
}

}  // namespace

void ExecuteBatch(const FilSettings& settings, Forest& forest, const std::string& error_prefix,
                  INFERD_ModelInstance* instance, INFERD_Request** requests, uint32_t count) {
  std::vector<Part> parts;
  parts.reserve(count);
  int64_t rows = 0;
  for (uint32_t i = 0; i < count; ++i) {
    Part part;
    if (INFERD_Error* err = ReadRequest(settings, requests[i], &part)) {
      Finish(requests[i], err, error_prefix);
      continue;
    }
    part.first_row = rows;
    rows += part.rows;
    parts.push_back(part);
  }
  if (parts.empty()) return;

  const int64_t model_width = forest.width();
  std::vector<float> gathered;
  std::vector<float> predictions(static_cast<size_t>(rows * model_width));
  INFERD_Error* error = nullptr;
  const float* data = GatherRows(instance, parts, rows, settings.features, &gathered, &error);
  if (error == nullptr && rows > 0) {
    const uint64_t start = SteadyNowNs();
    const std::string failed = forest.Predict(data, rows, predictions.data());
    INFERD_ErrorDelete(INFERD_ModelInstanceReportComputeTimes(instance, start, SteadyNowNs()));
    if (!failed.empty()) error = INFERD_ErrorNew(INFERD_ERROR_INTERNAL, failed.c_str());
  }
  for (const Part& part : parts) {
    INFERD_Error* answer = nullptr;
    if (error != nullptr) {
      answer = INFERD_ErrorNew(INFERD_ErrorCode(error), INFERD_ErrorMessage(error));
    } else if (INFERD_Error* err =
                   Respond(settings, model_width, forest.class_ids(), predictions, part)) {
      answer = err;
    } else {
      INFERD_ErrorDelete(INFERD_RequestRelease(part.request, INFERD_REQUEST_RELEASE_ALL));
      continue;
    }
    Finish(part.request, answer, error_prefix);
  }
  INFERD_ErrorDelete(error);
}

}  // namespace inferd::fil
