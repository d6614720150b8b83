// The accumulate backend: a stateful test model for the sequence batcher.
// Input INPUT (INT32, one value) and output OUTPUT (INT32, one value): the
// running sum of the INPUT values of the request's sequence, reset by START.
// Optional outputs, each present when the configuration lists it:
//   CONTROLS  INT64 [4]  START, END, READY (0/1) and CORRID (0 for string ids)
//                        as this request's control inputs carried them
//   BATCH     INT32 [1]  the number of rows (requests) of this execution
//   ROW       INT32 [1]  this request's row (batch slot) in the execution
// Control inputs are found by kind in sequence_batching (model_settings.h).
// Rows whose READY is false (the padding of a batch) change nothing. Without
// sequence_batching.state the backend keeps each sequence's sum, keyed by the
// CORRID control, and forgets it at END; with a state it keeps nothing: each
// request's state input plus INPUT is written to OUTPUT and to the state
// output, which the server feeds back to the sequence's next request.
// Model parameter record_file: one line per row an execution ran (padding rows
// and the END requests of idle sequences included), appended before any of
// the execution's responses is sent, so a test that got a response (or waits
// for a line) sees what the backend saw (common/recorder.h):
//   corrid=<id> start=<0|1> end=<0|1> ready=<0|1> input=<v> output=<sum> batch=<rows> row=<r>
//   instance=<name>
// on one line (output=- and a last field error=<message> for a row answered
// with an error).
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/config_messages.h"
#include "common/entry_points.h"
#include "common/recorder.h"
#include "controls.h"
#include "inferd/backend.h"
#include "input_bytes.h"
#include "model_settings.h"
#include "sequence_sums.h"

namespace inferd::accumulate {
namespace {

// A loaded model version.
struct AccumulateModel {
  explicit AccumulateModel(ModelSettings s) : settings(std::move(s)) {}

