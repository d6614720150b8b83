// The closest of a set of valid names to a misspelt one, for "did you mean"
// suggestions (unknown config fields and enum values). Stateless.
#ifndef INFERD_CORE_CONFIG_CLOSEST_NAME_H_
#define INFERD_CORE_CONFIG_CLOSEST_NAME_H_

#include <string>
#include <string_view>
#include <vector>

namespace inferd {

// Edit distance (insertions, deletions, substitutions and swaps of two
// neighbours each count 1), case-insensitive.
size_t EditDistance(std::string_view a, std::string_view b);

// The candidate nearest `word`, or "" when none is near enough to be a
// plausible typo (more than a third of the word's letters differ).
std::string ClosestName(std::string_view word, const std::vector<std::string>& candidates);

// Names for a parse error's message from protobuf's text-format parser:
// 'Message type "inference.ModelConfig" has no field named "max_batch_sise".'
// gives "did you mean 'max_batch_size'?", an unknown enumeration value the
// nearest value; "" when the message is neither or nothing is near.
std::string SuggestForParseError(std::string_view parser_message);

}  // namespace inferd

#endif  // INFERD_CORE_CONFIG_CLOSEST_NAME_H_
