#include "dedup/threshold_chart.h"

#include <cmath>

#include "common/svg_text.h"

namespace geoalign::dedup {

using svg::format;

std::string threshold_table(std::span<const ThresholdPoint> curve, std::optional<float> used) {
  std::string out = format("%-11s %9s %9s %9s %9s %9s %9s\n", "threshold", "precision", "recall", "F1", "TP", "FP", "FN");
  for (const auto& p : curve) {
    const bool is_used = used && std::abs(p.threshold - *used) < 1e-6f;
    out += format("%5.2f %-5s %9.4f %9.4f %9.4f %9zu %9zu %9zu\n", static_cast<double>(p.threshold),
                  is_used ? "*" : "", p.scores.precision(), p.scores.recall(), p.scores.f1(),
                  p.scores.true_positives, p.scores.false_positives, p.scores.false_negatives);
  }
  return out;
}

std::string threshold_chart_svg(std::span<const ThresholdPoint> curve, std::optional<float> used,
                                const std::string& title) {
  const double width = 760, height = 420, left = 70, right = 150, top = 50, bottom = 60;
  const double plot_w = width - left - right, plot_h = height - top - bottom;
  auto x = [&](double t) { return left + plot_w * t; };
  auto y = [&](double v) { return top + plot_h * (1 - v); };
  std::string out = format(R"svg(<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">)svg",
                           width, height);
  out += format(R"svg(<rect width="100%%" height="100%%" fill="white"/><text x="%.0f" y="25" font-size="15" text-anchor="middle">)svg",
                (left + plot_w / 2)) +
         svg::escaped(title) + "</text>";
  out += format(R"svg(<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="none" stroke="#999"/>)svg", left, top, plot_w, plot_h);
  for (int k = 0; k <= 4; ++k) {
    const double v = k / 4.0;
    out += format(R"svg(<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#eee"/>)svg", left, left + plot_w, y(v), y(v));
    out += format(R"svg(<text x="%.0f" y="%.1f" text-anchor="end">%.2f</text>)svg", left - 6, y(v) + 4, v);
  }
  for (int k = 0; k <= 10; ++k) {
    const double t = k / 10.0;
    out += format(R"svg(<text x="%.1f" y="%.0f" text-anchor="middle">%.1f</text>)svg", x(t), top + plot_h + 18, t);
  }
  struct Series {
    const char* name;
    const char* colour;
    double (PairwiseScores::*value)() const;
  };
  const Series series[] = {{"precision", "#1f77b4", &PairwiseScores::precision},
                           {"recall", "#d62728", &PairwiseScores::recall},
                           {"F1", "#2ca02c", &PairwiseScores::f1}};
  for (std::size_t s = 0; s < std::size(series); ++s) {
    std::string points;
    for (const auto& p : curve) {
      const double v = (p.scores.*series[s].value)();
      points += format("%.1f,%.1f ", x(p.threshold), y(v));
      out += format(R"svg(<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>)svg", x(p.threshold), y(v), series[s].colour);
    }
    out += format(R"svg(<polyline fill="none" stroke="%s" stroke-width="2" points=")svg", series[s].colour) + points + "\"/>";
    const double ly = top + 20 + 20.0 * static_cast<double>(s);
    out += format(R"svg(<line x1="%.0f" x2="%.0f" y1="%.0f" y2="%.0f" stroke="%s" stroke-width="2"/>)svg",
                  left + plot_w + 15, left + plot_w + 40, ly, ly, series[s].colour);
    out += format(R"svg(<text x="%.0f" y="%.0f">%s</text>)svg", left + plot_w + 46, ly + 4, series[s].name);
  }
  if (used) {
    out += format(R"svg(<line x1="%.1f" x2="%.1f" y1="%.0f" y2="%.0f" stroke="#555" stroke-dasharray="4 3"/>)svg",
                  x(*used), x(*used), top, top + plot_h);
    out += format(R"svg(<text x="%.1f" y="%.0f" text-anchor="middle" fill="#555">%.2f used</text>)svg", x(*used), top - 6,
                  static_cast<double>(*used));
  }
  out += format(R"svg(<text x="%.0f" y="%.0f" text-anchor="middle">threshold (mean link to merge)</text>)svg",
                left + plot_w / 2, height - 15);
  out += "</svg>\n";
  return out;
}

}  // namespace geoalign::dedup
