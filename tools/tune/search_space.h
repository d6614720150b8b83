// What inferd tune varies: a Setting (max_batch_size, the dynamic batcher's
// max_queue_delay_microseconds and the instance count) and the SearchSpace,
// one sorted list of values per dimension; a GridIndex names one setting of
// the space by the position of each of its values.
#ifndef INFERD_TOOLS_TUNE_SEARCH_SPACE_H_
#define INFERD_TOOLS_TUNE_SEARCH_SPACE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace inferd::tune {

struct Setting {
  int64_t max_batch_size = 0;
  int64_t queue_delay_us = 0;
  int64_t instances = 1;

  bool operator==(const Setting&) const = default;
  // "max_batch_size 32, queue delay 2000 us, 2 instances".
  std::string Describe() const;
  // "32/2000/2", for narrow columns and legends.
  std::string Short() const;
};

enum Dimension : size_t { kBatch = 0, kDelay = 1, kInstances = 2 };
constexpr size_t kDimensions = 3;

using GridIndex = std::array<size_t, kDimensions>;

struct SearchSpace {
  // Per Dimension, ascending and without duplicates; none empty.
  std::array<std::vector<int64_t>, kDimensions> values;

  size_t size() const;  // settings in the full grid
  std::array<size_t, kDimensions> extents() const;
  Setting At(const GridIndex& index) const;
  // The index whose values are closest to `setting`'s, dimension by dimension:
  // where the search starts (the model's own configuration).
  GridIndex Nearest(const Setting& setting) const;
};

// Parses "1,8,32" into ascending unique values, each >= `minimum`. Returns ""
// or an error naming `flag` and the text.
std::string ParseValueList(const std::string& flag, const std::string& text, int64_t minimum,
                           std::vector<int64_t>* values);

}  // namespace inferd::tune

#endif  // INFERD_TOOLS_TUNE_SEARCH_SPACE_H_
