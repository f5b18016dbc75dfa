#include "tracer/modules/audit/audit_trampolines.h"

#include <sys/mman.h>

#include <atomic>
#include <cstddef>
#include <cstring>

#include "tracer/api/module_lock.h"

namespace rtrace::tracer {
namespace {

// What a trampoline passes to the common entry (in %r11): the function and its name.
struct TrampolineTarget {
  std::uintptr_t function;
  const char* name;
};

// One trampoline: `movabs $target, %r11; jmp *entry(%rip)` and the entry's address.
constexpr std::size_t kTrampolineSize = 32;
constexpr std::size_t kPageSize = 4096;
constexpr std::size_t kTrampolinesPerPage = kPageSize / kTrampolineSize;
constexpr std::size_t kMaxTrampolines = 8192;
constexpr std::size_t kMaxPages = kMaxTrampolines / kTrampolinesPerPage;

constinit TrampolineTarget g_targets[kMaxTrampolines] = {};
constinit std::size_t g_made = 0;
constinit unsigned char* g_pages[kMaxPages] = {};
constinit AuditReport g_report = nullptr;
// la_symbind64 runs under the dynamic linker's lock, but a lock of our own costs nothing here
// (ModuleLock, a plain pthread mutex: std::mutex would bring libstdc++ into the process).
constinit ModuleLock g_lock;

}  // namespace
}  // namespace rtrace::tracer

// Called by the common entry with what the trampoline gave it.
extern "C" __attribute__((visibility("hidden"), used)) void rtrace_audit_trampoline_report(
    const rtrace::tracer::TrampolineTarget* target, const void* const* stack_pointer,
    std::uintptr_t frame_pointer) {
  if (rtrace::tracer::g_report != nullptr) {
    rtrace::tracer::g_report(target->name, stack_pointer, frame_pointer);
  }
}

extern "C" void rtrace_audit_trampoline_entry();

// The common entry. On entry: %r11 = the TrampolineTarget, the stack as at the function's entry
// (%rsp points at the caller's return address, so %rsp = 8 mod 16). It saves the registers that
// may carry arguments (%rdi, %rsi, %rdx, %rcx, %r8, %r9, %rax: the vector register count of a
// variadic call, %xmm0-7) and %r11, reports the call, restores them and jumps to the function.
asm(R"(
  .text
  .p2align 4
  .type rtrace_audit_trampoline_entry, @function
rtrace_audit_trampoline_entry:
  pushq %rbp
  movq %rsp, %rbp
  subq $192, %rsp
  movq %rdi, 0(%rsp)
  movq %rsi, 8(%rsp)
  movq %rdx, 16(%rsp)
  movq %rcx, 24(%rsp)
  movq %r8, 32(%rsp)
  movq %r9, 40(%rsp)
  movq %rax, 48(%rsp)
  movq %r11, 56(%rsp)
  movdqu %xmm0, 64(%rsp)
  movdqu %xmm1, 80(%rsp)
  movdqu %xmm2, 96(%rsp)
  movdqu %xmm3, 112(%rsp)
  movdqu %xmm4, 128(%rsp)
  movdqu %xmm5, 144(%rsp)
  movdqu %xmm6, 160(%rsp)
  movdqu %xmm7, 176(%rsp)
  movq %r11, %rdi
  leaq 8(%rbp), %rsi
  movq 0(%rbp), %rdx
  call rtrace_audit_trampoline_report
  movdqu 176(%rsp), %xmm7
  movdqu 160(%rsp), %xmm6
  movdqu 144(%rsp), %xmm5
  movdqu 128(%rsp), %xmm4
  movdqu 112(%rsp), %xmm3
  movdqu 96(%rsp), %xmm2
  movdqu 80(%rsp), %xmm1
  movdqu 64(%rsp), %xmm0
  movq 56(%rsp), %r11
  movq 48(%rsp), %rax
  movq 40(%rsp), %r9
  movq 32(%rsp), %r8
  movq 24(%rsp), %rcx
  movq 16(%rsp), %rdx
  movq 8(%rsp), %rsi
  movq 0(%rsp), %rdi
  movq 0(%r11), %r11
  leave
  jmpq *%r11
  .size rtrace_audit_trampoline_entry, .-rtrace_audit_trampoline_entry
)");

namespace rtrace::tracer {
namespace {

// Writes one trampoline at `code` (its page still writable), for the slot `target`.
void write_trampoline(unsigned char* code, const TrampolineTarget* target) {
  const auto target_address = reinterpret_cast<std::uint64_t>(target);
  const auto entry_address = reinterpret_cast<std::uint64_t>(&rtrace_audit_trampoline_entry);
  const unsigned char movabs_r11[] = {0x49, 0xBB};                // movabs $imm64, %r11
  const unsigned char jmp_indirect[] = {0xFF, 0x25, 0, 0, 0, 0};  // jmp *0(%rip)
  std::memcpy(code, movabs_r11, sizeof movabs_r11);
  std::memcpy(code + 2, &target_address, 8);
  std::memcpy(code + 10, jmp_indirect, sizeof jmp_indirect);
  std::memcpy(code + 16, &entry_address, 8);
}

}  // namespace

void set_audit_report(AuditReport report) {
  g_report = report;
}

std::uintptr_t make_trampoline(std::uintptr_t target, const char* name) {
  const LockScope hold(g_lock);
  if (g_made == kMaxTrampolines) {
    return 0;
  }
  // A trampoline's code depends only on its slot: a page is written whole when its first slot is
  // taken, then made executable, and never written again (other threads may be running through
  // its trampolines while later ones are made).
  const std::size_t page = g_made / kTrampolinesPerPage;
  if (g_pages[page] == nullptr) {
    void* mapped =
        ::mmap(nullptr, kPageSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) {
      return 0;
    }
    auto* code = static_cast<unsigned char*>(mapped);
    for (std::size_t i = 0; i < kTrampolinesPerPage; ++i) {
      write_trampoline(code + i * kTrampolineSize, &g_targets[page * kTrampolinesPerPage + i]);
    }
    if (::mprotect(mapped, kPageSize, PROT_READ | PROT_EXEC) != 0) {
      ::munmap(mapped, kPageSize);
      return 0;
    }
    g_pages[page] = code;
  }
  g_targets[g_made] = TrampolineTarget{target, name};
  const unsigned char* code = g_pages[page] + (g_made % kTrampolinesPerPage) * kTrampolineSize;
  ++g_made;
  return reinterpret_cast<std::uintptr_t>(code);
}

}  // namespace rtrace::tracer
