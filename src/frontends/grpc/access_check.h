// API keys on the gRPC port (--auth-file, common/auth/access_control.h): the
// key in a call's metadata, the scope each RPC needs (its restriction
// category's, method_category.h) and the gRPC status of a refusal.
#ifndef INFERD_FRONTENDS_GRPC_ACCESS_CHECK_H_
#define INFERD_FRONTENDS_GRPC_ACCESS_CHECK_H_

#include <grpcpp/grpcpp.h>

#include <map>
#include <optional>
#include <string_view>

#include "common/api_restrictions.h"
#include "common/auth/access_control.h"
#include "grpc/service_context.h"

namespace inferd::grpc_frontend {

using Metadata = std::multimap<grpc::string_ref, grpc::string_ref>;

// The call's `authorization` metadata ("Bearer <key>"), or in Triton's
// restricted-protocol form `triton-grpc-protocol-authorization`; empty when
// neither is there.
std::string_view AuthorizationOf(const Metadata& metadata);

// The check of a call of `category` (for infer, with `model`): OK, or
// UNAUTHENTICATED, PERMISSION_DENIED, or RESOURCE_EXHAUSTED with a
// `retry-after` trailer (seconds). Health RPCs pass without a key. When
// allowed, `priority` (if given) gets the key's scheduler priority, if it
// names one.
grpc::Status CheckAccess(const auth::AccessControl& access, ApiCategory category,
                         std::optional<std::string_view> model,
                         grpc::ServerContextBase& context, uint32_t* priority = nullptr);

// The same for the opening of ModelStreamInfer, whose requests are each
// checked as they come (StreamReactor): an allowed opening is not counted.
grpc::Status CheckStreamOpen(const auth::AccessControl& access, ApiCategory category,
                             grpc::ServerContextBase& context);

// A call's refusal: UNAVAILABLE when its category is restricted
// (--grpc-restricted-protocol) and its metadata lack the header, an API
// key's refusal (above) with --auth-file; OK when it may run. Two tests when
// neither is on. A stream's opening (`stream`) is checked without being
// counted: its requests are, each as it comes.
// `priority` as CheckAccess's.
grpc::Status CallRefusal(const ServiceContext& service, ApiCategory category,
                         std::optional<std::string_view> model, grpc::ServerContextBase& context,
                         bool stream = false, uint32_t* priority = nullptr);

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_ACCESS_CHECK_H_
