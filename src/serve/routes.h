#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "serve/api.h"

namespace geoalign::serve {

// What the server answers at a path.
enum class RouteId {
  Live,
  Ready,
  ModelReady,
  ServerMetadata,
  ModelMetadata,
  ModelConfig,
  Metrics,
  OpenApi,
  Playground,
  Inference,  // the route's `endpoint` says which
};

// One route of the server. The router dispatches through this table and the tests check
// /openapi.json against it, so a route cannot be added without being documented.
struct Route {
  std::string_view path;
  std::string_view method;  // "GET" or "POST"; any other method gets 405
  RouteId id;
  const char* metrics_label;  // the `endpoint` label of geoalign_requests_total
  std::optional<Endpoint> endpoint = std::nullopt;  // for RouteId::Inference
};

// Which group a route belongs to for --open-endpoints, the routes answered without an
// API key: health (live, ready, model ready), metadata (the KServe metadata and config),
// metrics, openapi, playground, and inference (never open when keys are set).
std::string_view route_access_group(RouteId id);
// The groups --open-endpoints may name.
std::span<const std::string_view> openable_access_groups();

// The KServe model's name in its routes (/v2/models/NAME/infer), its metadata and its
// answers; `serve --model-name` sets another. A name is 1 to 128 of A-Z a-z 0-9 _ - .,
// so that it needs no escaping in a path, a JSON string or the playground's script.
inline constexpr std::string_view kDefaultModelName = "geoalign";
inline constexpr std::size_t kMaxModelNameBytes = 128;
bool is_valid_model_name(std::string_view name);
// Where the table's paths hold the model's name.
inline constexpr std::string_view kModelsPrefix = "/v2/models/";
inline constexpr std::string_view kModelPlaceholder = "{model}";

std::span<const Route> routes();
// The path a client requests for `route` on a server whose model is `model_name`.
std::string route_target(const Route& route, std::string_view model_name = kDefaultModelName);
// The route at `target` (its path: a query string is ignored) on a server whose model is
// `model_name`, or null: /v2/models/OTHER/infer is no route of this server.
const Route* find_route(std::string_view target, std::string_view model_name = kDefaultModelName);

}  // namespace geoalign::serve
