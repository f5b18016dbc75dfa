#include "tracer/session/stop_hooks.h"

#include <atomic>
#include <cstddef>

#include "tracer/output/packet_encoder.h"
#include "tracer/output/trace_output.h"

namespace rtrace::tracer {
namespace {

constexpr std::size_t kMaxStopHooks = 16;

// Filled at module registration; read at the end of a trace, maybe from a signal handler: a
// slot is published (release) after its function is stored.
std::atomic<RtraceStopHook> g_hooks[kMaxStopHooks] = {};
std::atomic<std::size_t> g_hook_count{0};
bool g_running = false;  // under the drain lock

}  // namespace

bool add_stop_hook(RtraceStopHook hook) {
  const std::size_t slot = g_hook_count.fetch_add(1);
  if (slot >= kMaxStopHooks || hook == nullptr) {
    return false;
  }
  g_hooks[slot].store(hook, std::memory_order_release);
  return true;
}

void run_stop_hooks(const char* directory) {
  if (directory == nullptr || !output_is_open()) {
    return;
  }
  g_running = true;
  const std::size_t count = g_hook_count.load();
  for (std::size_t i = 0; i < count && i < kMaxStopHooks; ++i) {
    if (const RtraceStopHook hook = g_hooks[i].load(std::memory_order_acquire)) {
      hook(directory);
    }
  }
  g_running = false;
}

void attach_file(const char* name, const char* file) {
  if (!g_running || name == nullptr || file == nullptr) {
    return;
  }
  char packet[1024];  // a name and a file name (at most NAME_MAX): the encoder refuses more
  PacketEncoder encoder(packet, sizeof packet);
  encoder.begin_packet(sprtrace::PacketType::FileAttachment);
  encoder.string(name);
  encoder.string(file);
  encoder.end_packet();
  if (!encoder.overflowed()) {
    output_append(packet, encoder.size());
  }
}

}  // namespace rtrace::tracer