  const ModelSettings settings;
  SequenceSums sums;
  backend_common::Recorder recorder;  //!< appends to settings.record_file
};

// One request of an execution and what the backend made of it.
struct Row {
  INFERD_Request* request = nullptr;
  Controls controls;
  int32_t input = 0;
  int32_t output = 0;
  INFERD_Error* error = nullptr;  // owned until sent
};

AccumulateModel* ModelOf(INFERD_ModelInstance* instance) {
  INFERD_Model* model = nullptr;
  void* state = nullptr;
  INFERD_ErrorDelete(INFERD_ModelInstanceModel(instance, &model));
  INFERD_ErrorDelete(INFERD_ModelState(model, &state));
  return static_cast<AccumulateModel*>(state);
}

INFERD_Error* RowError(const ModelSettings& settings, const std::string& what) {
  const std::string message =
      "accumulate backend: model '" + settings.model_name + "': " + what;
  return INFERD_ErrorNew(INFERD_ERROR_INVALID_ARG, message.c_str());
}

// A batching model's request must carry one row: a sequence is one value at a time.
INFERD_Error* CheckOneRow(INFERD_Request* request, const ModelSettings& settings) {
  INFERD_Input* input = nullptr;
  if (INFERD_Error* err = INFERD_RequestInput(request, "INPUT", &input)) {
    INFERD_ErrorDelete(err);
    return nullptr;  // zero-filled by ReadInt32Input
  }
  const int64_t* shape = nullptr;
  uint32_t dims = 0;
  if (INFERD_Error* err =
          INFERD_InputProperties(input, nullptr, nullptr, &shape, &dims, nullptr, nullptr)) {
    return err;
  }
  int64_t elements = 1;
  for (uint32_t d = 0; d < dims; ++d) elements *= shape[d];
  if (elements != 1) {
    return RowError(settings, "input 'INPUT' must hold one value per request (one step of "
                              "the sequence), got " + std::to_string(elements));
  }
  return nullptr;
}

// Reads the request's controls and INPUT and updates its sequence's sum.
void Compute(AccumulateModel& model, Row& row) {
  const ModelSettings& settings = model.settings;
  row.error = ReadControls(row.request, settings, &row.controls);
  if (row.error == nullptr) row.error = CheckOneRow(row.request, settings);
  if (row.error == nullptr) row.error = ReadInt32Input(row.request, "INPUT", &row.input);
  if (row.error != nullptr) return;
  if (settings.implicit_state()) {
    INFERD_Input* state_input = nullptr;
    if (INFERD_Error* err =
            INFERD_RequestInput(row.request, settings.state_input.c_str(), &state_input)) {
      INFERD_ErrorDelete(err);
      row.error = RowError(settings, "the server did not feed state input '" +
                                         settings.state_input + "' (sequence_batching state)");
      return;
    }
    int32_t state = 0;
    row.error = ReadInt32Input(row.request, settings.state_input, &state);
    if (row.error != nullptr) return;
    // A padding row hands the state back unchanged.
    row.output = row.controls.ready ? static_cast<int32_t>(static_cast<uint32_t>(state) +
                                                           static_cast<uint32_t>(row.input))
                                    : state;
    return;
  }
  if (!row.controls.ready) return;
  if (!model.sums.Add(row.controls.key, row.controls.start, row.input, &row.output)) {
    row.error = RowError(settings, "sequence " + row.controls.key +
                                       " has no running sum here: no START for it reached "
                                       "this model version");
    return;
  }
  // Forgotten before the response goes out: once the client has it, it may
  // start the same id again, and that START must not be forgotten.
  if (row.controls.end) model.sums.Forget(row.controls.key);
}

std::string RecordLine(const Row& row, uint32_t batch, uint32_t index, const char* instance) {
  const Controls& c = row.controls;
  std::string line = "corrid=" + c.key + " start=" + (c.start ? "1" : "0") +
                     " end=" + (c.end ? "1" : "0") + " ready=" + (c.ready ? "1" : "0") +
                     " input=" + std::to_string(row.input) +
                     " output=" + (row.error ? "-" : std::to_string(row.output)) +
                     " batch=" + std::to_string(batch) + " row=" + std::to_string(index) +
                     " instance=" + instance;
  if (row.error != nullptr) {
    const char* message = INFERD_ErrorMessage(row.error);
    line += std::string(" error=") + (message ? message : "");
  }
  return line + "\n";
}

// Adds output `name` holding `values` (one row of a batch when `batched`).
template <typename T>
INFERD_Error* AddOutput(INFERD_Response* response, const char* name, INFERD_DataType datatype,
                        bool batched, const std::vector<T>& values) {
  const int64_t count = static_cast<int64_t>(values.size());
  const int64_t batched_shape[] = {1, count};
  const int64_t shape[] = {count};
  INFERD_Output* output = nullptr;
  if (INFERD_Error* err = INFERD_ResponseOutput(response, &output, name, datatype,
                                                batched ? batched_shape : shape,
                                                batched ? 2 : 1)) {
    return err;
  }
  void* buffer = nullptr;
  INFERD_MemoryType memory_type = INFERD_MEMORY_CPU;
  int64_t memory_type_id = 0;
  const uint64_t bytes = values.size() * sizeof(T);
  if (INFERD_Error* err =
          INFERD_OutputBuffer(output, &buffer, bytes, &memory_type, &memory_type_id)) {
    return err;
  }
  std::memcpy(buffer, values.data(), bytes);
  return nullptr;
}

// The requested outputs, and the state output (which the server keeps).
INFERD_Error* FillResponse(const ModelSettings& settings, const Row& row, uint32_t batch,
                           uint32_t index, INFERD_Response* response) {
  const bool b = settings.batched;
  uint32_t count = 0;
  if (INFERD_Error* err = INFERD_RequestOutputCount(row.request, &count)) return err;
  for (uint32_t i = 0; i < count; ++i) {
    const char* name = nullptr;
    if (INFERD_Error* err = INFERD_RequestOutputName(row.request, i, &name)) return err;
    INFERD_Error* err = nullptr;
    if (std::strcmp(name, "OUTPUT") == 0) {
      err = AddOutput<int32_t>(response, name, INFERD_TYPE_INT32, b, {row.output});
    } else if (std::strcmp(name, "CONTROLS") == 0) {
      const Controls& c = row.controls;
      err = AddOutput<int64_t>(response, name, INFERD_TYPE_INT64, b,
                               {c.start, c.end, c.ready, static_cast<int64_t>(c.numeric)});
    } else if (std::strcmp(name, "BATCH") == 0) {
      err = AddOutput<int32_t>(response, name, INFERD_TYPE_INT32, b,
                               {static_cast<int32_t>(batch)});
    } else if (std::strcmp(name, "ROW") == 0) {
      err = AddOutput<int32_t>(response, name, INFERD_TYPE_INT32, b,
                               {static_cast<int32_t>(index)});
    } else if (settings.state_output != name) {
      err = RowError(settings, std::string("unknown output '") + name +
                                   "'; the backend makes OUTPUT, CONTROLS, BATCH and ROW");
    }
    if (err != nullptr) return err;
  }
  if (settings.implicit_state()) {
    return AddOutput<int32_t>(response, settings.state_output.c_str(), INFERD_TYPE_INT32, b,
                              {row.output});
  }
  return nullptr;
}

// Sends `row`'s one response (its error, or its outputs) and releases the request.
void Answer(const ModelSettings& settings, Row& row, uint32_t batch, uint32_t index) {
  INFERD_Response* response = nullptr;
  if (INFERD_Error* err = INFERD_ResponseNew(&response, row.request)) {
    INFERD_ErrorDelete(err);
    INFERD_ErrorDelete(row.error);
  } else {
    INFERD_Error* error = row.error;
    if (error == nullptr) error = FillResponse(settings, row, batch, index, response);
    INFERD_ErrorDelete(INFERD_ResponseSend(response, INFERD_RESPONSE_COMPLETE_FINAL, error));
  }
  row.error = nullptr;
  INFERD_ErrorDelete(INFERD_RequestRelease(row.request, INFERD_REQUEST_RELEASE_ALL));
}

}  // namespace
}  // namespace inferd::accumulate

