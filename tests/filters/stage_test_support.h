// Builds small traces by hand for the stage tests: calls with their frames and arguments kept
// alive for as long as the builder lives.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "model/trace_sink.h"

namespace rtrace::test {

class TraceBuilder {
 public:
  TraceBuilder& alloc(std::uint64_t index, Address id, std::uint64_t size,
                      std::vector<Address> frames, std::uint32_t type = 1,
                      std::uint32_t context = 0) {
    return add({.index = index,
                .resource_id = id,
                .size = size,
                .context = context,
                .resource_type = type,
                .kind = CallKind::Alloc},
               "malloc", std::move(frames));
  }
  TraceBuilder& release(std::uint64_t index, Address id, std::uint32_t type = 1,
                        std::uint32_t context = 0) {
    return add({.index = index,
                .resource_id = id,
                .context = context,
                .resource_type = type,
                .kind = CallKind::Free},
               "free", {});
  }
  // A call that neither allocates nor releases (kind Other), or that enters or leaves a scope.
  TraceBuilder& other(std::uint64_t index, std::string function, CallKind kind = CallKind::Other) {
    return add({.index = index, .kind = kind}, std::move(function), {0x1});
  }
  TraceBuilder& argument(std::string name, std::string value) {
    Entry& last = entries_.back();
    last.arguments.push_back(std::move(name));
    last.arguments.push_back(std::move(value));
    return *this;
  }

  // Pushes a header, `types`, the calls and finish() into `sink`.
  void push(TraceSink& sink, const std::vector<ResourceType>& types = {memory_type()}) const {
    TraceHeader header;
    header.arch = "x86_64";
    sink.header(header);
    ProcessInfo process;
    process.pid = 7;
    process.name = "./prog";
    process.backtrace_depth = 10;
    sink.process(process);
    for (const ResourceType& type : types)
      sink.resource_type(type);
    for (const Entry& entry : entries_) {
      std::vector<Argument> arguments;
      for (std::size_t i = 0; i + 1 < entry.arguments.size(); i += 2)
        arguments.push_back({entry.arguments[i], entry.arguments[i + 1]});
      sink.call(CallRecord{.call = entry.call,
                           .function = entry.function,
                           .arguments = arguments,
                           .frames = entry.frames});
    }
    sink.finish();
  }

  static ResourceType memory_type() {
    return {.id = 1, .type = "memory", .description = "memory allocation in bytes"};
  }

 private:
  struct Entry {
    Call call;
    std::string function;
    std::vector<Frame> frames;
    std::vector<std::string> arguments;
  };
  TraceBuilder& add(Call call, std::string function, const std::vector<Address>& addresses) {
    call.pid = 7;
    std::vector<Frame> frames;
    for (const Address address : addresses) {
      frames.push_back({.address = address});
    }
    entries_.push_back({call, std::move(function), std::move(frames), {}});
    return *this;
  }
  std::deque<Entry> entries_;
};

}  // namespace rtrace::test
