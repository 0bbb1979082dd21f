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
    Route{"/v2/models/{model}/ready", "GET", RouteId::ModelReady, "/v2/health"},
    Route{"/v2", "GET", RouteId::ServerMetadata, "/v2/metadata"},
    Route{"/v2/models/{model}", "GET", RouteId::ModelMetadata, "/v2/metadata"},
    Route{"/v2/models/{model}/config", "GET", RouteId::ModelConfig, "/v2/metadata"},
    Route{"/metrics", "GET", RouteId::Metrics, "/metrics"},
    Route{"/openapi.json", "GET", RouteId::OpenApi, "/openapi.json"},
    Route{"/", "GET", RouteId::Playground, "/"},
    Route{"/v1/match", "POST", RouteId::Inference, "/v1/match", Endpoint::Match},
    Route{"/v1/embed", "POST", RouteId::Inference, "/v1/embed", Endpoint::Embed},
    Route{"/v1/parse", "POST", RouteId::Inference, "/v1/parse", Endpoint::Parse},
    Route{"/v1/search", "POST", RouteId::Inference, "/v1/search", Endpoint::Search},
    Route{"/v2/models/{model}/infer", "POST", RouteId::Inference, "/v2/infer", Endpoint::KServeInfer},
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

std::string route_target(const Route& route, std::string_view model_name) {
  std::string target(route.path);
  if (const auto at = target.find(kModelPlaceholder); at != std::string::npos) {
    target.replace(at, kModelPlaceholder.size(), model_name);
  }
  return target;
}

bool is_valid_model_name(std::string_view name) {
  return !name.empty() && name.size() <= kMaxModelNameBytes &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                  c == '.';
         });
}

const Route* find_route(std::string_view target, std::string_view model_name) {
  std::string_view path = target.substr(0, target.find('?'));  // no route takes a query
  // /v2/models/NAME/... is this model's route when NAME is its name, and no route else.
  std::string with_placeholder;
  if (path.starts_with(kModelsPrefix)) {
    const std::string_view rest = path.substr(kModelsPrefix.size());
    const std::string_view name = rest.substr(0, rest.find('/'));
    if (name != model_name) return nullptr;
    with_placeholder = std::string(kModelsPrefix) + std::string(kModelPlaceholder);
    with_placeholder += rest.substr(name.size());
    path = with_placeholder;
  }
  const auto it = std::find_if(kRoutes.begin(), kRoutes.end(), [&](const Route& r) { return r.path == path; });
  return it == kRoutes.end() ? nullptr : &*it;
}

}  // namespace geoalign::serve
