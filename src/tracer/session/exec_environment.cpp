#include "tracer/session/exec_environment.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "protocol/tracer_environment.h"

namespace rtrace::tracer {
namespace {

// A variable kept whole ("NAME=value"): the recorder's own.
constexpr const char* kWholeVariables[] = {
    tracer_environment::kOptionsVariable, tracer_environment::kSocketVariable,
    tracer_environment::kRootPidVariable,
    "LD_BIND_NOW",  // set with the audit module (recorder/record_session.cpp)
};
constexpr std::size_t kWholeCount = sizeof kWholeVariables / sizeof kWholeVariables[0];
// A list whose tracer entries are kept (the program's own entries stay too).
constexpr const char* kListVariables[] = {"LD_PRELOAD", "LD_AUDIT"};
constexpr std::size_t kListCount = sizeof kListVariables / sizeof kListVariables[0];
constexpr std::size_t kKeptCount = kWholeCount + kListCount;

// What was captured: "NAME=value" for the whole variables, "NAME=entry:entry" (the tracer's
// entries only) for the lists; null when the first image had none.
char g_storage[8192];
const char* g_kept[kKeptCount] = {};

const char* name_of(std::size_t kept) {
  return kept < kWholeCount ? kWholeVariables[kept] : kListVariables[kept - kWholeCount];
}

bool is_list(std::size_t kept) {
  return kept >= kWholeCount;
}

// The value of `name` in `entry` ("NAME=value"), or null.
const char* value_in(const char* entry, const char* name) {
  const std::size_t length = std::strlen(name);
  return std::strncmp(entry, name, length) == 0 && entry[length] == '=' ? entry + length + 1
                                                                        : nullptr;
}

const char* find_in(char* const* envp, const char* name) {
  for (char* const* entry = envp; entry != nullptr && *entry != nullptr; ++entry) {
    if (const char* value = value_in(*entry, name)) {
      return value;
    }
  }
  return nullptr;
}

bool is_separator(char c) {
  return c == ':' || c == ' ';
}

// Whether the list entry [begin, end) is one of the tracer's libraries (librtrace-*.so).
bool is_tracer_entry(const char* begin, const char* end) {
  const char* name = end;
  while (name > begin && name[-1] != '/') {
    --name;
  }
  constexpr char kPrefix[] = "librtrace-";
  return static_cast<std::size_t>(end - name) > sizeof kPrefix - 1 &&
         std::memcmp(name, kPrefix, sizeof kPrefix - 1) == 0;
}

// Whether the list `value` holds the entry [begin, end).
bool list_holds(const char* value, const char* begin, const char* end) {
  const auto length = static_cast<std::size_t>(end - begin);
  for (const char* at = value; *at != '\0';) {
    const char* stop = at;
    while (*stop != '\0' && !is_separator(*stop)) {
      ++stop;
    }
    if (static_cast<std::size_t>(stop - at) == length && std::memcmp(at, begin, length) == 0) {
      return true;
    }
    at = *stop != '\0' ? stop + 1 : stop;
  }
  return false;
}

// Whether `envp` lacks the kept variable `kept` or holds another value (for a list: lacks one of
// the tracer's entries).
bool needs(char* const* envp, std::size_t kept) {
  const char* want = g_kept[kept] + std::strlen(name_of(kept)) + 1;
  const char* have = find_in(envp, name_of(kept));
  if (have == nullptr) {
    return true;
  }
  if (!is_list(kept)) {
    return std::strcmp(have, want) != 0;
  }
  for (const char* at = want; *at != '\0';) {
    const char* stop = std::strchr(at, ':');
    stop = stop != nullptr ? stop : at + std::strlen(at);
    if (!list_holds(have, at, stop)) {
      return true;
    }
    at = *stop != '\0' ? stop + 1 : stop;
  }
  return false;
}

// Appends `text` at `out`.
char* append(char* out, const char* text) {
  const std::size_t length = std::strlen(text);
  std::memcpy(out, text, length);
  return out + length;
}

}  // namespace

void exec_environment_capture() {
  char* out = g_storage;
  char* const limit = g_storage + sizeof g_storage;
  for (std::size_t kept = 0; kept < kKeptCount; ++kept) {
    g_kept[kept] = nullptr;
    const char* value = find_in(environ, name_of(kept));
    if (value == nullptr || static_cast<std::size_t>(limit - out) <
                                std::strlen(name_of(kept)) + std::strlen(value) + 2) {
      continue;
    }
    char* const start = out;
    out = append(out, name_of(kept));
    *out++ = '=';
    const char* const values = out;
    if (!is_list(kept)) {
      out = append(out, value);
    } else {
      for (const char* at = value; *at != '\0';) {
        const char* stop = at;
        while (*stop != '\0' && !is_separator(*stop)) {
          ++stop;
        }
        if (is_tracer_entry(at, stop)) {
          if (out != values) {
            *out++ = ':';
          }
          std::memcpy(out, at, static_cast<std::size_t>(stop - at));
          out += stop - at;
        }
        at = *stop != '\0' ? stop + 1 : stop;
      }
    }
    *out++ = '\0';
    if (is_list(kept) && *values == '\0') {
      out = start;  // no tracer entry in that list: nothing to keep
      continue;
    }
    g_kept[kept] = start;
  }
}

ExecEnvironment::ExecEnvironment(char* const* envp) : envp_(envp) {
  bool missing[kKeptCount] = {};
  bool any = false;
  for (std::size_t kept = 0; kept < kKeptCount; ++kept) {
    missing[kept] = g_kept[kept] != nullptr && needs(envp, kept);
    any = any || missing[kept];
  }
  if (!any) {
    return;
  }
  // The size: the pointers (the program's, replaced ones left out, then ours and the null), and
  // the new list values ("NAME=" our entries ":" the program's).
  std::size_t count = 0;
  for (char* const* entry = envp; entry != nullptr && *entry != nullptr; ++entry) {
    ++count;
  }
  std::size_t bytes = (count + kKeptCount + 1) * sizeof(char*);
  for (std::size_t kept = 0; kept < kKeptCount; ++kept) {
    if (missing[kept] && is_list(kept)) {
      const char* have = find_in(envp, name_of(kept));
      bytes += std::strlen(g_kept[kept]) + 2 + (have != nullptr ? std::strlen(have) : 0);
    }
  }
  char* memory = inline_;
  if (bytes > sizeof inline_) {
    void* mapped =
        ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) {
      return;  // the exec goes on with the program's environment
    }
    mapped_ = mapped;
    mapped_size_ = bytes;
    memory = static_cast<char*>(mapped);
  }
  auto** array = reinterpret_cast<char**>(memory);
  char* strings = memory + (count + kKeptCount + 1) * sizeof(char*);
  std::size_t at = 0;
  for (char* const* entry = envp; entry != nullptr && *entry != nullptr; ++entry) {
    bool replaced = false;
    for (std::size_t kept = 0; kept < kKeptCount; ++kept) {
      replaced = replaced || (missing[kept] && value_in(*entry, name_of(kept)) != nullptr);
    }
    if (!replaced) {
      array[at++] = *entry;
    }
  }
  for (std::size_t kept = 0; kept < kKeptCount; ++kept) {
    if (!missing[kept]) {
      continue;
    }
    if (!is_list(kept)) {
      array[at++] = const_cast<char*>(g_kept[kept]);
      continue;
    }
    // Ours first, so that the tracer's interposers come before the program's own library's.
    array[at++] = strings;
    strings = append(strings, g_kept[kept]);
    if (const char* have = find_in(envp, name_of(kept)); have != nullptr && *have != '\0') {
      *strings++ = ':';
      strings = append(strings, have);
    }
    *strings++ = '\0';
  }
  array[at] = nullptr;
  envp_ = array;
}

ExecEnvironment::~ExecEnvironment() {
  if (mapped_ != nullptr) {
    ::munmap(mapped_, mapped_size_);
  }
}

bool exec_drops_preload(const char* path) {
  struct stat st {};
  if (path == nullptr || ::stat(path, &st) != 0) {
    return false;
  }
  return ((st.st_mode & S_ISUID) != 0 && st.st_uid != ::geteuid()) ||
         ((st.st_mode & S_ISGID) != 0 && st.st_gid != ::getegid());
}

}  // namespace rtrace::tracer
