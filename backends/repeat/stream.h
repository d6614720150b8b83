// One request's stream of responses, advanced by the StreamWorker one step at
// a time: each Step sends what is due (a response, or FINAL) and says when
// the next step is. Response k carries value k of input 0 in output 0 and,
// if the model has a second output, k in it. Before every send the stream
// asks whether its request was cancelled, and if so ends it with a CANCELLED
// error.
//
// Lifetime: owns the request's response sender; destroying the stream deletes
// it, FINAL sent or not (without FINAL the server ends the request with an
// error). Not thread-safe: one thread at a time (the worker, or the model's
// finalizer once the worker stopped).
#ifndef INFERD_BACKENDS_REPEAT_STREAM_H_
#define INFERD_BACKENDS_REPEAT_STREAM_H_

#include <chrono>
#include <cstddef>
#include <string>

#include "inferd/backend.h"
#include "input_values.h"
#include "model_settings.h"
#include "common/recorder.h"
#include "request_options.h"

namespace inferd::repeat {

class Stream {
 public:
  using Clock = std::chrono::steady_clock;

  enum class Next {
    kWait,   // call Step again at the time it gave
    kHold,   // FINAL withheld on purpose (hold): keep the stream until the model finalizes
    kEnded,  // nothing more to send
  };

  // `settings` and `recorder` outlive the stream (the model's).
  Stream(const ModelSettings& settings, backend_common::Recorder& recorder,
         std::string request_id, RequestOptions options, InputValues values,
         INFERD_ResponseSender* sender);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // When the first step is due: the first response after one delay, or at
  // once when there is nothing but FINAL to send.
  Clock::time_point FirstDue(Clock::time_point now) const;

  // Sends what is due at `now`; on kWait sets *due to when the next step is.
  Next Step(Clock::time_point now, Clock::time_point* due);

 private:
  bool Cancelled() const;
  // Response k, or the error error_at asks for, with `flags`.
  INFERD_Error* SendResponse(size_t k, uint32_t flags);
  INFERD_Error* AddValueOutputs(INFERD_Response* response, size_t k) const;
  // After the last response: FINAL, or the misuse the options ask for.
  Next Finish(bool final_sent);
  Next EndCancelled();
  Next EndFailed(INFERD_Error* error);
  void SendLateResponse();
  void Record(const std::string& line);

  const ModelSettings& settings_;
  backend_common::Recorder& recorder_;
  const std::string request_id_;
  const RequestOptions options_;
  const InputValues values_;
  INFERD_ResponseSender* sender_;  // owned
  // send_after_final: a response made while the request was open, sent after FINAL.
  INFERD_Response* late_ = nullptr;
  size_t sent_ = 0;  // responses sent, error responses included
};

}  // namespace inferd::repeat

#endif  // INFERD_BACKENDS_REPEAT_STREAM_H_
