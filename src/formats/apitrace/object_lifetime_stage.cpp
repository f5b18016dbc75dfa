#include "formats/apitrace/object_lifetime_stage.h"

#include <charconv>
#include <optional>
#include <string_view>

namespace rtrace::apitrace {
namespace {

std::optional<std::string_view> argument(const CallRecord& record, std::string_view name) {
  for (const Argument& arg : record.arguments) {
    if (arg.name == name) {
      return arg.value;
    }
  }
  return std::nullopt;
}

// The last argument that is not the return value.
std::optional<std::string_view> last_argument(const CallRecord& record) {
  for (auto it = record.arguments.rbegin(); it != record.arguments.rend(); ++it) {
    if (it->name != "return") {
      return it->value;
    }
  }
  return std::nullopt;
}

// One number as dump prints it: decimal, 0x hexadecimal, NULL (0) or an enum name (none).
std::optional<std::uint64_t> number(std::string_view text) {
  if (text == "NULL") {
    return 0;
  }
  int base = 10;
  if (text.starts_with("0x")) {
    text.remove_prefix(2);
    base = 16;
  }
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

// The numbers of a value as dump prints it: `5`, `&5` (an array of one) or `{1, 2, 3}`. Elements
// that are not numbers are skipped.
std::vector<std::uint64_t> numbers(std::string_view text) {
  if (text.starts_with('&')) {
    text.remove_prefix(1);
  }
  if (text.starts_with('{') && text.ends_with('}')) {
    text = text.substr(1, text.size() - 2);
  }
  std::vector<std::uint64_t> values;
  while (!text.empty()) {
    const std::size_t comma = text.find(", ");
    if (const auto value = number(text.substr(0, comma))) {
      values.push_back(*value);
    }
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 2);
  }
  return values;
}

std::uint64_t first_number(std::optional<std::string_view> text) {
  if (!text) {
    return 0;
  }
  const std::vector<std::uint64_t> values = numbers(*text);
  return values.empty() ? 0 : values.front();
}

// The share-group argument of the context-creating calls.
std::uint64_t shared_context(const CallRecord& record) {
  for (std::string_view name : {"share_context", "shareList", "share_list"}) {
    if (const auto value = argument(record, name)) {
      return first_number(value);
    }
  }
  return 0;
}

// Display lists first .. first + range - 1, bounded so that a hostile range cannot make us emit
// billions of records (GL itself caps names at 32 bits).
std::vector<std::uint64_t> list_range(std::uint64_t first, std::uint64_t range) {
  constexpr std::uint64_t kMaxRange = 1U << 16;
  std::vector<std::uint64_t> ids;
  if (first == 0) {
    return ids;
  }
  for (std::uint64_t i = 0; i < range && i < kMaxRange; ++i) {
    ids.push_back(first + i);
  }
  return ids;
}

}  // namespace

void ObjectLifetimeStage::header(const rtrace::TraceHeader& header) {
  active_ = !header.metadata.get(kAppliedKey).has_value();
  if (!active_) {
    next().header(header);
    return;
  }
  rtrace::TraceHeader marked = header;
  marked.metadata.set(kAppliedKey, "1");
  next().header(marked);
  for (std::uint32_t kind = 0; kind < kObjectKinds; ++kind) {
    const ObjectKindInfo& info = object_kind_info(static_cast<ObjectKind>(kind));
    next().resource_type(ResourceType{.id = kind + 1,
                                      .flags = 0,
                                      .type = std::string(info.type),
                                      .description = std::string(info.description)});
  }
}

void ObjectLifetimeStage::resource_type(const ResourceType& type) {
  // Our types take ids 1 to kObjectKinds; a trace's own types (an apitrace trace has none) move
  // up behind them.
  ResourceType moved = type;
  moved.id += active_ ? kObjectKinds : 0;
  next().resource_type(moved);
}

std::uint64_t ObjectLifetimeStage::resource_id(const CallRecord& record, ObjectKind kind,
                                               std::uint64_t name) const {
  if (!object_kind_info(kind).per_context) {
    return name;
  }
  const auto current = current_groups_.find(record.call.thread);
  const std::uint64_t group = current == current_groups_.end() ? 0 : current->second;
  return (group << 32U) | (name & 0xffffffffU);
}

ObjectLifetimeStage::Objects ObjectLifetimeStage::objects_of(const CallRecord& record,
                                                             const ObjectCall& what) {
  Objects objects{what.kind, what.creates, {}};
  switch (what.source) {
    case ObjectSource::LastArgument:
      if (const auto value = last_argument(record)) {
        objects.ids = numbers(*value);
      }
      break;
    case ObjectSource::ReturnValue:
      objects.ids.push_back(first_number(argument(record, "return")));
      break;
    case ObjectSource::ListRange:
      objects.ids = what.creates ? list_range(first_number(argument(record, "return")),
                                              first_number(argument(record, "range")))
                                 : list_range(first_number(argument(record, "list")),
                                              first_number(argument(record, "range")));
      break;
  }
  std::erase(objects.ids, 0);  // 0 / NULL: creation failed, or a delete GL ignores
  for (std::uint64_t& id : objects.ids) {
    id = resource_id(record, what.kind, id);
  }
  return objects;
}

void ObjectLifetimeStage::follow_contexts(const CallRecord& record, const ObjectCall& what) {
  switch (what.context) {
    case ContextEffect::None:
      break;
    case ContextEffect::Create: {
      const std::uint64_t handle = first_number(argument(record, "return"));
      if (handle == 0) {
        break;
      }
      const auto shared = context_groups_.find(shared_context(record));
      context_groups_[handle] = shared != context_groups_.end() ? shared->second : next_group_++;
      break;
    }
    case ContextEffect::Destroy:
      context_groups_.erase(first_number(last_argument(record)));
      break;
    case ContextEffect::MakeCurrent: {
      const auto group = context_groups_.find(first_number(argument(record, "ctx")));
      if (group == context_groups_.end()) {
        current_groups_.erase(record.call.thread);
      } else {
        current_groups_[record.call.thread] = group->second;
      }
      break;
    }
  }
}

void ObjectLifetimeStage::call(const CallRecord& record) {
  if (!active_) {
    next().call(record);
    return;
  }
  const std::optional<ObjectCall> what =
      record.call.kind == CallKind::Other ? find_object_call(record.function) : std::nullopt;
  if (!what) {
    CallRecord moved = record;
    moved.call.resource_type += moved.call.resource_type != 0 ? kObjectKinds : 0;
    next().call(moved);
    return;
  }
  if (what->context == ContextEffect::MakeCurrent) {
    follow_contexts(record, *what);
    next().call(record);
    return;
  }
  // A context is deleted before it is forgotten, created after it is known.
  const Objects objects = objects_of(record, *what);
  follow_contexts(record, *what);
  if (objects.ids.empty()) {
    next().call(record);
    return;
  }
  // One record per object, all with the call's index, backtrace and arguments.
  CallRecord object = record;
  object.call.kind = objects.creates ? CallKind::Alloc : CallKind::Free;
  object.call.resource_type = 1 + static_cast<std::uint32_t>(objects.kind);
  object.call.size = objects.creates ? 1 : 0;
  for (std::uint64_t id : objects.ids) {
    object.call.resource_id = id;
    next().call(object);
  }
}

}  // namespace rtrace::apitrace
