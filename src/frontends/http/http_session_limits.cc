// The limits of one HTTP connection (http_session.h, http_limits.h): each
// phase's deadline and what happens past it, and the answer to a request
// past a size limit.
#include <spdlog/spdlog.h>

#include <boost/beast/http/error.hpp>

#include <chrono>
#include <string>

#include "http/http_session.h"

namespace inferd::http {
namespace bhttp = boost::beast::http;
using boost::system::error_code;

template <typename Transport>
void BasicHttpSession<Transport>::TimedOut() {
  if (!shared_.timeout_logged[static_cast<int>(phase_)].exchange(true)) {
    SPDLOG_INFO("HTTP: closed a connection that ran past {}={} {} (further ones are not logged)",
                TimeoutFlag(phase_), TimeoutOf(shared_.limits, phase_).count(),
                phase_ == TimedPhase::kWrite  ? "without reading its response"
                : phase_ == TimedPhase::kBody ? "waiting for its request body"
                                              : "waiting for a request line and headers");
  }
  // A slow reader or writer: its pending read or write ends aborted.
  if (inflight_ != nullptr) inflight_->Cancel();
  Close();
}

template <typename Transport>
HttpError BasicHttpSession<Transport>::SizeLimitError(error_code ec) const {
  if (ec == bhttp::error::header_limit) {
    // 431 (RFC 6585) says which part was too large; 413 would blame the body.
    return HttpError(431, Status::InvalidArg(
                              "request line and headers exceed " +
                              std::to_string(shared_.limits.max_header_bytes) +
                              " bytes (--http-max-header-size)"));
  }
  return HttpError(413, Status::InvalidArg("request body exceeds " +
                                           std::to_string(shared_.limits.max_body_bytes) +
                                           " bytes (--http-max-input-size)"));
}

template <typename Transport>
void BasicHttpSession<Transport>::SetDeadline(TimedPhase phase) {
  if (closed_) return;
  phase_ = phase;
  if (deadline_.Set(TimeoutOf(shared_.limits, phase), std::chrono::steady_clock::now())) {
    WaitForDeadline();
  }
}

template <typename Transport>
void BasicHttpSession<Transport>::WaitForDeadline() {
  deadline_timer_.expires_at(deadline_.wake_at());
  // Weak: a pending wake-up must not keep a finished session alive.
  deadline_timer_.async_wait([weak = this->weak_from_this()](error_code ec) {
    if (auto self = weak.lock()) self->OnDeadline(ec);
  });
}

template <typename Transport>
void BasicHttpSession<Transport>::OnDeadline(error_code ec) {
  if (ec || closed_) return;  // re-armed (a new wait is pending) or closed
  switch (deadline_.OnWake(std::chrono::steady_clock::now())) {
    case ConnectionDeadline::Wake::kWait:
      return WaitForDeadline();
    case ConnectionDeadline::Wake::kIdle:
      return;
    case ConnectionDeadline::Wake::kExpired:
      return TimedOut();
  }
}

#define INFERD_INSTANTIATE_LIMITS(Transport)                                     \
  template void BasicHttpSession<Transport>::TimedOut();                         \
  template HttpError BasicHttpSession<Transport>::SizeLimitError(error_code) const;  \
  template void BasicHttpSession<Transport>::SetDeadline(TimedPhase);            \
  template void BasicHttpSession<Transport>::WaitForDeadline();                  \
  template void BasicHttpSession<Transport>::OnDeadline(error_code);
INFERD_INSTANTIATE_LIMITS(PlainTransport)
#if INFERD_HTTP_TLS
INFERD_INSTANTIATE_LIMITS(TlsTransport)
#endif
#undef INFERD_INSTANTIATE_LIMITS

}  // namespace inferd::http
