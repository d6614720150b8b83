// Setting descriptions, grid indexing and value-list parsing of search_space.h.
#include "tune/search_space.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace inferd::tune {

std::string Setting::Describe() const {
  return "max_batch_size " + std::to_string(max_batch_size) + ", queue delay " +
         std::to_string(queue_delay_us) + " us, " + std::to_string(instances) +
         (instances == 1 ? " instance" : " instances");
}

std::string Setting::Short() const {
  return std::to_string(max_batch_size) + "/" + std::to_string(queue_delay_us) + "/" +
         std::to_string(instances);
}

size_t SearchSpace::size() const {
  size_t n = 1;
  for (const auto& list : values) n *= list.size();
  return n;
}

std::array<size_t, kDimensions> SearchSpace::extents() const {
  return {values[kBatch].size(), values[kDelay].size(), values[kInstances].size()};
}

Setting SearchSpace::At(const GridIndex& index) const {
  return {values[kBatch][index[kBatch]], values[kDelay][index[kDelay]],
          values[kInstances][index[kInstances]]};
}

GridIndex SearchSpace::Nearest(const Setting& setting) const {
  const std::array<int64_t, kDimensions> wanted{setting.max_batch_size, setting.queue_delay_us,
                                                setting.instances};
  GridIndex index{};
  for (size_t d = 0; d < kDimensions; ++d) {
    const std::vector<int64_t>& list = values[d];
    for (size_t i = 1; i < list.size(); ++i) {
      if (std::llabs(list[i] - wanted[d]) < std::llabs(list[index[d]] - wanted[d])) index[d] = i;
    }
  }
  return index;
}

std::string ParseValueList(const std::string& flag, const std::string& text, int64_t minimum,
                           std::vector<int64_t>* values) {
  values->clear();
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) {
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || errno != 0 || value < minimum || value > (1LL << 31)) {
      return flag + " '" + text + "': '" + item + "' is not a whole number >= " +
             std::to_string(minimum);
    }
    values->push_back(value);
  }
  if (values->empty()) return flag + " '" + text + "': expected a comma-separated list";
  std::sort(values->begin(), values->end());
  values->erase(std::unique(values->begin(), values->end()), values->end());
  return "";
}

}  // namespace inferd::tune
