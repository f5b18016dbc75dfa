#include "recorder/trace_server.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <list>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>

namespace rtrace::recorder {
namespace {

// A program the recorder started: served until it exited.
class LaunchedProcess : public ServedProcess {
 public:
  explicit LaunchedProcess(TracedProcess& target) : target_(target) {}
  int exit_fd() const override { return target_.exit_fd(); }
  int exit_status() override { return target_.wait(); }
  int stop_fd() const override { return -1; }
  void stop() override {}

 private:
  TracedProcess& target_;
};

struct Worker {
  std::thread thread;
  std::shared_ptr<std::atomic<bool>> done = std::make_shared<std::atomic<bool>>(false);
};

class Server {
 public:
  Server(const PrivateSocket& socket, ServedProcess& target, TraceHandler& handler,
         bool end_after_traces)
      : socket_(socket), target_(target), handler_(handler), end_after_traces_(end_after_traces) {
    wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (wake_fd_ < 0) {
      throw std::runtime_error(std::string("eventfd: ") + std::strerror(errno));
    }
  }
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  ~Server() {
    for (Worker& worker : workers_) {
      worker.thread.join();
    }
    ::close(wake_fd_);
  }

  ServeResult run();

 private:
  void accept_pending();
  void start_worker(int fd, std::uint32_t peer_pid);
  void join_finished();

  const PrivateSocket& socket_;
  ServedProcess& target_;
  TraceHandler& handler_;
  // An attached process: its trace ends when it is detached, by this recorder or another.
  bool end_after_traces_ = false;
  int wake_fd_ = -1;
  std::list<Worker> workers_;
  std::atomic<bool> all_recorded_{true};
  unsigned connections_ = 0;
};

ServeResult Server::run() {
  bool exited = false;
  bool stopped = false;
  int status = 0;
  for (;;) {
    join_finished();
    if ((exited || stopped || (end_after_traces_ && connections_ > 0)) && workers_.empty()) {
      // A process may have connected just before it exited: take what is queued, then stop.
      accept_pending();
      if (workers_.empty()) {
        break;
      }
    }
    pollfd fds[4] = {{socket_.fd(), POLLIN, 0},
                     {exited ? -1 : target_.exit_fd(), POLLIN, 0},
                     {wake_fd_, POLLIN, 0},
                     {exited || stopped ? -1 : target_.stop_fd(), POLLIN, 0}};
    if (::poll(fds, 4, -1) < 0) {
      if (errno == EINTR) {
        continue;
      }
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    }
    if ((fds[0].revents & POLLIN) != 0) {
      accept_pending();
    }
    if ((fds[1].revents & (POLLIN | POLLHUP)) != 0) {
      status = target_.exit_status();
      exited = true;
    }
    if ((fds[3].revents & POLLIN) != 0) {
      stopped = true;
      target_.stop();
    }
    if ((fds[2].revents & POLLIN) != 0) {
      std::uint64_t count = 0;
      [[maybe_unused]] const ssize_t n = ::read(wake_fd_, &count, sizeof(count));
    }
  }
  return {status, all_recorded_.load(), connections_};
}

void Server::accept_pending() {
  for (;;) {
    const int fd = ::accept4(socket_.fd(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) {
        continue;
      }
      // Out of descriptors or memory: the connection stays queued; wait a little rather than
      // spin on a socket that stays readable. EAGAIN: nothing (more) queued.
      if (errno != EAGAIN && errno != EWOULDBLOCK) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      return;
    }
    ucred peer{};
    socklen_t length = sizeof(peer);
    // The directory already keeps other users out; this makes sure of it.
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0 || peer.uid != ::geteuid()) {
      ::close(fd);
      continue;
    }
    start_worker(fd, static_cast<std::uint32_t>(peer.pid));
  }
}

void Server::start_worker(int fd, std::uint32_t peer_pid) {
  ++connections_;
  const auto record = [this, fd, peer_pid] {
    if (!handler_.record(fd, peer_pid)) {
      all_recorded_ = false;
    }
    ::close(fd);
  };
  Worker& worker = workers_.emplace_back();
  try {
    worker.thread = std::thread([this, record, done = worker.done] {
      record();
      done->store(true);
      const std::uint64_t one = 1;
      [[maybe_unused]] const ssize_t n = ::write(wake_fd_, &one, sizeof(one));
    });
  } catch (const std::system_error&) {
    // No thread to be had: serve this one here, the others wait in the queue meanwhile.
    workers_.pop_back();
    record();
  }
}

void Server::join_finished() {
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (it->done->load()) {
      it->thread.join();
      it = workers_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace

ServeResult serve(const PrivateSocket& socket, TracedProcess& target, TraceHandler& handler) {
  LaunchedProcess launched(target);
  Server server(socket, launched, handler, false);
  return server.run();
}

ServeResult serve(const PrivateSocket& socket, ServedProcess& process, TraceHandler& handler) {
  Server server(socket, process, handler, true);
  return server.run();
}

}  // namespace rtrace::recorder
