#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>

#include "cli/stopwatch.h"

namespace geoalign::cli {

// What a progress line says, apart from how it says it.
struct ProgressSnapshot {
  std::string label;               // the command: "score"
  std::string phase;               // the stage of a command that has several ("2/4 embed"), or empty
  std::string unit;                // what is counted: "pairs"
  std::uint64_t done = 0;
  std::uint64_t total = 0;         // 0: unknown
  std::uint64_t bytes_read = 0;    // of the input, for a fraction done when `total` is unknown
  std::uint64_t bytes_total = 0;   // 0: not measured in bytes
  double seconds = 0;              // since the phase began
};

constexpr std::size_t kProgressWidth = 100;

// The line for `s`, at most `width` columns (labels, phases and units are ASCII):
//   geoalign score  [##########..........]  50%  1,000/2,000 pairs  250 pairs/s  ETA 0:04
//   geoalign parse  12,000 addresses  2,000 addresses/s  0:06
// Bar, percentage and ETA appear when the fraction done is known, from units or else from
// bytes; the line ends with the time elapsed instead when it is not, and once all is done.
std::string format_progress_line(const ProgressSnapshot& s, std::size_t width = kProgressWidth);

// A progress line on a terminal for a long-running command, redrawn in place with \r.
// It draws only when `out` is a terminal, or when GEOALIGN_PROGRESS=1; GEOALIGN_PROGRESS=0
// silences it. Runs shorter than one redraw interval print nothing.
//
// The counting members (set_total, set_bytes, advance, set_done) may be called from any
// thread, as often as once per item: they are atomic, and whichever thread finds a redraw
// due draws while the others go on. The rest belong to the thread that runs the command.
class Progress {
 public:
  // label: "score"; unit: "pairs"; total: units expected, 0 if unknown.
  Progress(std::string label, std::string unit, std::uint64_t total = 0, FILE* out = stderr);
  ~Progress() { finish(); }

  // For a command whose results go to standard output: redraws would break up those lines
  // on the terminal, so call with stdout, before counting starts, to stay off there.
  void off_if_terminal(FILE* results);

  void set_total(std::uint64_t total);
  // For an input whose unit count is unknown until its end: the fraction done follows the
  // bytes read of `size` (0: unknown) instead. Shown from the next redraw.
  void set_bytes(std::uint64_t read, std::uint64_t size);
  void advance(std::uint64_t units);
  void set_done(std::uint64_t done);

  // Starts a stage ("2/4 embed"): the count, rate, bytes and clock start again from zero.
  void phase(std::string name, std::uint64_t total = 0);

  // Erases the line so that a message can be printed in its place; the line comes back
  // below it at the next redraw.
  void erase_line();
  // Redraws the line with the final count and ends it, if one was drawn; no redraws follow.
  void finish();

  // Since construction, for the command's closing summary.
  double seconds() const { return seconds_since(start_); }

 private:
  void draw_if_due();
  void draw(Clock::time_point now);  // with mutex_ held

  const std::string label_, unit_;
  FILE* const out_;
  const std::optional<bool> forced_;  // GEOALIGN_PROGRESS, when it is 0 or 1
  bool enabled_;
  const std::size_t width_;
  const Clock::time_point start_;

  std::atomic<std::uint64_t> done_{0}, total_, bytes_read_{0}, bytes_total_{0};
  std::atomic<Clock::duration> next_draw_;  // since start_

  std::mutex mutex_;  // for what follows and for drawing
  std::string phase_;
  Clock::time_point phase_start_;
  std::size_t drawn_ = 0;  // columns on screen, 0 when no line is showing
};

}  // namespace geoalign::cli
