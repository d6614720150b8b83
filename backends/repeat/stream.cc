// Sending one request's responses, step by step.
#include "stream.h"

#include <cstring>
#include <utility>

namespace inferd::repeat {
namespace {

// The message of `error`, which is deleted.
std::string TakeMessage(INFERD_Error* error) {
  std::string message = INFERD_ErrorMessage(error);
  INFERD_ErrorDelete(error);
  return message;
}

// An output of one element holding `data`.
INFERD_Error* AddOutput(INFERD_Response* response, const std::string& name,
                        INFERD_DataType datatype, bool batched, const void* data, size_t size) {
  // A batching model's outputs lead with the batch dimension: one row here.
  const int64_t shape[] = {1, 1};
  INFERD_Output* output = nullptr;
  if (INFERD_Error* err =
          INFERD_ResponseOutput(response, &output, name.c_str(), datatype, shape, batched ? 2 : 1)) {
    return err;
  }
  void* buffer = nullptr;
  INFERD_MemoryType memory_type = INFERD_MEMORY_CPU;
  int64_t memory_type_id = 0;
  if (INFERD_Error* err =
          INFERD_OutputBuffer(output, &buffer, size, &memory_type, &memory_type_id)) {
    return err;
  }
  std::memcpy(buffer, data, size);
  return nullptr;
}

}  // namespace

Stream::Stream(const ModelSettings& settings, backend_common::Recorder& recorder,
               std::string request_id, RequestOptions options, InputValues values,
               INFERD_ResponseSender* sender)
    : settings_(settings),
      recorder_(recorder),
      request_id_(std::move(request_id)),
      options_(std::move(options)),
      values_(std::move(values)),
      sender_(sender) {}

Stream::~Stream() {
  if (late_ != nullptr) INFERD_ErrorDelete(INFERD_ResponseDelete(late_));
  if (sender_ != nullptr) INFERD_ErrorDelete(INFERD_ResponseSenderDelete(sender_));
}

Stream::Clock::time_point Stream::FirstDue(Clock::time_point now) const {
  if (values_.count() == 0) return now;
  return now + std::chrono::milliseconds(options_.delay_ms);
}

Stream::Next Stream::Step(Clock::time_point now, Clock::time_point* due) {
  // Made while the request is surely open, so that only the send after FINAL
  // is what the server refuses.
  if (options_.send_after_final && late_ == nullptr) {
    INFERD_ErrorDelete(INFERD_ResponseNewFromSender(&late_, sender_));
  }
  if (Cancelled()) return EndCancelled();
  const size_t count = values_.count();
  if (sent_ < count) {
    const bool last = sent_ + 1 == count;
    // FINAL rides on the last response only when asked, and never when the
    // stream is to misuse the sender after its responses.
    const bool final =
        last && options_.final_with_last && !options_.hold && !options_.abandon;
    if (INFERD_Error* err = SendResponse(sent_, final ? INFERD_RESPONSE_COMPLETE_FINAL : 0)) {
      return EndFailed(err);
    }
    ++sent_;
    if (!last) {
      *due = now + std::chrono::milliseconds(options_.delay_ms);
      return Next::kWait;
    }
    return Finish(final);
  }
  return Finish(false);
}

bool Stream::Cancelled() const {
  bool cancelled = false;
  if (INFERD_Error* err = INFERD_ResponseSenderIsCancelled(sender_, &cancelled)) {
    INFERD_ErrorDelete(err);
    return false;  // a send that follows reports what is wrong
  }
  return cancelled;
}

INFERD_Error* Stream::SendResponse(size_t k, uint32_t flags) {
  INFERD_Response* response = nullptr;
  if (INFERD_Error* err = INFERD_ResponseNewFromSender(&response, sender_)) return err;
  INFERD_Error* response_error = nullptr;
  if (options_.error_at >= 0 && k == static_cast<size_t>(options_.error_at)) {
    const std::string message = "repeat model '" + settings_.model_name + "': response " +
                                std::to_string(k) + " of request '" + request_id_ +
                                "' is an error, as parameter error_at asked";
    response_error = INFERD_ErrorNew(INFERD_ERROR_INVALID_ARG, message.c_str());
  } else {
    // An output that cannot be made is reported in the response itself.
    response_error = AddValueOutputs(response, k);
  }
  return INFERD_ResponseSend(response, flags, response_error);
}

INFERD_Error* Stream::AddValueOutputs(INFERD_Response* response, size_t k) const {
  const std::string value = values_.Element(k);
  if (INFERD_Error* err = AddOutput(response, settings_.value_output, values_.datatype(),
                                    settings_.batched, value.data(), value.size())) {
    return err;
  }
  if (settings_.index_output.empty()) return nullptr;
  const auto index = static_cast<int32_t>(k);
  return AddOutput(response, settings_.index_output, INFERD_TYPE_INT32, settings_.batched,
                   &index, sizeof index);
}

Stream::Next Stream::Finish(bool final_sent) {
  const std::string counted = request_id_ + " " + std::to_string(sent_);
  if (options_.hold) {
    Record("held " + counted);
    return Next::kHold;
  }
  if (options_.abandon) {
    // The server must end the request itself once its last sender is gone.
    INFERD_ErrorDelete(INFERD_ResponseSenderDelete(sender_));
    sender_ = nullptr;
    Record("abandoned " + counted);
    return Next::kEnded;
  }
  if (!final_sent) {
    if (Cancelled()) return EndCancelled();
    if (INFERD_Error* err =
            INFERD_ResponseSenderSendFlags(sender_, INFERD_RESPONSE_COMPLETE_FINAL)) {
      return EndFailed(err);
    }
  }
  if (options_.send_after_final) SendLateResponse();
  Record("done " + counted);
  return Next::kEnded;
}

void Stream::SendLateResponse() {
  if (late_ == nullptr) {
    Record("send after final refused: no response could be made before FINAL");
    return;
  }
  // The send frees the response whether or not the server accepts it.
  INFERD_Error* err = INFERD_ResponseSend(late_, 0, nullptr);
  late_ = nullptr;
  Record(err != nullptr ? "send after final refused: " + TakeMessage(err)
                        : "send after final accepted");
}

Stream::Next Stream::EndCancelled() {
  INFERD_Response* response = nullptr;
  if (INFERD_Error* err = INFERD_ResponseNewFromSender(&response, sender_)) {
    INFERD_ErrorDelete(err);  // the request already ended
  } else {
    const std::string message = "repeat model '" + settings_.model_name + "': request '" +
                                request_id_ + "' was cancelled after " +
                                std::to_string(sent_) + " responses";
    INFERD_ErrorDelete(INFERD_ResponseSend(response, INFERD_RESPONSE_COMPLETE_FINAL,
                                           INFERD_ErrorNew(INFERD_ERROR_CANCELLED,
                                                           message.c_str())));
  }
  Record("cancelled " + request_id_ + " after " + std::to_string(sent_) + " responses");
  return Next::kEnded;
}

Stream::Next Stream::EndFailed(INFERD_Error* error) {
  Record("failed " + request_id_ + " after " + std::to_string(sent_) +
         " responses: " + TakeMessage(error));
  return Next::kEnded;
}

void Stream::Record(const std::string& line) {
  recorder_.Append(options_.record_file, line + "\n");
}

}  // namespace inferd::repeat
