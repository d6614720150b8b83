#include "core/scheduler/batch_rules.h"

#include <algorithm>

namespace inferd {

BatchChoice ChooseBatch(const std::vector<int64_t>& rows, size_t compatible,
                        const BatchRules& rules, bool delay_expired) {
  BatchChoice choice;
  int64_t total = 0;
  size_t count = 0;
  size_t best_preferred_count = 0;
  bool full = false;  // more requests are waiting than this batch can take
  const size_t limit = std::min(rows.size(), compatible);
  for (size_t i = 0; i < limit; ++i) {
    if (count > 0 && total + rows[i] > rules.max_batch_size) {
      full = true;
      break;
    }
    total += rows[i];
    ++count;
    if (std::binary_search(rules.preferred_sizes.begin(), rules.preferred_sizes.end(), total)) {
      best_preferred_count = count;
    }
  }
  if (count < rows.size()) full = true;
  if (count == 0) return choice;
  choice.request_count = count;
  if (best_preferred_count > 0) {
    // A preferred size can be formed: the largest one goes now, delay or not.
    choice.request_count = best_preferred_count;
    choice.send_now = true;
  } else if (full || total >= rules.max_batch_size || delay_expired) {
    // Nothing more can join, or waiting is over: send what there is.
    choice.send_now = true;
  }
  return choice;
}

int64_t RowsBeforeChoiceChanges(int64_t total, const BatchRules& rules) {
  int64_t threshold = rules.max_batch_size;
  const auto next = std::upper_bound(rules.preferred_sizes.begin(), rules.preferred_sizes.end(),
                                     total);
  if (next != rules.preferred_sizes.end()) threshold = std::min(threshold, *next);
  return std::max<int64_t>(1, threshold - total);
}

}  // namespace inferd
