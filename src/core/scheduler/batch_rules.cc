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
  const int64_t largest_preferred =
      rules.preferred_sizes.empty() ? rules.max_batch_size : rules.preferred_sizes.back();
  if (total >= rules.max_batch_size || total >= largest_preferred) {
    choice.request_count = best_preferred_count > 0 ? best_preferred_count : count;
    choice.send_now = true;
  } else if (full) {
    // Nothing more can join: the largest preferred batch, else all we have.
    choice.request_count = best_preferred_count > 0 ? best_preferred_count : count;
    choice.send_now = true;
  } else if (delay_expired) {
    choice.request_count = count;
    choice.send_now = true;
  } else {
    choice.request_count = count;
  }
  return choice;
}

}  // namespace inferd
