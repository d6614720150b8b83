"""Helpers for the black-box integration tests, gathered under one name so that
`from util import X` finds any of them. Each lives in the module of its concept:

- server_process: the inferd binary, its backends folder and InferdServer (the
  process on ephemeral ports, its log, clients and stop);
- waiting: wait_until, the tests' one way to wait on observable state;
- model_repository: model folders and identity-backend configs on disk;
- kserve_datatypes: each datatype's config name, numpy dtype and edge values;
- server_stats: statistics, metrics and record files of a running server;
- wire_format: the KServe v2 HTTP wire format (JSON and binary tensor
  extension) and assertions on answers.

Nothing here imports server code: the tests only see what a user sees, the
binary, its flags, its log and its HTTP and gRPC ports.
"""

from kserve_datatypes import ALL_DATATYPES, CONFIG_TYPE, EDGE_VALUES, NUMPY_DTYPE  # noqa: F401
from model_repository import (Model, identity_config, single_identity, tensor_block,  # noqa: F401
                              touch, write_repository)
from server_process import (EXAMPLES_MODELS, REPO_ROOT, REQUEST_TIMEOUT_S,  # noqa: F401
                            START_TIMEOUT_S, STOP_TIMEOUT_S, InferdServer,
                            assert_serves_plain_http, backend_directory, inferd_binary,
                            lone_binary)
from server_stats import (executions_started, idle, metrics_text, model_stats,  # noqa: F401
                          pending_count, record_lines, settled_stats, wait_idle)
from waiting import POLL_INTERVAL_S, WAIT_TIMEOUT_S, wait_until  # noqa: F401
from wire_format import (InferResponse, assert_equal_tensors, assert_error,  # noqa: F401
                         bf16_bits, binary_request, decode_tensor, encode_tensor,
                         from_json_data, json_data, json_request, parse_infer_response)
