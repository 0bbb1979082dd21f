// The progress line: what it says, when it is drawn, and counting from several threads;
// and that `geoalign score` and `parse` draw it only when asked or on a terminal.
#include "cli/progress.h"

#include <gtest/gtest.h>
#include <pty.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <thread>
#include <vector>

#include "support/temp_dir.h"

namespace geoalign::cli {
namespace {

using namespace std::chrono_literals;

// Progress draws first one redraw interval (250 ms) after it starts.
constexpr auto kPastFirstRedraw = 300ms;

ProgressSnapshot snapshot(std::uint64_t done, std::uint64_t total, double seconds) {
  return {"score", "", "pairs", done, total, 0, 0, seconds};
}

TEST(ProgressLine, KnownTotalShowsBarPercentageAndEta) {
  EXPECT_EQ(format_progress_line(snapshot(1000, 2000, 4)),
            "geoalign score  [##########..........]  50%  1,000/2,000 pairs  250 pairs/s  ETA 0:04");
  EXPECT_EQ(format_progress_line(snapshot(2000, 2000, 125)),
            "geoalign score  [####################]  100%  2,000/2,000 pairs  16 pairs/s  2:05");
}

TEST(ProgressLine, UnknownTotalShowsTimeElapsed) {
  EXPECT_EQ(format_progress_line({"parse", "", "addresses", 12000, 0, 0, 0, 6.2}),
            "geoalign parse  12,000 addresses  1,935 addresses/s  0:06");
}

TEST(ProgressLine, BytesGiveTheFractionWhenTheCountIsOpenEnded) {
  EXPECT_EQ(format_progress_line({"score", "", "pairs", 500, 0, 250, 1000, 10}),
            "geoalign score  [#####...............]  25%  500 pairs  50 pairs/s  ETA 0:30");
}

TEST(ProgressLine, EtaInHoursMinutesSecondsOrDashesWhenItCannotBeTold) {
  EXPECT_NE(format_progress_line(snapshot(1, 4, 1241)).find("ETA 1:02:03"), std::string::npos);
  EXPECT_NE(format_progress_line(snapshot(59, 60, 590)).find("ETA 0:10"), std::string::npos);
  const std::string nothing_done = format_progress_line(snapshot(0, 60, 5));
  EXPECT_NE(nothing_done.find("  0 pairs/s  ETA --"), std::string::npos) << nothing_done;
  EXPECT_NE(format_progress_line(snapshot(1, 1000000, 60)).find("ETA --"), std::string::npos) << "over 100 hours";
}

TEST(ProgressLine, ThousandsSeparators) {
  EXPECT_NE(format_progress_line(snapshot(999, 0, 1)).find("  999 pairs  999 pairs/s"), std::string::npos);
  EXPECT_NE(format_progress_line(snapshot(1000, 0, 1)).find("  1,000 pairs  1,000 pairs/s"), std::string::npos);
  EXPECT_NE(format_progress_line(snapshot(1234567890, 0, 10)).find("  1,234,567,890 pairs  123,456,789 pairs/s"),
            std::string::npos);
}

TEST(ProgressLine, PhaseNamesTheStage) {
  EXPECT_EQ(format_progress_line({"dedup", "2/4 embed", "addresses", 10, 40, 0, 0, 1}),
            "geoalign dedup [2/4 embed]  [#####...............]  25%  10/40 addresses  10 addresses/s  ETA 0:03");
}

TEST(ProgressLine, FitsTheWidthDroppingTheBarFirst) {
  const ProgressSnapshot widest{"index build", "3/4 cluster neighbourhoods", "addresses", 18'000'000'000'000'000'000u,
                                18'446'744'073'709'551'615u, 0, 0, 1e6};
  for (const auto& s : {snapshot(1000, 2000, 4), snapshot(1000, 0, 4), widest}) {
    for (std::size_t width : {kProgressWidth, std::size_t{80}, std::size_t{40}}) {
      EXPECT_LE(format_progress_line(s, width).size(), width) << format_progress_line(s, width);
    }
  }
  const std::string narrow = format_progress_line(snapshot(1000, 2000, 4), 70);
  EXPECT_EQ(narrow, "geoalign score  50%  1,000/2,000 pairs  250 pairs/s  ETA 0:04");
}

// Sets an environment variable (or unsets it, for nullptr) for one test.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    set(value);
  }
  ~ScopedEnv() { set(old_ ? old_->c_str() : nullptr); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  void set(const char* value) {
    if (value) {
      setenv(name_, value, 1);
    } else {
      unsetenv(name_);
    }
  }

  const char* name_;
  std::optional<std::string> old_;
};

class TempFile {
 public:
  TempFile() : file_(std::tmpfile()) {}
  ~TempFile() { std::fclose(file_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  FILE* get() const { return file_; }
  std::string contents() const {
    std::fflush(file_);
    std::rewind(file_);
    std::string text;
    for (int c = std::fgetc(file_); c != EOF; c = std::fgetc(file_)) text.push_back(static_cast<char>(c));
    return text;
  }

 private:
  FILE* file_;
};

// What follows the last \r: the line as it stands.
std::string last_line(const std::string& drawn) { return drawn.substr(drawn.rfind('\r') + 1); }

TEST(Progress, SilentWhenTheOutputIsAFile) {
  ScopedEnv automatic("GEOALIGN_PROGRESS", nullptr);
  TempFile file;
  {
    Progress progress("score", "pairs", 10, file.get());
    std::this_thread::sleep_for(kPastFirstRedraw);
    progress.advance(5);
    progress.phase("2/2 write", 10);
    progress.erase_line();
  }
  EXPECT_EQ(file.contents(), "");
}

TEST(Progress, ForcedOnItDrawsIntoAFileAndEndsTheLine) {
  ScopedEnv forced("GEOALIGN_PROGRESS", "1");
  TempFile file;
  Progress progress("score", "pairs", 10, file.get());
  progress.advance(1);
  EXPECT_EQ(file.contents(), "") << "a run shorter than the redraw interval needs no line";
  std::this_thread::sleep_for(kPastFirstRedraw);
  progress.advance(4);
  const std::string drawn = file.contents();
  EXPECT_EQ(drawn.rfind("\rgeoalign score  [##########..........]  50%  5/10 pairs", 0), 0u) << drawn;
  progress.set_done(10);
  progress.finish();
  const std::string finished = file.contents();
  ASSERT_EQ(finished.back(), '\n');
  EXPECT_NE(last_line(finished).find("100%  10/10 pairs"), std::string::npos) << finished;
  progress.advance(1);
  progress.finish();
  EXPECT_EQ(file.contents(), finished) << "nothing after finish";
}

TEST(Progress, ErasedLineMakesRoomForAMessage) {
  ScopedEnv forced("GEOALIGN_PROGRESS", "1");
  TempFile file;
  Progress progress("parse", "addresses", 0, file.get());
  std::this_thread::sleep_for(kPastFirstRedraw);
  progress.advance(1);
  const std::size_t width = file.contents().size() - 1;
  progress.erase_line();
  EXPECT_EQ(last_line(file.contents()), "") << "the line is blanked and the cursor back at its start";
  EXPECT_EQ(file.contents().size(), 2 * width + 3);
}

TEST(Progress, PhaseStartsTheCountAgainUnderItsName) {
  ScopedEnv forced("GEOALIGN_PROGRESS", "1");
  TempFile file;
  Progress progress("dedup", "addresses", 0, file.get());
  progress.phase("1/2 read");
  std::this_thread::sleep_for(kPastFirstRedraw);
  progress.advance(7);
  EXPECT_EQ(last_line(file.contents()).rfind("geoalign dedup [1/2 read]  7 addresses", 0), 0u) << file.contents();
  progress.phase("2/2 embed", 20);
  const std::string embed = last_line(file.contents());
  EXPECT_EQ(embed.rfind("geoalign dedup [2/2 embed]  [....................]  0%  0/20 addresses  0 addresses/s", 0),
            0u)
      << embed;
}

TEST(Progress, AdvanceFromManyThreadsCountsEveryUnit) {
  ScopedEnv forced("GEOALIGN_PROGRESS", "1");
  TempFile file;
  constexpr std::uint64_t kThreads = 8, kEach = 50000;
  Progress progress("dedup", "addresses", kThreads * kEach, file.get());
  std::this_thread::sleep_for(kPastFirstRedraw);  // so that the threads race to draw
  std::vector<std::thread> threads;
  for (std::uint64_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (std::uint64_t i = 0; i < kEach; ++i) progress.advance(1);
    });
  }
  for (auto& thread : threads) thread.join();
  progress.finish();
  EXPECT_NE(last_line(file.contents()).find("100%  400,000/400,000 addresses"), std::string::npos) << file.contents();
}

// A pseudo-terminal stands in for the user's, so that the automatic choice is the real one.
class Terminal {
 public:
  explicit Terminal(unsigned short columns) {
    winsize size{};
    size.ws_col = columns;
    size.ws_row = 24;
    if (openpty(&controller_, &device_, nullptr, nullptr, &size) != 0) throw std::runtime_error("openpty failed");
    out_ = fdopen(device_, "w");
  }
  ~Terminal() {
    std::fclose(out_);
    close(controller_);
  }
  Terminal(const Terminal&) = delete;
  Terminal& operator=(const Terminal&) = delete;
  FILE* out() const { return out_; }
  // What has been written to the terminal since the last call.
  std::string shown() const {
    std::string text;
    char buffer[4096];
    for (ssize_t n; poll_readable() && (n = read(controller_, buffer, sizeof buffer)) > 0;) text.append(buffer, n);
    return text;
  }

