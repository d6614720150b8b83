// The record file: one line per row an execution ran, appended before any of
// the execution's responses is sent, so a test that got a response (or waits
// for a line) sees what the backend saw, padding rows and the END requests of
// idle sequences included. An execution's lines are written together and the
// file closed at once, so a reader never sees half a line.
#ifndef INFERD_BACKENDS_ACCUMULATE_RECORDER_H_
#define INFERD_BACKENDS_ACCUMULATE_RECORDER_H_

#include <string>
#include <utility>

#include "inferd/base/mutex.h"

namespace inferd::accumulate {

class Recorder {
 public:
  explicit Recorder(std::string path) : path_(std::move(path)) {}

  bool enabled() const { return !path_.empty(); }

  // Appends `lines` (each ending in a newline); nothing without a file. Any thread.
  void Append(const std::string& lines) EXCLUDES(mu_);

 private:
  const std::string path_;
  // Instances of one model may execute at once: held while lines are written
  // so executions never interleave. It guards the file, not a member.
  Mutex mu_;
};

}  // namespace inferd::accumulate

#endif  // INFERD_BACKENDS_ACCUMULATE_RECORDER_H_
