// The machine-specific half of calling a function inside a stopped thread of another process:
// its registers, and how a call is set up so that its return traps. One implementation per
// machine (machine_call_x86_64.cpp); remote_thread.cpp does the rest the same way everywhere.
#pragma once

#include <sys/types.h>
#include <sys/user.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace rtrace::recorder::attach {

using Registers = user_regs_struct;

// Bytes below the stack pointer that the interrupted code may still be using (the ABI's red
// zone): the call's data goes below them.
extern const std::uint64_t kRedZone;

// The registers of stopped thread `tid` (PTRACE_GETREGSET). Throws std::system_error.
Registers read_registers(pid_t tid);
void write_registers(pid_t tid, const Registers& registers);

struct CallSetup {
  Registers registers;
  // A word to write at this address before running (the return address, on machines that
  // take it from the stack).
  std::optional<std::uint64_t> return_address_slot;
};

// The registers that call `function(arguments...)` (at most six) with the stack below
// `stack_top`, returning to address 0: the return faults (SIGSEGV at instruction pointer 0),
// which stops the thread for the tracer. A system call the thread was stopped in is not
// restarted for the call (it is when `saved` is put back).
CallSetup call_setup(const Registers& saved, std::uint64_t function,
                     const std::vector<std::uint64_t>& arguments, std::uint64_t stack_top);

std::uint64_t stack_pointer(const Registers& registers);
std::uint64_t instruction_pointer(const Registers& registers);
std::uint64_t return_value(const Registers& registers);

}  // namespace rtrace::recorder::attach
