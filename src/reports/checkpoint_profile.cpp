#include "reports/checkpoint_profile.h"

#include <algorithm>

namespace rtrace::reports {
namespace {

bool is_checkpoint(const Call& call) {
  return call.kind == CallKind::Other || call.kind == CallKind::Enter;
}

// The middle interval (the upper of the two middle ones for an even count).
std::uint64_t median_of(std::vector<std::uint64_t> values) {
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::ranges::nth_element(values, middle);
  return *middle;
}

}  // namespace

void CheckpointProfile::symbol(SymbolId id, const Symbol& symbol) {
  if (symbol.where.file.empty()) {
    return;
  }
  std::string location = symbol.where.file;
  if (symbol.where.line != 0) {
    location += ':' + std::to_string(symbol.where.line);
  }
  locations_[id] = std::move(location);
}

std::string CheckpointProfile::location_of(const CallRecord& record) const {
  if (record.frames.empty()) {
    return {};
  }
  const auto found = locations_.find(record.frames.front().symbol);
  return found == locations_.end() ? std::string() : found->second;
}

CheckpointProfile::Scope& CheckpointProfile::scope_for(const CallRecord& record) {
  std::string key = std::to_string(record.call.pid);
  key += '\0';
  key += record.function;
  const auto [found, added] = index_.try_emplace(std::move(key), scopes_.size());
  if (added) {
    Scope& scope = scopes_.emplace_back();
    scope.stats.scope = record.function;
    scope.stats.location = location_of(record);
    scope.stats.pid = record.call.pid;
  }
  return scopes_[found->second];
}

void CheckpointProfile::call(const CallRecord& record) {
  const Call& call = record.call;
  if (!is_checkpoint(call)) {
    return;
  }
  Scope& scope = scope_for(record);
  CheckpointStats& stats = scope.stats;
  ++stats.hits;
  const auto [thread, first_in_thread] = scope.threads.try_emplace(call.thread);
  if (first_in_thread) {
    ++stats.threads;
  }
  const std::uint64_t now = call.timestamp_ns;
  if (now == 0) {
    return;  // no time: counted, but no interval
  }
  if (stats.first_ns == 0) {
    stats.first_ns = now;
  }
  stats.last_ns = now;
  std::uint64_t& last = thread->second.last_ns;
  if (last != 0 && now >= last) {
    add_interval(scope, now - last);
  }
  last = now;
}

void CheckpointProfile::add_interval(Scope& scope, std::uint64_t interval) {
  IntervalStats& between = scope.stats.between_hits;
  ++between.count;
  between.min_ns = between.count == 1 ? interval : std::min(between.min_ns, interval);
  between.max_ns = std::max(between.max_ns, interval);
  if (scope.sample.size() < kMedianSample) {
    scope.sample.push_back(interval);
    return;
  }
  // Reservoir sampling: the n-th interval replaces a kept one with probability kMedianSample/n.
  std::uniform_int_distribution<std::uint64_t> pick(0, between.count - 1);
  const std::uint64_t slot = pick(random_);
  if (slot < kMedianSample) {
    scope.sample[slot] = interval;
  }
  between.median_estimated = true;
}

std::vector<CheckpointStats> CheckpointProfile::result() const {
  std::vector<CheckpointStats> result;
  result.reserve(scopes_.size());
  for (const Scope& scope : scopes_) {
    CheckpointStats stats = scope.stats;
    if (!scope.sample.empty()) {
      stats.between_hits.median_ns = median_of(scope.sample);
    }
    result.push_back(std::move(stats));
  }
  return result;
}

}  // namespace rtrace::reports
