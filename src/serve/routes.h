#pragma once

#include <optional>
#include <span>
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

std::span<const Route> routes();
// The route at `target` (its path: a query string is ignored), or null.
const Route* find_route(std::string_view target);

}  // namespace geoalign::serve
