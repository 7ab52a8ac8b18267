// profiler/key_averages.cpp — grouping function events into FunctionEventAvg rows (first-seen
// order, like PyTorch's dict), plus the ungrouped rows of EventList::table().
#include "profiler/key_averages.h"

#include <algorithm>
#include <functional>
#include <unordered_map>

#include "core/error.h"
#include "profiler/event_list.h"

namespace tl::profiler {
namespace {

const std::vector<std::string> kNoStack;

/// PyTorch's EventList._remove_dup_nodes, which shapes every table it prints: an event whose cpu_parent
/// has its name and no other cpu child (the mean.dim inside aten::mean, div_.Tensor inside div_.Scalar)
/// is folded into that parent, repeatedly down a chain. Returns, per event, the event it folds into, or -1.
std::vector<int64_t> fold_targets(const EventList& list) {
  std::vector<int64_t> into(list.size(), -1);
  for (size_t i = 0; i < list.size(); ++i) {
    const FunctionEvent& e = list[i];
    const int64_t p = e.cpu_parent;
    if (!e.is_function() || p < 0 || list[p].name != e.name || list[p].cpu_children.size() != 1) continue;
    into[i] = into[p] >= 0 ? into[p] : p;
  }
  return into;
}

/// A memory event outside every function event (Module scopes are Python frames to PyTorch, not events).
bool is_loose(const EventList& list, const MemoryEvent& m) {
  for (int64_t p = m.parent; p >= 0; p = list[p].parent)
    if (list[p].is_function()) return false;
  return true;
}

/// Calls on_event for each function event as PyTorch's tables see it (fold_targets: a folded event is no
/// row; its self time, self memory and flops are its parent's) and on_memory for each memory event
/// outside every function event, merged in time order (PyTorch lists "[memory]" events among the others
/// by start time).
void for_each_row_source(const EventList& list, const std::function<void(const FunctionEvent&, size_t)>& on_event,
                         const std::function<void(const MemoryEvent&)>& on_memory) {
  std::vector<const MemoryEvent*> loose;
  for (const MemoryEvent& m : list.memory_events())
    if (is_loose(list, m)) loose.push_back(&m);
  std::stable_sort(loose.begin(), loose.end(),
                   [](const MemoryEvent* a, const MemoryEvent* b) { return a->time_ns < b->time_ns; });
  const std::vector<int64_t> into = fold_targets(list);
  std::unordered_map<size_t, FunctionEvent> folded;  // the parents that took in folded events
  for (size_t i = 0; i < list.size(); ++i) {
    if (into[i] < 0) continue;
    const auto target = static_cast<size_t>(into[i]);
    FunctionEvent& parent = folded.try_emplace(target, list[target]).first->second;
    parent.self_cpu_time_total_ns += list[i].self_cpu_time_total_ns;
    parent.self_cpu_memory_usage += list[i].self_cpu_memory_usage;
    parent.flops += list[i].flops;
  }
  size_t next = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const FunctionEvent& e = list[i];
    if (!e.is_function() || into[i] >= 0) continue;
    while (next < loose.size() && loose[next]->time_ns < e.start_ns) on_memory(*loose[next++]);
    const auto merged = folded.find(i);
    on_event(merged == folded.end() ? e : merged->second, i);
  }
  while (next < loose.size()) on_memory(*loose[next++]);
}

FunctionEventAvg memory_row(const MemoryEvent& m, bool with_shapes) {
  FunctionEventAvg row;
  row.key = kMemoryEventName;
  row.count = 1;
  row.cpu_memory_usage = m.bytes;
  row.self_cpu_memory_usage = m.bytes;
  if (with_shapes) row.input_shapes = "[]";
  return row;
}

void merge(FunctionEventAvg& into, const FunctionEventAvg& row) {
  into.count += row.count;
  into.cpu_memory_usage += row.cpu_memory_usage;
  into.self_cpu_memory_usage += row.self_cpu_memory_usage;
}

}  // namespace

std::string table_key(const std::string& event_name) {
  static const std::string kStep = "ProfilerStep#";
  if (event_name.compare(0, kStep.size(), kStep) == 0) return "ProfilerStep*";
  return event_name;
}

KeyAverages key_averages(const EventList& list, const KeyAveragesOptions& options) {
  TL_CHECK(options.group_by_stack_n >= 0, "key_averages: group_by_stack_n must be >= 0, got ",
           options.group_by_stack_n);
  const size_t stack_n = static_cast<size_t>(options.group_by_stack_n);
  std::vector<FunctionEventAvg> rows;
  std::unordered_map<std::string, size_t> index;
  auto row_for = [&](const std::string& key, const std::string& shapes, const std::vector<std::string>& stack) {
    std::string group = key;
    if (options.group_by_input_shape) group += '\x1f' + shapes;
    for (size_t i = 0; i < std::min(stack_n, stack.size()); ++i) group += '\x1e' + stack[i];
    auto [it, inserted] = index.try_emplace(group, rows.size());
    if (inserted) {
      rows.emplace_back();
      rows.back().key = key;
      rows.back().input_shapes = options.group_by_input_shape ? shapes : "";
      // Like PyTorch, a group shows its first event's stack.
      rows.back().stack.assign(stack.begin(), stack.begin() + static_cast<std::ptrdiff_t>(std::min(stack_n, stack.size())));
    }
    return &rows[it->second];
  };
  for_each_row_source(
      list,
      [&](const FunctionEvent& e, size_t i) {
        const std::string shapes = options.group_by_input_shape ? shapes_to_string(e.input_shapes) : "";
        // Stacks are symbolized only when grouping by them.
        row_for(table_key(e.name), shapes, stack_n > 0 ? list.stack(i) : kNoStack)->add(e);
      },
      [&](const MemoryEvent& m) { merge(*row_for(kMemoryEventName, "[]", {}), memory_row(m, false)); });
  return KeyAverages(std::move(rows), list.table_columns());
}

const FunctionEventAvg& KeyAverages::at(const std::string& key) const {
  for (const FunctionEventAvg& row : rows_)
    if (row.key == key) return row;
  std::string keys;
  for (const FunctionEventAvg& row : rows_) keys += (keys.empty() ? "" : ", ") + row.key;
  TL_CHECK(false, "key_averages: no row \"", key, "\"; rows are: ", keys);
  return rows_.front();
}

int64_t KeyAverages::self_cpu_time_total_ns() const {
  int64_t total = 0;
  for (const FunctionEventAvg& row : rows_) total += row.self_cpu_time_total_ns;
  return total;
}

std::string KeyAverages::table(const TableOptions& options) const { return build_table(rows_, options, columns_); }

KeyAverages EventList::key_averages(const KeyAveragesOptions& options) const {
  return profiler::key_averages(*this, options);
}

std::string EventList::table(const TableOptions& options) const {
  std::vector<FunctionEventAvg> rows;
  const bool shapes = info_.record_shapes;
  for_each_row_source(
      *this,
      [&](const FunctionEvent& e, size_t i) {
        FunctionEventAvg row;
        row.key = table_key(e.name);
        if (shapes) row.input_shapes = shapes_to_string(e.input_shapes);
        row.stack = stack(i);
        row.add(e);
        rows.push_back(std::move(row));
      },
      [&](const MemoryEvent& m) { rows.push_back(memory_row(m, shapes)); });
  return build_table(std::move(rows), options, table_columns());
}

}  // namespace tl::profiler
