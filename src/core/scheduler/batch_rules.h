// How the dynamic batcher decides the size of the next batch, as a pure
// function over the batch sizes of the queued requests (001's rules, as
// Triton applies them): requests join in arrival order up to max_batch_size;
// the largest preferred size that can be formed goes at once; otherwise a full
// batch goes at once, and a partial one waits until the oldest request has been
// queued max_queue_delay (no delay configured: it goes at once).
#ifndef INFERD_CORE_SCHEDULER_BATCH_RULES_H_
#define INFERD_CORE_SCHEDULER_BATCH_RULES_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace inferd {

struct BatchRules {
  int64_t max_batch_size = 1;                // rows; 1 for a model that does not batch
  std::vector<int64_t> preferred_sizes;      // ascending; empty means none
};

struct BatchChoice {
  size_t request_count = 0;  // how many queued requests, from the front, to send
  bool send_now = false;     // false: wait for more requests or for the delay
};

// `rows` are the batch sizes of the queued requests in order; `compatible` how
// many of them, from the front, may share a batch (shapes agree). With
// `delay_expired` (or no delay configured) a batch that is not of a preferred
// size goes anyway.
BatchChoice ChooseBatch(const std::vector<int64_t>& rows, size_t compatible,
                        const BatchRules& rules, bool delay_expired);

// How many more rows a waiting batch of `total` rows (every queued request,
// not yet of a preferred size nor full) needs before ChooseBatch could decide
// otherwise: up to the next preferred size above `total` or to
// max_batch_size, whichever is smaller. Fewer new rows leave the choice as it
// was (wait for the queue delay), so nobody needs to look again.
int64_t RowsBeforeChoiceChanges(int64_t total, const BatchRules& rules);

}  // namespace inferd

#endif  // INFERD_CORE_SCHEDULER_BATCH_RULES_H_
