#include "cli/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdlib>
#include <optional>
#include <string_view>

namespace geoalign::cli {

namespace {

// Four redraws a second look smooth without costing the command anything.
constexpr auto kRedrawInterval = std::chrono::milliseconds(250);
constexpr std::size_t kLongestBar = 20, kShortestBar = 8;
// Over a shorter time a rate or an estimate means nothing.
constexpr double kShortestTiming = 1e-3;
// Beyond this an estimate is noise, and the conversion to whole seconds needs a bound.
constexpr double kLongestEta = 100 * 3600.0;

std::string with_thousands(std::uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// m:ss, or h:mm:ss from an hour on.
std::string clock_time(double seconds) {
  const auto s = static_cast<std::uint64_t>(seconds + 0.5);
  char text[32];
  if (s >= 3600) {
    std::snprintf(text, sizeof text, "%" PRIu64 ":%02" PRIu64 ":%02" PRIu64, s / 3600, s / 60 % 60, s % 60);
  } else {
    std::snprintf(text, sizeof text, "%" PRIu64 ":%02" PRIu64, s / 60, s % 60);
  }
  return text;
}

std::optional<double> fraction_done(const ProgressSnapshot& s) {
  if (s.total > 0) return std::min(1.0, static_cast<double>(s.done) / static_cast<double>(s.total));
  if (s.bytes_total > 0) return std::min(1.0, static_cast<double>(s.bytes_read) / static_cast<double>(s.bytes_total));
  return std::nullopt;
}

// Assumes the pace so far holds for the rest.
std::string eta(double fraction, double seconds) {
  if (fraction <= 0 || seconds < kShortestTiming) return "--";
  const double left = seconds * (1 - fraction) / fraction;
  return left < kLongestEta ? clock_time(left) : "--";
}

// GEOALIGN_PROGRESS=1 forces the line on (tests, logs that want it), 0 forces it off;
// otherwise only a terminal gets it, since \r redraws mean nothing in a file or pipe.
std::optional<bool> forced_setting() {
  const char* setting = std::getenv("GEOALIGN_PROGRESS");
  if (setting == nullptr) return std::nullopt;
  if (std::string_view(setting) == "1") return true;
  if (std::string_view(setting) == "0") return false;
  return std::nullopt;
}

bool is_terminal(FILE* stream) { return isatty(fileno(stream)) != 0; }

// One column short of the terminal's width: a line that fills the last column leaves some
// terminals' cursor on the next row, and every redraw would then start a new line.
std::size_t line_width(FILE* out) {
  winsize size{};
  if (ioctl(fileno(out), TIOCGWINSZ, &size) == 0 && size.ws_col > 1) {
    return std::min<std::size_t>(kProgressWidth, size.ws_col - 1u);
  }
  return kProgressWidth;
}

}  // namespace

std::string format_progress_line(const ProgressSnapshot& s, std::size_t width) {
  std::string head = "geoalign " + s.label;
  if (!s.phase.empty()) head += " [" + s.phase + "]";
  head += "  ";

  const double rate = s.seconds >= kShortestTiming ? static_cast<double>(s.done) / s.seconds : 0;
  std::string counts = with_thousands(s.done);
  if (s.total > 0) counts += "/" + with_thousands(s.total);
  counts += " " + s.unit + "  " + with_thousands(static_cast<std::uint64_t>(rate + 0.5)) + " " + s.unit + "/s  ";

  std::string line;
  if (const auto fraction = fraction_done(s)) {
    // Once all is done, the time it took rather than an estimate of none left.
    const std::string tail = std::to_string(static_cast<int>(*fraction * 100)) + "%  " + counts +
                             (*fraction < 1 ? "ETA " + eta(*fraction, s.seconds) : clock_time(s.seconds));
    // The bar takes the room left over, and makes way altogether on a narrow terminal.
    const std::size_t used = head.size() + tail.size() + 4;  // its brackets and the gap after it
    const std::size_t bar = width > used ? std::min(kLongestBar, width - used) : 0;
    line = head;
    if (bar >= kShortestBar) {
      const auto filled = static_cast<std::size_t>(*fraction * static_cast<double>(bar));
      line += "[" + std::string(filled, '#') + std::string(bar - filled, '.') + "]  ";
    }
    line += tail;
  } else {
    line = head + counts + clock_time(s.seconds);
  }
  if (line.size() > width) line.resize(width);
  return line;
}

Progress::Progress(std::string label, std::string unit, std::uint64_t total, FILE* out)
    : label_(std::move(label)),
      unit_(std::move(unit)),
      out_(out),
      forced_(forced_setting()),
      enabled_(forced_.value_or(is_terminal(out))),
      width_(line_width(out)),
      start_(Clock::now()),
      total_(total),
      next_draw_(kRedrawInterval),
      phase_start_(start_) {}

void Progress::off_if_terminal(FILE* results) {
  if (!forced_.has_value() && is_terminal(results)) enabled_ = false;
}

void Progress::set_total(std::uint64_t total) { total_.store(total, std::memory_order_relaxed); }

void Progress::set_bytes(std::uint64_t read, std::uint64_t size) {
  bytes_read_.store(read, std::memory_order_relaxed);
  bytes_total_.store(size, std::memory_order_relaxed);
}

void Progress::advance(std::uint64_t units) {
  if (!enabled_) return;
  done_.fetch_add(units, std::memory_order_relaxed);
  draw_if_due();
}

void Progress::set_done(std::uint64_t done) {
  if (!enabled_) return;
  done_.store(done, std::memory_order_relaxed);
  draw_if_due();
}

void Progress::draw_if_due() {
  const auto now = Clock::now();
  if (now - start_ < next_draw_.load(std::memory_order_relaxed)) return;
  // A thread that finds another one drawing goes back to work rather than wait for it.
  std::unique_lock lock(mutex_, std::try_to_lock);
  if (!lock || now - start_ < next_draw_.load(std::memory_order_relaxed)) return;
  next_draw_.store(now - start_ + kRedrawInterval, std::memory_order_relaxed);
  draw(now);
}

void Progress::phase(std::string name, std::uint64_t total) {
  std::lock_guard lock(mutex_);
  phase_ = std::move(name);
  phase_start_ = Clock::now();
  done_.store(0, std::memory_order_relaxed);
  total_.store(total, std::memory_order_relaxed);
  set_bytes(0, 0);
  if (drawn_ > 0) draw(phase_start_);  // the new stage's name, without waiting for its first unit
}

void Progress::draw(Clock::time_point now) {
  const ProgressSnapshot snapshot{label_,
                                  phase_,
                                  unit_,
                                  done_.load(std::memory_order_relaxed),
                                  total_.load(std::memory_order_relaxed),
                                  bytes_read_.load(std::memory_order_relaxed),
                                  bytes_total_.load(std::memory_order_relaxed),
                                  std::chrono::duration<double>(now - phase_start_).count()};
  std::string line = "\r" + format_progress_line(snapshot, width_);
  const std::size_t shown = line.size() - 1;
  if (shown < drawn_) line.append(drawn_ - shown, ' ');  // covers the rest of a longer line
  drawn_ = shown;
  std::fputs(line.c_str(), out_);
  std::fflush(out_);
}

void Progress::erase_line() {
  std::lock_guard lock(mutex_);
  if (drawn_ == 0) return;
  std::fprintf(out_, "\r%*s\r", static_cast<int>(drawn_), "");
  std::fflush(out_);
  drawn_ = 0;
}

void Progress::finish() {
  std::lock_guard lock(mutex_);
  next_draw_.store(Clock::duration::max(), std::memory_order_relaxed);
  if (drawn_ == 0) return;
  draw(Clock::now());
  std::fputc('\n', out_);
  std::fflush(out_);
  drawn_ = 0;
}

}  // namespace geoalign::cli
