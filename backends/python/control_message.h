// The fixed-layout message that crosses the control channel between the
// backend and a Python stub. Every message is 40 bytes; tensors and text never
// travel in it: `offset`/`size` point into the instance's shared memory region
// (wire_format.h says what lies there). inferd_python_stub.py mirrors this
// layout as struct format "<IIQQQQ"; change both together.
#ifndef INFERD_BACKENDS_PYTHON_CONTROL_MESSAGE_H_
#define INFERD_BACKENDS_PYTHON_CONTROL_MESSAGE_H_

#include <cstdint>

namespace inferd::python {

enum class MessageType : uint32_t {
  // backend -> stub, on the main channel
  kInitialize = 1,    // offset/size: the initialize() args as JSON
  kExecute = 2,       // id: batch; offset/size: the batch block
  kFinalize = 3,      // the stub calls finalize() and exits
  kAutoComplete = 4,  // offset/size: the model config JSON
  kPing = 5,          // answered with kPong (measures the channel)
  // stub -> backend, on the main channel
  kInitializeDone = 101,    // flags kError: offset/size the error text in the ring
  kExecuteDone = 102,       // id: the batch that execute() finished
  kResponse = 103,          // id: request handle; flags; offset/size: a response block
  kFinalizeDone = 104,
  kAutoCompleteDone = 105,  // offset/size: the new config JSON or (kError) an error text
  kPong = 106,
  kIsCancelled = 107,       // id: request handle; answered on the call channel
  kBlsRequest = 108,        // id: the stub's call; offset/size: a BLS request block
  kBlsFree = 109,           // offset: a kBlsResponse block the stub has copied out
  // id: request handle; execute() set_release_flags(RESCHEDULE) on it. Sent
  // before the batch's end (kExecuteDone, kFlagBatchDone).
  kReschedule = 130,
  // backend -> stub, on the call channel (answers to the stub's questions)
  kCancelledReply = 201,    // flags: 1 when cancelled
  kBlsResponse = 202,       // id: the call; flags kFlagFinal, kFlagHasBlock (a response
                            // block in the request area, freed by kBlsFree)
};

// Bits of ControlMessage::flags.
enum MessageFlag : uint32_t {
  kFlagFinal = 1,     // kResponse: the request's last (INFERD_RESPONSE_COMPLETE_FINAL)
  kFlagHasBlock = 2,  // kResponse: offset/size hold a response block
  kFlagError = 4,     // *Done: offset/size hold an error text
  // kResponse: and execute() returned (saves a kExecuteDone message on the
  // common path, one response per request, sent as execute() returns).
  kFlagBatchDone = 8,
};

struct ControlMessage {
  uint32_t type = 0;
  uint32_t flags = 0;
  uint64_t id = 0;
  uint64_t offset = 0;  // from the start of the shared memory region
  uint64_t size = 0;
  // For blocks the stub wrote into its ring: the ring's write position just
  // after this block. The backend publishes it as consumed once it has copied
  // the block out, which frees the space (see ResponseRing in wire_format.h).
  uint64_t ring_end = 0;
};
static_assert(sizeof(ControlMessage) == 40, "the stub unpacks 40 bytes: <IIQQQQ");

// A message of `type` (no flags).
inline ControlMessage MakeMessage(MessageType type, uint64_t id = 0, uint64_t offset = 0,
                                  uint64_t size = 0) {
  ControlMessage m;
  m.type = static_cast<uint32_t>(type);
  m.id = id;
  m.offset = offset;
  m.size = size;
  return m;
}

}  // namespace inferd::python

#endif  // INFERD_BACKENDS_PYTHON_CONTROL_MESSAGE_H_
