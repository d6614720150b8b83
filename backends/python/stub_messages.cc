// The stub's messages to the backend (see stub_instance.h): responses,
// questions (is_cancelled) and the model's own requests (BLS), handled on
// whichever thread read them.
#include "stub_instance.h"

#include <string>
#include <utility>

#include "backend_io.h"
#include "wire_format.h"

namespace inferd::python {

void StubInstance::Dispatch(const ControlMessage& m) {
  switch (static_cast<MessageType>(m.type)) {
    case MessageType::kResponse:
      OnResponse(m);
      break;
    case MessageType::kExecuteDone:
      MarkBatchDone();
      break;
    case MessageType::kIsCancelled:
      OnIsCancelled(m);
      break;
    case MessageType::kBlsRequest:
      OnBlsRequest(m);
      break;
    case MessageType::kBlsFree:
      OnBlsFree(m);
      break;
    case MessageType::kReschedule:
      OnReschedule(m);
      break;
    case MessageType::kFinalizeDone:
    case MessageType::kPong:
      break;
    default:
      LogLine('W', Label() + ": unexpected message type " + std::to_string(m.type));
      Consume(m);
  }
}

bool StubInstance::InRing(const ControlMessage& m) const {
  const uint64_t begin = region_.ring_begin();
  return m.offset >= begin && m.size <= region_.ring_bytes() &&
         m.offset - begin <= region_.ring_bytes() - m.size;
}

void StubInstance::Consume(const ControlMessage& m) {
  // Blocks are consumed in the order the stub wrote them, so the position
  // only moves forward; the stub reuses the space behind it.
  if (m.ring_end != 0) region_.ring_consumed().store(m.ring_end, std::memory_order_release);
}

std::string StubInstance::TakeRingText(const ControlMessage& m) {
  std::string text = InRing(m) ? std::string(region_.base() + m.offset, m.size)
                               : "(the stub sent a text outside its ring)";
  Consume(m);
  return text;
}

RequestReply StubInstance::TakeInFlight(std::unordered_map<uint64_t, InFlight>::iterator it) {
  RequestReply reply = std::move(it->second.reply);
  const uint64_t block = it->second.batch_block;
  in_flight_.erase(it);
  if (--batch_pending_[block] == 0) {
    batch_pending_.erase(block);
    allocator_->Free(block);
  }
  return reply;
}

void StubInstance::OnResponse(const ControlMessage& m) {
  const bool final = (m.flags & kFlagFinal) != 0;
  RequestReply last;             // the request's reply, when this is its final
  RequestReply* reply = nullptr;  // stays in in_flight_ when not final
  {
    MutexLock lock(&mu_);
    auto it = in_flight_.find(m.id);
    if (it != in_flight_.end()) {
      reply = &it->second.reply;
      if (final) {
        last = TakeInFlight(it);
        reply = &last;
      }
    }
  }
  Status sent;
  if (reply == nullptr) {
    // The stub's Python sent after FINAL; the user's error, logged once per send.
    LogLine('W', Label() + ": a response for a request that already ended was dropped");
  } else if (m.flags & kFlagHasBlock) {
    ResponseView view;
    Status parsed = InRing(m) ? ParseResponseBlock(region_.base() + m.offset, m.size, &view)
                              : Status::Internal("the Python stub sent a block outside its ring");
    sent = parsed.ok() ? reply->Send(view, final)
                       : reply->SendError(parsed.WithPrefix(Label() + ": "), final);
  } else if (final) {
    sent = reply->SendFinal();
  }
  Consume(m);
  if (!sent.ok()) LogLine('W', Label() + ": " + sent.message());
  if (m.flags & kFlagBatchDone) MarkBatchDone();
}

void StubInstance::OnReschedule(const ControlMessage& m) {
  RequestReply reply;
  {
    MutexLock lock(&mu_);
    auto it = in_flight_.find(m.id);
    if (it == in_flight_.end()) {
      lock.Unlock();
      LogLine('W', Label() + ": a request that already ended was rescheduled; ignored");
      return;
    }
    // The next execution copies its inputs anew: this batch's block may go.
    reply = TakeInFlight(it);
  }
  Status rescheduled = reply.Reschedule();
  if (rescheduled.ok()) return;
  Status sent = reply.SendError(rescheduled.WithPrefix(Label() + ": "), true);
  if (!sent.ok()) LogLine('W', Label() + ": " + sent.message());
}

void StubInstance::OnIsCancelled(const ControlMessage& m) {
  bool cancelled = true;  // an ended request is as good as cancelled
  {
    // The supervisor alone answers requests, so the reply stays while it asks.
    MutexLock lock(&mu_);
    auto it = in_flight_.find(m.id);
    if (it != in_flight_.end()) cancelled = it->second.reply.IsCancelled();
  }
  ControlMessage reply = MakeMessage(MessageType::kCancelledReply, m.id);
  reply.flags = cancelled ? 1 : 0;
  call_.Send(reply);
}

void StubInstance::OnBlsRequest(const ControlMessage& m) {
  uint64_t generation;
  {
    MutexLock lock(&mu_);
    generation = generation_;
    ++bls_in_flight_;
  }
  BlsRequestView request;
  Status s = InRing(m) ? ParseBlsRequest(region_.base() + m.offset, m.size, &request)
                       : Status::Internal("the Python stub sent a block outside its ring");
  // SubmitBls copies the inputs: the ring space can go back to the stub after.
  if (s.ok()) s = SubmitBls(server_, request, m.id, generation, this);
  Consume(m);
  if (s.ok()) return;
  ResponseView error;
  error.has_error = true;
  error.error_code = static_cast<uint32_t>(s.code());
  error.error = s.message();
  OnBlsResponse(m.id, generation, &error, true);
  OnBlsReleased();
}

void StubInstance::OnBlsResponse(uint64_t id, uint64_t generation, const ResponseView* response,
                                 bool final) {
  ControlMessage message = MakeMessage(MessageType::kBlsResponse, id);
  message.flags = final ? static_cast<uint32_t>(kFlagFinal) : 0u;
  MutexLock lock(&mu_);
  // A stub that died with the call open is not told; its successor never asked.
  if (generation != generation_ || call_fd_ < 0) return;
  if (response != nullptr) {
    ResponseView too_large;
    const ResponseView* written = response;
    uint64_t size = ResponseBlockSize(*response);
    std::optional<uint64_t> block = allocator_->Allocate(size);
    if (!block) {
      too_large.has_error = true;
      too_large.error_code = INFERD_ERROR_UNAVAILABLE;
      too_large.error = "the response of " + std::to_string(size) +
                        " bytes does not fit the free shared memory; raise "
                        "--backend-config=python,shm-region-size=BYTES";
      written = &too_large;
      size = ResponseBlockSize(too_large);
      block = allocator_->Allocate(size);
    }
    if (block) {
      WriteResponseBlock(*written, region_.base() + *block);
      bls_blocks_.insert(*block);
      message.flags |= kFlagHasBlock;
      message.offset = *block;
      message.size = size;
    }
  }
  ControlChannel::SendTo(call_fd_, message);
}

void StubInstance::OnBlsReleased() {
  MutexLock lock(&mu_);
  --bls_in_flight_;
  cv_.SignalAll();
}

void StubInstance::OnBlsFree(const ControlMessage& m) {
  MutexLock lock(&mu_);
  if (bls_blocks_.erase(m.offset) > 0) allocator_->Free(m.offset);
}

}  // namespace inferd::python
