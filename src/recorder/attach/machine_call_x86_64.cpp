// x86-64: arguments in rdi, rsi, rdx, rcx, r8, r9; the return address on the stack, which is
// 16-byte aligned at the call (so 8 past that at the function's first instruction).
#include <elf.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

#include <cerrno>
#include <stdexcept>
#include <system_error>

#include "recorder/attach/machine_call.h"

#if !defined(__x86_64__)
#error "machine_call_x86_64.cpp is built for x86-64 only"
#endif

namespace rtrace::recorder::attach {

const std::uint64_t kRedZone = 128;

Registers read_registers(pid_t tid) {
  Registers registers{};
  iovec vector{&registers, sizeof registers};
  if (::ptrace(PTRACE_GETREGSET, tid, NT_PRSTATUS, &vector) != 0) {
    throw std::system_error(errno, std::generic_category(), "ptrace(GETREGSET)");
  }
  return registers;
}

void write_registers(pid_t tid, const Registers& registers) {
  Registers copy = registers;
  iovec vector{&copy, sizeof copy};
  if (::ptrace(PTRACE_SETREGSET, tid, NT_PRSTATUS, &vector) != 0) {
    throw std::system_error(errno, std::generic_category(), "ptrace(SETREGSET)");
  }
}

CallSetup call_setup(const Registers& saved, std::uint64_t function,
                     const std::vector<std::uint64_t>& arguments, std::uint64_t stack_top) {
  if (arguments.size() > 6) {
    throw std::invalid_argument("a remote call takes at most 6 arguments");
  }
  CallSetup setup{saved, std::nullopt};
  Registers& r = setup.registers;
  unsigned long long* const slots[] = {&r.rdi, &r.rsi, &r.rdx, &r.rcx, &r.r8, &r.r9};
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    *slots[i] = arguments[i];
  }
  const std::uint64_t aligned = stack_top & ~std::uint64_t{15};
  r.rsp = aligned - 8;  // where the call instruction would have pushed the return address
  r.rip = function;
  r.rax = 0;  // no vector registers for a variadic callee
  // Not inside a system call any more: the kernel must not restart it at our function.
  r.orig_rax = static_cast<unsigned long long>(-1);
  setup.return_address_slot = r.rsp;
  return setup;
}

std::uint64_t stack_pointer(const Registers& registers) {
  return registers.rsp;
}

std::uint64_t instruction_pointer(const Registers& registers) {
  return registers.rip;
}

std::uint64_t return_value(const Registers& registers) {
  return registers.rax;
}

}  // namespace rtrace::recorder::attach
