#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "support/temp_dir.h"

namespace geoalign::testing {

// `geoalign serve` in a child process, for what an in-process server cannot show:
// signals, exit status, and a process-wide descriptor limit.
class ServeProcess {
 public:
  // Starts `geoalign serve --port 0 ARGS...`; open_files > 0 sets RLIMIT_NOFILE (soft
  // and hard, as `ulimit -n` does) in the child before exec.
  explicit ServeProcess(const std::vector<std::string>& args, long open_files = 0);
  // How the child's standard error is given: the log file, or a pipe whose reading end
  // is closed before the child starts (`geoalign serve 2>&1 | head -1` once head has
  // exited). With the pipe, nothing is logged: give --port and use wait_answering().
  enum class Log { File, ClosedPipe };
  ServeProcess(const std::vector<std::string>& args, Log log);
  // A free TCP port on 127.0.0.1 (for --port where the log cannot say which one was taken).
  static unsigned short free_port();
  // Waits (up to `limit`) until `port` answers GET /v2/health/ready with 200.
  bool wait_answering(unsigned short port, std::chrono::milliseconds limit = std::chrono::seconds(30));
  ~ServeProcess();  // kills the child if it still runs
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  // Waits (up to `limit`) for the "ready" line; false if the child exits or it times out.
  bool wait_ready(std::chrono::milliseconds limit = std::chrono::seconds(30));
  unsigned short port() const { return port_; }
  pid_t pid() const { return pid_; }
  void signal(int sig);
  // The exit status once the child has exited within `limit`; nullopt if it still runs.
  std::optional<int> wait_exit(std::chrono::milliseconds limit);
  std::string log() const;

 private:
  TempDir dir_;
  pid_t pid_ = -1;
  void start(const std::vector<std::string>& args, long open_files, Log log);
  std::optional<int> status_;
  unsigned short port_ = 0;
};

}  // namespace geoalign::testing
