// Lines appended to a record file, so that tests wait on what a test backend
// (accumulate, repeat) observed instead of on time: the rows an execution ran,
// how a stream ended. Each write is whole and the file closed at once, so a
// reader never sees half a line.
#ifndef INFERD_BACKENDS_COMMON_RECORDER_H_
#define INFERD_BACKENDS_COMMON_RECORDER_H_

#include <string>

#include "inferd/base/mutex.h"

namespace inferd::backend_common {

class Recorder {
 public:
  // Appends `lines` (each ending in a newline) to the file at `path`; nothing
  // when `path` or `lines` is empty. Any thread.
  void Append(const std::string& path, const std::string& lines) EXCLUDES(mu_);

 private:
  // Instances of one model may execute at once, and streams end on different
  // threads: held while lines are written so writers never interleave. It
  // guards the files, not a member.
  Mutex mu_;
};

}  // namespace inferd::backend_common

#endif  // INFERD_BACKENDS_COMMON_RECORDER_H_