extern "C" {

__attribute__((visibility("default"))) INFERD_Error* INFERD_ModelInitialize(INFERD_Model* model) {
  const char* name = nullptr;
  if (INFERD_Error* err = INFERD_ModelName(model, &name)) return err;
  std::string json;
  if (INFERD_Error* err = inferd::backend_common::ReadModelConfigJson(model, &json)) return err;
  inferd::accumulate::ModelSettings settings;
  if (INFERD_Error* err =
          inferd::accumulate::ReadModelSettings(name, json.data(), json.size(), &settings)) {
    return err;
  }
  return inferd::backend_common::GiveModelState(
      model, std::make_unique<inferd::accumulate::AccumulateModel>(std::move(settings)));
}

__attribute__((visibility("default"))) INFERD_Error* INFERD_ModelFinalize(INFERD_Model* model) {
  return inferd::backend_common::DeleteModelState<inferd::accumulate::AccumulateModel>(model);
}

__attribute__((visibility("default"))) INFERD_Error* INFERD_ModelInstanceExecute(
    INFERD_ModelInstance* instance, INFERD_Request** requests, uint32_t request_count) {
  using inferd::accumulate::Row;
  inferd::accumulate::AccumulateModel& model = *inferd::accumulate::ModelOf(instance);
  std::vector<Row> rows(request_count);
  for (uint32_t r = 0; r < request_count; ++r) {
    rows[r].request = requests[r];
    inferd::accumulate::Compute(model, rows[r]);
  }
  if (!model.settings.record_file.empty()) {
    const char* instance_name = "";
    INFERD_ErrorDelete(INFERD_ModelInstanceName(instance, &instance_name));
    std::string lines;
    for (uint32_t r = 0; r < request_count; ++r) {
      lines += inferd::accumulate::RecordLine(rows[r], request_count, r, instance_name);
    }
    model.recorder.Append(model.settings.record_file, lines);
  }
  for (uint32_t r = 0; r < request_count; ++r) {
    inferd::accumulate::Answer(model.settings, rows[r], request_count, r);
  }
  return nullptr;
}

}  // extern "C"
