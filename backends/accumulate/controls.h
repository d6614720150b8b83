// The sequence control signals of one request, as the sequence batcher fills
// them into the control inputs the configuration names (model_settings.h).
#ifndef INFERD_BACKENDS_ACCUMULATE_CONTROLS_H_
#define INFERD_BACKENDS_ACCUMULATE_CONTROLS_H_

#include <cstdint>
#include <string>

#include "inferd/backend.h"
#include "model_settings.h"

namespace inferd::accumulate {

struct Controls {
  bool start = false;
  bool end = false;
  bool ready = true;
  // The sequence id: `numeric` for a UINT64 CORRID (0 for string ids), `key`
  // its text either way ("7", or the string id itself).
  uint64_t numeric = 0;
  std::string key;
};

// Reads `request`'s controls. A START or END control the configuration does
// not name is taken from the request's flags, a missing READY is true, and a
// missing CORRID is INFERD_RequestCorrelationId (uint64 ids only: string ids
// reach a backend only through a TYPE_STRING CORRID control).
INFERD_Error* ReadControls(INFERD_Request* request, const ModelSettings& settings,
                           Controls* controls);

}  // namespace inferd::accumulate

#endif  // INFERD_BACKENDS_ACCUMULATE_CONTROLS_H_
