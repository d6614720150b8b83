// How one request wants its stream sent, from its parameters, falling back on
// the model's settings:
//   delay_ms          the wait before each response (whole milliseconds, at most an hour)
//   final_with_last   FINAL rides on the last response instead of following it alone
//   error_at          response number k is an error response; the stream goes on
//   record_file       where the stream's end is recorded (common/recorder.h)
// and three ways to misuse the response sender, to test how the server copes:
//   abandon           after the responses, delete the sender without FINAL
//   send_after_final  after FINAL, try to send one more response
//   hold              never send FINAL; keep the sender until the model finalizes
#ifndef INFERD_BACKENDS_REPEAT_REQUEST_OPTIONS_H_
#define INFERD_BACKENDS_REPEAT_REQUEST_OPTIONS_H_

#include <cstdint>
#include <string>

#include "inferd/backend.h"
#include "model_settings.h"

namespace inferd::repeat {

struct RequestOptions {
  int64_t delay_ms = 0;
  bool final_with_last = false;
  int64_t error_at = -1;  // none
  std::string record_file;
  bool abandon = false;
  bool send_after_final = false;
  bool hold = false;
};

// "250" -> 250 ms, clamped to [0, 1 h] so that a typo cannot park a stream for
// days; false for anything but a whole decimal number ("", "5s", "1.5").
bool ParseDelayMs(const char* text, int64_t* delay_ms);

// The request's options; INVALID_ARG naming the model and parameter when a
// value has the wrong type. Call before the request is released.
INFERD_Error* ReadRequestOptions(INFERD_Request* request, const ModelSettings& settings,
                                 RequestOptions* options);

}  // namespace inferd::repeat

#endif  // INFERD_BACKENDS_REPEAT_REQUEST_OPTIONS_H_