 private:
  bool poll_readable() const {
    fd_set ready;
    FD_ZERO(&ready);
    FD_SET(controller_, &ready);
    timeval wait{0, 100000};
    return select(controller_ + 1, &ready, nullptr, nullptr, &wait) > 0;
  }

  int controller_ = -1, device_ = -1;
  FILE* out_ = nullptr;
};

TEST(Progress, OnATerminalItDrawsWithinItsWidthUnlessSetToZero) {
  Terminal terminal(60);
  {
    ScopedEnv automatic("GEOALIGN_PROGRESS", nullptr);
    Progress progress("score", "pairs", 2000, terminal.out());
    std::this_thread::sleep_for(kPastFirstRedraw);
    progress.advance(1000);
  }
  const std::string shown = terminal.shown();
  EXPECT_EQ(shown.rfind("\rgeoalign score  ", 0), 0u) << shown;
  std::size_t start = 0;
  for (std::size_t end; (end = shown.find_first_of("\r\n", start)) != std::string::npos; start = end + 1) {
    EXPECT_LT(end - start, 60u) << shown;
  }
  {
    ScopedEnv off("GEOALIGN_PROGRESS", "0");
    Progress progress("score", "pairs", 2000, terminal.out());
    std::this_thread::sleep_for(kPastFirstRedraw);
    progress.advance(1000);
  }
  EXPECT_EQ(terminal.shown(), "");
}

// Runs `geoalign <args> in` on input that stops for a while after its first line, long
// enough for a progress line to be due; returns what it wrote to stderr, a file. The input
// is a named pipe, so that the pause starts only once the command has loaded its model and
// opened it; the writer gives up after a while if the command never does.
std::string stderr_of_slow_run(const std::string& args, const std::string& first_line, const std::string& rest,
                               const std::string& progress_setting) {
  testing::TempDir dir;
  testing::write_file(dir / "first", first_line);
  testing::write_file(dir / "rest", rest);
  const std::string command = "cd " + dir.path().string() +
                              " && mkfifo in && (timeout 60 sh -c 'exec >in; cat first; sleep 0.3; cat rest' &) && env " +
                              progress_setting + " " + GEOALIGN_CLI + " " + args + " in >/dev/null 2>err";
  const int status = std::system(command.c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command;
  return testing::read_file(dir / "err");
}

TEST(CliProgress, ScoreAndParseDrawNothingIntoAFileUnlessAsked) {
  struct Case {
    std::string args, first_line, rest, summary;
  };
  const Case cases[] = {
      {"score --model " + testing::fixture_model().string(), "北京\t上海\n", "杭州\t宁波\n",
       "geoalign score: 2 pairs scored"},
      {"parse --model " + (testing::source_dir() / "models/default/parser").string(), "北京朝阳\n", "杭州西湖\n",
       "parsed 2 addresses"},
  };
  for (const Case& c : cases) {
    const std::string quiet = stderr_of_slow_run(c.args, c.first_line, c.rest, "-u GEOALIGN_PROGRESS");
    EXPECT_EQ(quiet.find('\r'), std::string::npos) << quiet;
    EXPECT_EQ(quiet.rfind(c.summary, 0), 0u) << quiet;

    const std::string forced = stderr_of_slow_run(c.args, c.first_line, c.rest, "GEOALIGN_PROGRESS=1");
    EXPECT_EQ(forced.rfind("\rgeoalign ", 0), 0u) << forced;
    EXPECT_NE(forced.find("\n" + c.summary), std::string::npos) << "the summary gets a line of its own: " << forced;
  }
}

}  // namespace
}  // namespace geoalign::cli
