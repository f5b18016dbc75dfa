#include "formats/stacktrack/process_context.h"

namespace rtrace::stacktrack {
namespace {

// What a table entry costs beyond its text (node, key, bookkeeping), for the budget.
constexpr std::uint64_t kEntryOverhead = 96;

}  // namespace

void ContextBudget::add(std::uint64_t bytes) {
  if (bytes > limit_ - used_) {
    throw ContextFull{limit_};
  }
  used_ += bytes;
}

const SourceFile* ProcessContext::file(std::int64_t number) const {
  const auto it = files_.find(number);
  return it == files_.end() ? nullptr : &it->second;
}

const Scope* ProcessContext::scope(std::int64_t index) const {
  const auto it = scopes_.find(index);
  return it == scopes_.end() ? nullptr : &it->second;
}

void ProcessContext::keep(std::string& kept, const std::string& text) {
  budget_->add(text.size());
  budget_->release(kept.size());
  kept = text;
}

void ProcessContext::post_file(std::int64_t number, std::uint64_t write_count,
                               std::int64_t property_count, const std::string* name) {
  auto it = files_.find(number);
  if (it == files_.end()) {
    budget_->add(kEntryOverhead);
    it = files_.emplace(number, SourceFile{}).first;
  }
  SourceFile& file = it->second;
  file.write_count = write_count;
  file.property_count = property_count;
  if (name != nullptr) {
    keep(file.name, *name);
  }
}

void ProcessContext::post_property(std::int64_t file_number, std::int64_t index,
                                   const std::string& text) {
  auto it = files_.find(file_number);
  if (it == files_.end()) {
    budget_->add(kEntryOverhead);
    it = files_.emplace(file_number, SourceFile{}).first;
  }
  auto& properties = it->second.properties;
  auto property = properties.find(index);
  if (property == properties.end()) {
    budget_->add(kEntryOverhead);
    property = properties.emplace(index, std::string()).first;
  }
  keep(property->second, text);
}

void ProcessContext::post_scope(std::int64_t index, const Scope& where, const std::string* name) {
  auto it = scopes_.find(index);
  if (it == scopes_.end()) {
    budget_->add(kEntryOverhead);
    it = scopes_.emplace(index, Scope{}).first;
  }
  Scope& scope = it->second;
  scope.file = where.file;
  scope.line = where.line;
  scope.style = where.style;
  scope.write_count = where.write_count;
  if (name != nullptr) {
    keep(scope.name, *name);
  }
}

}  // namespace rtrace::stacktrack
