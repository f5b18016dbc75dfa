#include "recorder/trace_file_names.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "protocol/trace_file_name.h"

namespace rtrace::recorder {
namespace {

using trace_file_name::kMaxFieldBytes;

std::string_view kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) {
    return "a FIFO";
  }
  if (S_ISCHR(mode) || S_ISBLK(mode)) {
    return "a device";
  }
  if (S_ISSOCK(mode)) {
    return "a socket";
  }
  return "not a regular file";
}

std::string absolute(const std::string& directory) {
  return std::filesystem::canonical(directory).string();
}

// The directory part of `path` ("." for a bare name) and its last component.
std::pair<std::string, std::string> split(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) {
    return {".", path};
  }
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

std::string utc_stamp(std::time_t time) {
  std::tm utc{};
  ::gmtime_r(&time, &utc);
  std::array<char, 32> text{};
  const std::size_t length = std::strftime(text.data(), text.size(), "%Y%m%dT%H%M%SZ", &utc);
  return {text.data(), length};
}

std::string cut(std::string text) {
  if (text.size() > kMaxFieldBytes) {
    text.resize(kMaxFieldBytes);
  }
  return text;
}

}  // namespace

NameFields current_name_fields() {
  NameFields fields;
  std::array<char, HOST_NAME_MAX + 1> host{};
  if (::gethostname(host.data(), host.size() - 1) == 0) {
    fields.host = host.data();
  }
  if (fields.host.empty()) {
    fields.host = "localhost";
  }
  fields.start = std::time(nullptr);
  return fields;
}

std::string commit_trace(OutputStream& out, const TraceName& name) {
  return name.numbered_from_zero ? out.commit_numbered(name.stem, name.suffix)
                                 : out.commit_unique(name.stem, name.suffix);
}

std::string program_name(std::string_view argv0) {
  return std::string(trace_file_name::program_field(argv0));
}

std::optional<std::string> argv0_of(std::uint32_t pid) {
  const std::string path = fmt::format("/proc/{}/cmdline", pid);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return std::nullopt;
  }
  std::array<char, PATH_MAX> buffer{};
  ssize_t got = 0;
  do {
    got = ::read(fd, buffer.data(), buffer.size() - 1);
  } while (got < 0 && errno == EINTR);
  ::close(fd);
  // A process that has ended (a zombie) has an empty command line.
  if (got <= 0) {
    return std::nullopt;
  }
  return std::string(buffer.data());  // argv[0] ends at the first NUL
}

TraceFileNames::TraceFileNames(const std::optional<std::string>& output, TraceNameStyle style,
                               std::string suffix, NameFields fields)
    : style_(style), suffix_(std::move(suffix)), fields_(std::move(fields)) {
  const std::string path = output.value_or(".");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      directory_ = absolute(path);
      return;
    }
    if (!S_ISREG(st.st_mode)) {
      throw std::invalid_argument(fmt::format(
          "{}: is {}, not a directory or a file name: the traces are written as new regular files",
          path, kind_of(st.st_mode)));
    }
  } else if (path.ends_with('/')) {
    // "fifo/" does not stat (ENOTDIR): say what is there, when something is.
    struct stat named {};
    const std::string without_slash = path.substr(0, path.find_last_not_of('/') + 1);
    if (!without_slash.empty() && ::stat(without_slash.c_str(), &named) == 0) {
      throw std::invalid_argument(
          fmt::format("{}: {} is {}, not a directory", path, without_slash,
                      S_ISREG(named.st_mode) ? "a regular file" : kind_of(named.st_mode)));
    }
    throw std::invalid_argument(path + ": no such directory");
  }
  auto [directory, name] = split(path);
  if (name.empty() || name == "." || name == "..") {
    throw std::invalid_argument(path + ": not a file name");
  }
  struct stat dir {};
  if (::stat(directory.c_str(), &dir) != 0) {
    throw std::invalid_argument(fmt::format("{}: the directory {} does not exist ({})", path,
                                            directory, std::strerror(errno)));
  }
  if (!S_ISDIR(dir.st_mode)) {
    throw std::invalid_argument(fmt::format("{}: {} is not a directory", path, directory));
  }
  directory_ = absolute(directory);
  pattern_ = std::move(name);
  option_ = path;
  expand("check", 0);  // an unknown field is an error now, not at the first trace
}

std::string TraceFileNames::expand(std::string_view program, std::uint32_t pid) const {
  std::string name;
  const std::string& pattern = *pattern_;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') {
      name += pattern[i];
      continue;
    }
    if (i + 1 == pattern.size()) {
      throw std::invalid_argument(
          fmt::format("-o {}: a '%' ends the pattern (%% is a percent sign)", option_));
    }
    switch (pattern[++i]) {
      case 'p':
        name += std::to_string(pid);
        break;
      case 'n':
        name += program_name(program);
        break;
      case 'h':
        name += cut(fields_.host);
        break;
      case 't':
        name += utc_stamp(fields_.start);
        break;
      case '%':
        name += '%';
        break;
      default:
        throw std::invalid_argument(
            fmt::format("-o {}: unknown field %{} (the fields are %p, %n, %h, %t and %%)", option_,
                        pattern[i]));
    }
  }
  return name;
}

TraceName TraceFileNames::name(std::string_view program, std::uint32_t pid) const {
  if (pattern_) {
    std::string name = expand(program, pid);
    if (name.ends_with(suffix_) && name.size() > suffix_.size()) {
      name.resize(name.size() - suffix_.size());
      return {std::move(name), suffix_};
    }
    return {std::move(name), ""};
  }
  if (style_ == TraceNameStyle::SpRtrace) {
    return {fmt::format("{}-", pid), suffix_, true};
  }
  return {fmt::format("{}.{}", program_name(program), pid), suffix_};
}

}  // namespace rtrace::recorder
