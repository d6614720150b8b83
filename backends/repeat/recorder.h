// Lines appended to a record file as streams end, so that tests wait on what
// the backend observed ("cancelled req-7 after 12 responses") instead of on
// time. Each line is written whole and the file closed at once, so a reader
// never sees half a line.
#ifndef INFERD_BACKENDS_REPEAT_RECORDER_H_
#define INFERD_BACKENDS_REPEAT_RECORDER_H_

#include <string>

#include "inferd/base/mutex.h"

namespace inferd::repeat {

class Recorder {
 public:
  // Appends `line` and a newline to the file at `path`; nothing when `path`
  // is empty. Any thread.
  void Append(const std::string& path, const std::string& line) EXCLUDES(mu_);

 private:
  // Streams of one model may end on different threads (the worker, the
  // finalizer): held while a line is written so lines never interleave. It
  // guards the files, not a member.
  Mutex mu_;
};

}  // namespace inferd::repeat

#endif  // INFERD_BACKENDS_REPEAT_RECORDER_H_
