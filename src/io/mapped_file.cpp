#include "io/mapped_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <limits>
#include <mutex>

namespace rtrace {
namespace {

// The live mappings, for the SIGBUS handler, which may only read lock-free atomics. A slot is
// live while `begin` is not 0; `fault` is the lowest offset of a page found cut off.
struct LiveMapping {
  std::atomic<bool> taken{false};
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::uintptr_t> end{0};
  std::atomic<std::uint64_t> fault{0};
};

constexpr int kLiveMappings = 64;
constexpr std::uint64_t kNoFault = std::numeric_limits<std::uint64_t>::max();

LiveMapping g_live[kLiveMappings];
struct sigaction g_previous {};
std::uintptr_t g_page_size = 4096;

// Maps zero pages over the rest of the live mapping that `address` is in, from its page on, and
// notes the page's offset; false when `address` is in none.
bool zero_fill_cut_off(std::uintptr_t address) {
  for (LiveMapping& live : g_live) {
    const std::uintptr_t begin = live.begin.load(std::memory_order_acquire);
    const std::uintptr_t end = live.end.load(std::memory_order_acquire);
    if (begin == 0 || address < begin || address >= end) {
      continue;
    }
    const std::uintptr_t page = address & ~(g_page_size - 1);
    // NOLINTNEXTLINE(performance-no-int-to-ptr): a page of our own mapping, from the fault address
    if (::mmap(reinterpret_cast<void*>(page), end - page, PROT_READ,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
      return false;
    }
    const std::uint64_t offset = page - begin;
    std::uint64_t seen = live.fault.load(std::memory_order_relaxed);
    while (offset < seen && !live.fault.compare_exchange_weak(seen, offset)) {
    }
    return true;
  }
  return false;
}

// A SIGBUS that is not ours goes where it went before this handler was installed.
void pass_on(int signal, siginfo_t* info, void* context) {
  if ((g_previous.sa_flags & SA_SIGINFO) != 0 && g_previous.sa_sigaction != nullptr) {
    g_previous.sa_sigaction(signal, info, context);
    return;
  }
  if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(signal);
    return;
  }
  // An ignored SIGBUS that some process sent stays ignored; a fault cannot be ignored.
  if (g_previous.sa_handler == SIG_IGN && info != nullptr && info->si_code <= 0) {
    return;
  }
  // The default action: it takes the signal raised again once this handler returns (blocked
  // until then), with the usual exit status and core dump.
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(signal, &fallback, nullptr);
  ::raise(signal);
}

void on_sigbus(int signal, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  // Only a fault (si_code > 0) has an address; a SIGBUS sent by a process is never ours.
  const bool ours = info != nullptr && info->si_code > 0 &&
                    zero_fill_cut_off(reinterpret_cast<std::uintptr_t>(info->si_addr));
  if (!ours) {
    pass_on(signal, info, context);
  }
  errno = saved_errno;
}

bool install_handler() {
  static std::once_flag once;
  static bool installed = false;
  std::call_once(once, [] {
    const long page = ::sysconf(_SC_PAGESIZE);
    if (page > 0) {
      g_page_size = static_cast<std::uintptr_t>(page);
    }
    struct sigaction action {};
    action.sa_sigaction = on_sigbus;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&action.sa_mask);
    installed = ::sigaction(SIGBUS, &action, &g_previous) == 0;
  });
  return installed;
}

int take_live_slot() {
  for (int i = 0; i < kLiveMappings; ++i) {
    bool free = false;
    if (g_live[i].taken.compare_exchange_strong(free, true)) {
      return i;
    }
  }
  return -1;
}

}  // namespace

std::unique_ptr<MappedFile> MappedFile::map(int fd, std::string name) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
      static_cast<std::uint64_t>(st.st_size) > std::numeric_limits<std::size_t>::max()) {
    return nullptr;
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  // A file of no size is read instead: mmap() maps no empty range, and files of /proc and /sys
  // say 0 and still have content.
  if (size == 0) {
    return nullptr;
  }
  const int own_fd = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (own_fd < 0) {
    return nullptr;
  }
  const int slot = install_handler() ? take_live_slot() : -1;
  void* data = slot < 0 ? MAP_FAILED : ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, own_fd, 0);
  if (data == MAP_FAILED) {
    if (slot >= 0) {
      g_live[slot].taken.store(false);
    }
    ::close(own_fd);
    return nullptr;
  }
  LiveMapping& live = g_live[slot];
  live.fault.store(kNoFault);
  live.end.store(reinterpret_cast<std::uintptr_t>(data) + size, std::memory_order_release);
  live.begin.store(reinterpret_cast<std::uintptr_t>(data), std::memory_order_release);
  return std::unique_ptr<MappedFile>(
      new MappedFile(own_fd, std::move(name), static_cast<const std::uint8_t*>(data), size, slot));
}

std::unique_ptr<MappedFile> MappedFile::map(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return nullptr;
  }
  std::unique_ptr<MappedFile> mapped = map(fd, path);
  ::close(fd);
  return mapped;
}

MappedFile::MappedFile(int fd, std::string name, const std::uint8_t* data, std::size_t size,
                       int slot)
    : fd_(fd), name_(std::move(name)), data_(data), size_(size), slot_(slot) {}

MappedFile::~MappedFile() {
  LiveMapping& live = g_live[slot_];
  live.begin.store(0, std::memory_order_release);
  live.end.store(0, std::memory_order_release);
  ::munmap(const_cast<std::uint8_t*>(data_), size_);
  live.taken.store(false);
  ::close(fd_);
}

std::size_t MappedFile::readable(std::uint64_t offset, std::size_t length) {
  if (!truncated_at_) {
    const std::uint64_t fault = g_live[slot_].fault.load();
    if (fault != kNoFault) {
      note_truncation(fault);
    }
    struct stat st {};
    if (::fstat(fd_, &st) == 0 && static_cast<std::uint64_t>(st.st_size) < size_) {
      note_truncation(static_cast<std::uint64_t>(st.st_size));
    }
  }
  const std::uint64_t end = truncated_at_.value_or(size_);
  if (offset >= end) {
    return 0;
  }
  return static_cast<std::size_t>(std::min<std::uint64_t>(length, end - offset));
}

std::uint64_t MappedFile::release(std::uint64_t from, std::uint64_t to) const {
  const std::uint64_t first = (from + g_page_size - 1) & ~std::uint64_t{g_page_size - 1};
  const std::uint64_t last = std::min<std::uint64_t>(to, size_) & ~std::uint64_t{g_page_size - 1};
  if (first < last) {
    // Only read, never written: the pages come back from the file (or as the zeros mapped over
    // a cut-off part), so this changes no byte the reader sees. A failure only keeps the memory.
    ::madvise(const_cast<std::uint8_t*>(data_) + first, last - first, MADV_DONTNEED);
  }
  return std::max(from, last);
}

void MappedFile::note_truncation(std::uint64_t at) {
  truncated_at_ = std::min(truncated_at_.value_or(at), at);
}

std::string MappedFile::truncation_message() const {
  return "file truncated while being read (it had " + std::to_string(size_) + " bytes)";
}

}  // namespace rtrace
