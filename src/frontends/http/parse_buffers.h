// Per-thread first blocks for a request's JSON parse tree, so that a small
// request costs no allocation for it.
#ifndef INFERD_FRONTENDS_HTTP_PARSE_BUFFERS_H_
#define INFERD_FRONTENDS_HTTP_PARSE_BUFFERS_H_

#include <cstddef>
#include <memory>

namespace inferd::http {

struct ParseBuffers {
  static constexpr size_t kValueBytes = 16 << 10;  //!< the parse tree's values
  static constexpr size_t kStackBytes = 4 << 10;   //!< the parser's own stack
  char values[kValueBytes];
  char stack[kStackBytes];
};

// This thread's buffers for `Parser`'s parses (one set per parser, so that
// one's tree never shares memory with another's), allocated at the thread's
// first parse. Not a thread_local array: the process zeroes every thread's
// static TLS when it creates the thread, and these 20 KiB a parser would then
// cost each of the hundreds of threads that never parse a request (model
// instances, model loads) at their start.
template <typename Parser>
ParseBuffers& ThreadParseBuffers() {
  thread_local std::unique_ptr<ParseBuffers> buffers;
  if (buffers == nullptr) buffers.reset(new ParseBuffers);  // an arena: no need to zero it
  return *buffers;
}

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_PARSE_BUFFERS_H_
