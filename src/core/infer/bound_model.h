// What a request and its responses need of the model version the request is
// bound to, from submission to release: its identity, how to classify its
// outputs, where its statistics go, and how to tell it the request is done.
// ModelVersion implements it (model/ sits above infer/ and includes it, not
// the other way round); an ensemble or any other thing that admits requests
// can implement it too. Implementations are thread-safe.
#ifndef INFERD_CORE_INFER_BOUND_MODEL_H_
#define INFERD_CORE_INFER_BOUND_MODEL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace inferd {

class Clock;
class ModelStatistics;
class SenderRegistry;

class BoundModel {
 public:
  virtual ~BoundModel() = default;

  virtual const std::string& name() const = 0;
  virtual int64_t version() const = 0;
  // True when the first dimension of inputs and outputs is the batch (max_batch_size > 0).
  virtual bool batches() const = 0;
  // model_transaction_policy { decoupled: true }: any number of responses
  // per request, counted in per-response statistics.
  virtual bool decoupled() const = 0;
  // The response senders of its requests still open (for unload).
  virtual SenderRegistry& senders() = 0;
  // The lines of output `name`'s label_filename; empty when it has none.
  virtual const std::vector<std::string>& OutputLabels(std::string_view name) const = 0;
  virtual ModelStatistics& stats() const = 0;
  // The clock request times are measured with.
  virtual const Clock& clock() const = 0;
  // A request bound to this model was released (its in-flight count drops).
  virtual void OnRequestReleased() = 0;
};

}  // namespace inferd

#endif  // INFERD_CORE_INFER_BOUND_MODEL_H_
