#include "support/serve_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "support/raw_client.h"

namespace geoalign::testing {

ServeProcess::ServeProcess(const std::vector<std::string>& args, long open_files) { start(args, open_files, Log::File); }

ServeProcess::ServeProcess(const std::vector<std::string>& args, Log log) { start(args, 0, log); }

void ServeProcess::start(const std::vector<std::string>& args, long open_files, Log log) {
  std::vector<std::string> argv_strings = {GEOALIGN_CLI, "serve"};
  if (std::find(args.begin(), args.end(), "--port") == args.end()) argv_strings.insert(argv_strings.end(), {"--port", "0"});
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  const std::string log_path = (dir_ / "stderr").string();
  int pipe_ends[2] = {-1, -1};
  if (log == Log::ClosedPipe && pipe(pipe_ends) != 0) throw std::runtime_error("pipe failed");
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {  // only async-signal-safe calls until exec
    const int fd = log == Log::ClosedPipe ? pipe_ends[1] : open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) _exit(127);
    if (log == Log::ClosedPipe) close(pipe_ends[0]);  // nobody reads: a write raises SIGPIPE
    dup2(fd, 2);
    close(fd);
    const int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    close(null);
    if (open_files > 0) {
      const rlimit limit{static_cast<rlim_t>(open_files), static_cast<rlim_t>(open_files)};
      setrlimit(RLIMIT_NOFILE, &limit);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  if (log == Log::ClosedPipe) {
    close(pipe_ends[0]);
    close(pipe_ends[1]);
  }
}

unsigned short ServeProcess::free_port() {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor acceptor(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
  return acceptor.local_endpoint().port();
}

bool ServeProcess::wait_answering(unsigned short port, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (wait_exit(std::chrono::milliseconds(0))) return false;
    try {
      RawClient client(port);
      client.send("GET /v2/health/ready HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      RawClient::Response r;
      if (!client.read(r, std::chrono::seconds(2)) && r.result_int() == 200) return true;
    } catch (const std::exception&) {  // not listening yet
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

ServeProcess::~ServeProcess() {
  if (!wait_exit(std::chrono::milliseconds(0))) {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
}

std::string ServeProcess::log() const { return read_file(dir_ / "stderr"); }

bool ServeProcess::wait_ready(std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    const std::string text = log();
    const auto at = text.find("listening on http://127.0.0.1:");
    if (at != std::string::npos && port_ == 0) {
      port_ = static_cast<unsigned short>(std::stoi(text.substr(at + 30)));
    }
    if (port_ != 0 && text.find("geoalign serve: ready") != std::string::npos) return true;
    if (wait_exit(std::chrono::milliseconds(0))) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

void ServeProcess::signal(int sig) { kill(pid_, sig); }

std::optional<int> ServeProcess::wait_exit(std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!status_) {
    int status = 0;
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      break;
    }
    if (std::chrono::steady_clock::now() >= until) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return status_;
}

}  // namespace geoalign::testing
