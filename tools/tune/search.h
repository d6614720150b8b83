// How inferd tune picks the settings to measure: every point of the grid
// (--exhaustive), or a coordinate descent that starts from the model's own
// configuration and moves one dimension at a time to the neighbour that
// measures better, until no neighbour does. Pure logic: the measurement is a
// callback, so the unit tests run it on made-up scores.
#ifndef INFERD_TOOLS_TUNE_SEARCH_H_
#define INFERD_TOOLS_TUNE_SEARCH_H_

#include <functional>
#include <limits>
#include <optional>
#include <vector>

#include "tune/search_space.h"

namespace inferd::tune {

// What one setting measured, reduced to what the search compares.
struct Score {
  bool feasible = false;   // some step kept p99 within the target, without errors
  double throughput = 0;   // inferences/s of the best feasible step
  double p99_ms = std::numeric_limits<double>::infinity();  // lowest p99 of any step
};

// Whether `a` beats `b` by more than `margin` (a fraction, e.g. 0.03): a
// feasible score beats an infeasible one; two feasible ones compare throughput;
// two infeasible ones compare p99 (lower is closer to the target).
bool Better(const Score& a, const Score& b, double margin);

// Measures one point; nullopt stops the search (interrupted).
using Evaluate = std::function<std::optional<Score>(const GridIndex&)>;

struct SearchResult {
  std::vector<GridIndex> measured;  // in the order measured, each once
  std::vector<Score> scores;        // scores[i] of measured[i]
  size_t best = 0;                  // index into measured; meaningless when none
  bool interrupted = false;
};

// Measures every point, the batch dimension varying slowest.
SearchResult SearchExhaustive(const SearchSpace& space, const Evaluate& evaluate);

// Coordinate descent from `start`: for each dimension in turn, steps to a
// neighbour while it beats the current point by more than `margin`, trying
// larger values first; passes over the dimensions until one pass moves
// nowhere. Every point is measured at most once. The best is the best point
// measured (margin 0), which is where the walk ended unless noise says otherwise.
SearchResult SearchCoordinateDescent(const SearchSpace& space, const GridIndex& start,
                                     double margin, const Evaluate& evaluate);

}  // namespace inferd::tune

#endif  // INFERD_TOOLS_TUNE_SEARCH_H_
