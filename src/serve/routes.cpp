#include "serve/routes.h"

#include <algorithm>
#include <array>

namespace geoalign::serve {

namespace {

// Metrics labels group routes an operator watches together (every health probe, every
// metadata read) and keep the label set bounded whatever clients request.
constexpr std::array kRoutes{
    Route{"/v2/health/live", "GET", RouteId::Live, "/v2/health"},
    Route{"/v2/health/ready", "GET", RouteId::Ready, "/v2/health"},
    Route{"/v2/models/geoalign/ready", "GET", RouteId::ModelReady, "/v2/health"},
    Route{"/v2", "GET", RouteId::ServerMetadata, "/v2/metadata"},
    Route{"/v2/models/geoalign", "GET", RouteId::ModelMetadata, "/v2/metadata"},
    Route{"/v2/models/geoalign/config", "GET", RouteId::ModelConfig, "/v2/metadata"},
    Route{"/metrics", "GET", RouteId::Metrics, "/metrics"},
    Route{"/openapi.json", "GET", RouteId::OpenApi, "/openapi.json"},
    Route{"/", "GET", RouteId::Playground, "/"},
    Route{"/v1/match", "POST", RouteId::Inference, "/v1/match", Endpoint::Match},
    Route{"/v1/embed", "POST", RouteId::Inference, "/v1/embed", Endpoint::Embed},
    Route{"/v1/parse", "POST", RouteId::Inference, "/v1/parse", Endpoint::Parse},
    Route{"/v1/search", "POST", RouteId::Inference, "/v1/search", Endpoint::Search},
    Route{"/v2/models/geoalign/infer", "POST", RouteId::Inference, "/v2/infer", Endpoint::KServeInfer},
    Route{"/rerank", "POST", RouteId::Inference, "/rerank", Endpoint::TeiRerank},
    Route{"/v1/embeddings", "POST", RouteId::Inference, "/v1/embeddings", Endpoint::OpenAiEmbeddings},
};

constexpr std::array<std::string_view, 5> kOpenableGroups{"health", "metadata", "metrics", "openapi", "playground"};

}  // namespace

std::string_view route_access_group(RouteId id) {
  switch (id) {
    case RouteId::Live:
    case RouteId::Ready:
    case RouteId::ModelReady: return "health";
    case RouteId::ServerMetadata:
    case RouteId::ModelMetadata:
    case RouteId::ModelConfig: return "metadata";
    case RouteId::Metrics: return "metrics";
    case RouteId::OpenApi: return "openapi";
    case RouteId::Playground: return "playground";
    case RouteId::Inference: return "inference";
  }
  return "inference";
}

std::span<const std::string_view> openable_access_groups() { return kOpenableGroups; }

std::span<const Route> routes() { return kRoutes; }

const Route* find_route(std::string_view target) {
  const std::string_view path = target.substr(0, target.find('?'));  // no route takes a query
  const auto it = std::find_if(kRoutes.begin(), kRoutes.end(), [&](const Route& r) { return r.path == path; });
  return it == kRoutes.end() ? nullptr : &*it;
}

}  // namespace geoalign::serve
