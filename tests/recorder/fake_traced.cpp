// Stands in for a traced program until (and besides) the real tracer: does what the tracer does
// on the recorder's side of the interface, with a canned binary trace.
//
//   fake_traced MODE TRACE [FILE]
// Every stream sent is TRACE with the PINF packet's pid replaced by the sender's pid. Modes:
//   send      one connection, the whole trace; prints the pid
//   twice     two connections one after the other (a trace toggled off and on again)
//   fork      the process and a forked child send at the same time; prints both pids first
//   orphan    a child connects, the parent exits, the child sends after it (and 300 ms more)
//   truncate  sends only the first FILE bytes (a crash in the middle of a packet)
//   silent    connects and closes without a byte
//   env       writes LD_PRELOAD, RTRACE_OPTIONS, RTRACE_SOCKET and the socket directory's mode
//             to FILE, then sends
//   toggle    writes its pid to FILE, waits for SIGUSR1, then for FILE.seen to exist, then
//             sends; says "rtrace:off", then "rtrace:on" in its thread name, as the tracer's
//             control thread does
//   exit      exits with status 7 without tracing
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

namespace {

std::string read_trace(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string with_own_pid(std::string trace) {
  const std::size_t at = trace.find("PINF");
  if (at != std::string::npos && at + 12 <= trace.size()) {
    const auto pid = static_cast<std::uint32_t>(::getpid());
    std::memcpy(&trace[at + 8], &pid, sizeof(pid));
  }
  return trace;
}

int connect_to_recorder() {
  const char* path = std::getenv("RTRACE_SOCKET");
  if (path == nullptr || std::strlen(path) >= sizeof(sockaddr_un::sun_path)) {
    std::exit(20);
  }
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path, std::strlen(path) + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    std::exit(21);
  }
  return fd;
}

void send_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n <= 0) {
      std::exit(22);
    }
    done += static_cast<std::size_t>(n);
  }
}

void send_trace(const std::string& trace) {
  const int fd = connect_to_recorder();
  send_all(fd, with_own_pid(trace));
  ::close(fd);
}

void write_environment(const char* file) {
  std::ofstream out(file);
  const auto value = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v ? v : "<unset>");
  };
  out << "LD_PRELOAD=" << value("LD_PRELOAD") << "\n";
  out << "RTRACE_OPTIONS=" << value("RTRACE_OPTIONS") << "\n";
  out << "RTRACE_SOCKET=" << value("RTRACE_SOCKET") << "\n";
  const std::string socket = value("RTRACE_SOCKET");
  struct stat st {};
  if (::stat(socket.substr(0, socket.rfind('/')).c_str(), &st) == 0) {
    out << "mode=" << std::oct << (st.st_mode & 07777) << "\n";
  }
}

volatile sig_atomic_t g_toggled = 0;
void on_toggle(int /*signal*/) {
  g_toggled = 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    return 10;
  }
  const std::string mode = argv[1];
  const std::string trace = read_trace(argv[2]);
  const char* file = argc > 3 ? argv[3] : "";

  if (mode == "send") {
    std::printf("%d\n", static_cast<int>(::getpid()));
    std::fflush(stdout);
    send_trace(trace);
  } else if (mode == "twice") {
    send_trace(trace);
    send_trace(trace);
  } else if (mode == "fork") {
    // Both pids are printed before either process sends, so that no trace text written to the
    // same standard output can come between them.
    int printed[2];
    if (::pipe(printed) != 0) {
      return 12;
    }
    std::printf("%d\n", static_cast<int>(::getpid()));
    std::fflush(stdout);
    const pid_t child = ::fork();
    if (child == 0) {
      std::printf("%d\n", static_cast<int>(::getpid()));
      std::fflush(stdout);
      if (::write(printed[1], "x", 1) != 1) {
        return 13;
      }
      send_trace(trace);
      return 0;
    }
    char byte = 0;
    if (::read(printed[0], &byte, 1) != 1) {
      return 14;
    }
    send_trace(trace);
    ::waitpid(child, nullptr, 0);
  } else if (mode == "orphan") {
    // Synchronised on events, not on guesses of how long a step takes (on a loaded machine the
    // child may not run for a while): the parent exits once the child has connected, and the
    // child sends once the parent has gone (the end of `gone`, which only the parent held).
    int connected[2];
    int gone[2];
    if (::pipe(connected) != 0 || ::pipe(gone) != 0) {
      return 12;
    }
    if (::fork() == 0) {
      ::close(gone[1]);
      const int fd = connect_to_recorder();
      char byte = 0;
      if (::write(connected[1], "x", 1) != 1 || ::read(gone[0], &byte, 1) != 0) {
        return 13;
      }
      ::usleep(300000);  // and most likely after the recorder has seen it go
      send_all(fd, with_own_pid(trace));
      ::close(fd);
      return 0;
    }
    ::close(connected[1]);
    char byte = 0;
    if (::read(connected[0], &byte, 1) != 1) {
      return 14;
    }
  } else if (mode == "truncate") {
    const int fd = connect_to_recorder();
    send_all(fd, with_own_pid(trace).substr(0, std::strtoul(file, nullptr, 10)));
    ::close(fd);
  } else if (mode == "silent") {
    ::close(connect_to_recorder());
  } else if (mode == "env") {
    write_environment(file);
    send_trace(trace);
  } else if (mode == "toggle") {
    ::signal(SIGUSR1, on_toggle);
    ::prctl(PR_SET_NAME, "rtrace:off", 0, 0, 0);
    { std::ofstream(file) << ::getpid() << "\n"; }
    while (g_toggled == 0) {
      ::usleep(10000);
    }
    ::prctl(PR_SET_NAME, "rtrace:on", 0, 0, 0);
    // A traced program lives on after a toggle: it waits until the test says that -t has
    // returned (FILE.seen appears), however long -t takes to see the change.
    const std::string seen = std::string(file) + ".seen";
    while (::access(seen.c_str(), F_OK) != 0) {
      ::usleep(10000);
    }
    send_trace(trace);
  } else if (mode == "exit") {
    return 7;
  } else {
    return 11;
  }
  return 0;
}
