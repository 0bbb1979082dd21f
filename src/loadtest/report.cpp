#include "loadtest/report.h"

#include <algorithm>
#include <cstdio>

#include "common/svg_text.h"

namespace geoalign::loadtest {

namespace {

using svg::format;

std::string errors_text(const LevelResult& r) {
  std::string s;
  for (const auto& [kind, n] : r.errors) s += (s.empty() ? "" : " ") + kind + "=" + std::to_string(n);
  return s.empty() ? "0" : s;
}

std::string level_name(const LevelResult& r) {
  return r.rate > 0 ? format("%.0f/s", r.rate) : std::to_string(r.concurrency);
}

}  // namespace

std::string format_table(const std::vector<LevelResult>& levels) {
  std::string out = format("%-10s %12s %10s %10s %10s %10s  %s\n", "level", "req/s", "p50 ms", "p90 ms", "p95 ms",
                           "p99 ms", "errors");
  for (const auto& r : levels) {
    out += format("%-10s %12.1f %10.2f %10.2f %10.2f %10.2f  %s\n", level_name(r).c_str(), r.throughput(),
                  r.percentile(50), r.percentile(90), r.percentile(95), r.percentile(99), errors_text(r).c_str());
  }
  return out;
}

std::string format_csv(const std::vector<LevelResult>& levels) {
  std::string out = "concurrency,rate,throughput,p50_ms,p90_ms,p95_ms,p99_ms,ok,errors\n";
  for (const auto& r : levels) {
    out += format("%zu,%.1f,%.2f,%.3f,%.3f,%.3f,%.3f,%llu,%llu\n", r.concurrency, r.rate, r.throughput(),
                  r.percentile(50), r.percentile(90), r.percentile(95), r.percentile(99),
                  static_cast<unsigned long long>(r.ok), static_cast<unsigned long long>(r.error_count()));
  }
  return out;
}

std::string render_svg_chart(const std::vector<LevelResult>& levels, const std::string& title) {
  const double width = 760, height = 420, left = 80, right = 80, top = 50, bottom = 60;
  const double plot_w = width - left - right, plot_h = height - top - bottom;
  double max_tput = 1, max_p99 = 1;
  for (const auto& r : levels) {
    max_tput = std::max(max_tput, r.throughput());
    max_p99 = std::max(max_p99, r.percentile(99));
  }
  max_tput *= 1.1;
  max_p99 *= 1.1;
  const std::size_t n = levels.size();
  auto x = [&](std::size_t i) { return left + (n <= 1 ? plot_w / 2 : plot_w * static_cast<double>(i) / static_cast<double>(n - 1)); };
  auto y = [&](double v, double max) { return top + plot_h * (1 - v / max); };

  std::string svg = format(R"svg(<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">)svg",
                           width, height);
  // The title is appended whole: format's buffer would cut a long URL, maybe inside an entity.
  svg += format(R"svg(<rect width="100%%" height="100%%" fill="white"/><text x="%.0f" y="25" font-size="15" text-anchor="middle">)svg",
                width / 2) +
         svg::escaped(title) + "</text>";
  svg += format(R"svg(<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="none" stroke="#999"/>)svg", left, top, plot_w, plot_h);
  for (int k = 0; k <= 4; ++k) {
    const double frac = k / 4.0, yy = top + plot_h * (1 - frac);
    svg += format(R"svg(<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#eee"/>)svg", left, left + plot_w, yy, yy);
    svg += format(R"svg(<text x="%.0f" y="%.1f" text-anchor="end" fill="#1f77b4">%.0f</text>)svg", left - 6, yy + 4, max_tput * frac);
    svg += format(R"svg(<text x="%.0f" y="%.1f" fill="#d62728">%.1f</text>)svg", left + plot_w + 6, yy + 4, max_p99 * frac);
  }
  std::string tput_points, p99_points;
  for (std::size_t i = 0; i < n; ++i) {
    tput_points += format("%.1f,%.1f ", x(i), y(levels[i].throughput(), max_tput));
    p99_points += format("%.1f,%.1f ", x(i), y(levels[i].percentile(99), max_p99));
    svg += format(R"svg(<text x="%.1f" y="%.0f" text-anchor="middle">%s</text>)svg", x(i), top + plot_h + 18, level_name(levels[i]).c_str());
    svg += format(R"svg(<circle cx="%.1f" cy="%.1f" r="3.5" fill="#1f77b4"/>)svg", x(i), y(levels[i].throughput(), max_tput));
    svg += format(R"svg(<circle cx="%.1f" cy="%.1f" r="3.5" fill="#d62728"/>)svg", x(i), y(levels[i].percentile(99), max_p99));
  }
  svg += R"svg(<polyline fill="none" stroke="#1f77b4" stroke-width="2" points=")svg" + tput_points + "\"/>";
  svg += R"svg(<polyline fill="none" stroke="#d62728" stroke-width="2" stroke-dasharray="6 3" points=")svg" + p99_points + "\"/>";
  const bool open_loop = !levels.empty() && levels[0].rate > 0;
  svg += format(R"svg(<text x="%.0f" y="%.0f" text-anchor="middle">%s</text>)svg", left + plot_w / 2, height - 15,
                open_loop ? "offered rate (requests/s)" : "concurrent clients");
  svg += format(R"svg(<text x="18" y="%.0f" fill="#1f77b4" transform="rotate(-90 18 %.0f)" text-anchor="middle">throughput (requests/s)</text>)svg",
                top + plot_h / 2, top + plot_h / 2);
  svg += format(R"svg(<text x="%.0f" y="%.0f" fill="#d62728" transform="rotate(90 %.0f %.0f)" text-anchor="middle">p99 latency (ms)</text>)svg",
                width - 18, top + plot_h / 2, width - 18, top + plot_h / 2);
  svg += "</svg>\n";
  return svg;
}

}  // namespace geoalign::loadtest
