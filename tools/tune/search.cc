// The exhaustive grid and the coordinate descent of search.h.
#include "tune/search.h"

#include <map>

namespace inferd::tune {
namespace {

// Measures each point once and remembers the order and the scores.
class Memo {
 public:
  explicit Memo(const Evaluate& evaluate) : evaluate_(evaluate) {}

  // The point's score, measured now unless it was before; nullopt when interrupted.
  std::optional<Score> Get(const GridIndex& index) {
    if (auto found = seen_.find(index); found != seen_.end()) return result_.scores[found->second];
    std::optional<Score> score = evaluate_(index);
    if (!score) {
      result_.interrupted = true;
      return std::nullopt;
    }
    seen_[index] = result_.measured.size();
    result_.measured.push_back(index);
    result_.scores.push_back(*score);
    return score;
  }

  SearchResult Finish() {
    for (size_t i = 1; i < result_.scores.size(); ++i) {
      if (Better(result_.scores[i], result_.scores[result_.best], 0)) result_.best = i;
    }
    return std::move(result_);
  }

 private:
  const Evaluate& evaluate_;
  std::map<GridIndex, size_t> seen_;
  SearchResult result_;
};

}  // namespace

bool Better(const Score& a, const Score& b, double margin) {
  if (a.feasible != b.feasible) return a.feasible;
  if (a.feasible) return a.throughput > b.throughput * (1 + margin);
  return a.p99_ms < b.p99_ms * (1 - margin);
}

SearchResult SearchExhaustive(const SearchSpace& space, const Evaluate& evaluate) {
  Memo memo(evaluate);
  const auto extents = space.extents();
  for (size_t b = 0; b < extents[kBatch]; ++b) {
    for (size_t d = 0; d < extents[kDelay]; ++d) {
      for (size_t i = 0; i < extents[kInstances]; ++i) {
        if (!memo.Get({b, d, i})) return memo.Finish();
      }
    }
  }
  return memo.Finish();
}

SearchResult SearchCoordinateDescent(const SearchSpace& space, const GridIndex& start,
                                     double margin, const Evaluate& evaluate) {
  Memo memo(evaluate);
  const auto extents = space.extents();
  GridIndex current = start;
  std::optional<Score> current_score = memo.Get(current);
  bool moved = current_score.has_value();
  while (moved) {
    moved = false;
    for (size_t d = 0; d < kDimensions; ++d) {
      for (int direction : {+1, -1}) {
        bool walked = false;
        for (;;) {
          GridIndex next = current;
          if ((direction < 0 && next[d] == 0) || (direction > 0 && next[d] + 1 >= extents[d])) break;
          next[d] += direction;
          const std::optional<Score> score = memo.Get(next);
          if (!score) return memo.Finish();
          if (!Better(*score, *current_score, margin)) break;
          current = next;
          current_score = score;
          walked = moved = true;
        }
        if (walked) break;  // the other direction is worse than where we came from
      }
    }
  }
  return memo.Finish();
}

}  // namespace inferd::tune
