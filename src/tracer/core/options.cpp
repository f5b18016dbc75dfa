#include "tracer/core/options.h"

#include <cstring>

namespace rtrace::tracer {
namespace {

// A decimal number occupying all of [begin, end); false when there is none.
bool parse_number(const char* begin, const char* end, std::uint64_t& value) {
  if (begin == end) {
    return false;
  }
  std::uint64_t result = 0;
  for (const char* p = begin; p != end; ++p) {
    if (*p < '0' || *p > '9' || result > (UINT64_MAX - 9) / 10) {
      return false;
    }
    result = result * 10 + static_cast<std::uint64_t>(*p - '0');
  }
  value = result;
  return true;
}

bool key_is(const char* begin, const char* end, const char* key) {
  const std::size_t length = std::strlen(key);
  return static_cast<std::size_t>(end - begin) == length && std::memcmp(begin, key, length) == 0;
}

void parse_sizes(const char* begin, const char* end, TracerOptions& options) {
  options.size_count = 0;
  const char* item = begin;
  while (item < end && options.size_count < TracerOptions::kMaxSizes) {
    const char* item_end = item;
    while (item_end < end && *item_end != tracer_options::kListSeparator) {
      ++item_end;
    }
    std::uint64_t size = 0;
    if (parse_number(item, item_end, size)) {
      options.sizes[options.size_count++] = size;
    }
    item = item_end + 1;
  }
}

// Copies [begin, end) into `out` when it fits with its NUL; leaves `out` as it was otherwise.
template <std::size_t Size>
void copy_text(const char* begin, const char* end, char (&out)[Size]) {
  const auto length = static_cast<std::size_t>(end - begin);
  if (length < Size) {
    std::memcpy(out, begin, length);
    out[length] = '\0';
  }
}

// `depth_given`: set when the key is the depth's, so that parse_options knows whether the
// format's default depth applies.
void apply(const char* key, const char* key_end, const char* value, const char* value_end,
           TracerOptions& options, bool& depth_given) {
  if (key_is(key, key_end, option_key::kSizes)) {
    parse_sizes(value, value_end, options);
    return;
  }
  if (key_is(key, key_end, option_key::kManaged)) {
    copy_text(value, value_end, options.managed_dir);
    return;
  }
  if (key_is(key, key_end, option_key::kAttachments)) {
    copy_text(value, value_end, options.attachment_dir);
    return;
  }
  if (key_is(key, key_end, option_key::kAudit)) {
    copy_text(value, value_end, options.audit_patterns);
    return;
  }
  std::uint64_t number = 0;
  if (!parse_number(value, value_end, number)) {
    return;
  }
  if (key_is(key, key_end, option_key::kDepth)) {
    depth_given = true;
    options.depth = number > TracerOptions::kMaxDepth ? TracerOptions::kMaxDepth
                                                      : static_cast<std::uint32_t>(number);
  } else if (key_is(key, key_end, option_key::kStart)) {
    options.start = number != 0;
  } else if (key_is(key, key_end, option_key::kSignal)) {
    if (number > 0 && number < 65) {
      options.toggle_signal = static_cast<int>(number);
    }
  } else if (key_is(key, key_end, option_key::kFreeBacktraces)) {
    options.free_backtraces = number != 0;
  } else if (key_is(key, key_end, option_key::kTimestamps)) {
    options.timestamps = number != 0;
  } else if (key_is(key, key_end, option_key::kBuffered)) {
    options.buffered = number != 0;
  } else if (key_is(key, key_end, option_key::kFollowForks)) {
    options.follow_forks = number != 0;
  } else if (key_is(key, key_end, option_key::kArgs)) {
    options.args = number != 0;
  } else if (key_is(key, key_end, option_key::kExtensions)) {
    options.extensions = number != 0;
  } else if (key_is(key, key_end, option_key::kCompact)) {
    options.compact = number != 0;
  } else if (key_is(key, key_end, option_key::kFileFromRecorder)) {
    options.file_from_recorder = number != 0;
  } else if (key_is(key, key_end, option_key::kLeakCheck)) {
    options.leak_check = number != 0;
  } else if (key_is(key, key_end, option_key::kSampleBytes)) {
    options.sample_bytes = number;
  } else if (key_is(key, key_end, option_key::kCompress)) {
    options.compress_level =
        number <= TracerOptions::kMaxCompressLevel ? static_cast<int>(number) : 0;
  }
}

}  // namespace

bool TracerOptions::wants_backtrace_for_size(std::uint64_t size) const {
  if (size_count == 0) {
    return true;
  }
  for (std::size_t i = 0; i < size_count; ++i) {
    if (sizes[i] == size) {
      return true;
    }
  }
  return false;
}

TracerOptions parse_options(const char* text) {
  TracerOptions options;
  if (text == nullptr) {
    return options;
  }
  bool depth_given = false;
  const char* item = text;
  while (*item != '\0') {
    const char* item_end = item;
    while (*item_end != '\0' && *item_end != ',') {
      ++item_end;
    }
    const char* equals = item;
    while (equals < item_end && *equals != '=') {
      ++equals;
    }
    if (equals < item_end) {
      apply(item, equals, equals + 1, item_end, options, depth_given);
    }
    item = *item_end == ',' ? item_end + 1 : item_end;
  }
  if (!depth_given) {
    options.depth = tracer_options::default_depth(options.compact);
  }
  return options;
}

}  // namespace rtrace::tracer
