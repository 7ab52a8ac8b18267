// profiler/key_averages.h — PyTorch's EventList.key_averages(): function events grouped by name
// (optionally also by input shapes and by the first n stack entries), one FunctionEventAvg per
// group, in the order the groups first appeared.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profiler/event.h"
#include "profiler/table.h"

namespace tl::profiler {

class EventList;

struct KeyAveragesOptions {
  /// Group by (name, input shapes); needs record_shapes to tell shapes apart.
  bool group_by_input_shape = false;
  /// Group by (name, first n stack entries); needs with_stack. 0: no stack grouping.
  int64_t group_by_stack_n = 0;
};

/// The rows of a key_averages() call and the columns its profile recorded.
class KeyAverages {
 public:
  KeyAverages() = default;
  KeyAverages(std::vector<FunctionEventAvg> rows, TableColumns columns)
      : rows_(std::move(rows)), columns_(columns) {}

  const std::vector<FunctionEventAvg>& rows() const { return rows_; }
  size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  const FunctionEventAvg& operator[](size_t i) const { return rows_[i]; }
  auto begin() const { return rows_.begin(); }
  auto end() const { return rows_.end(); }
  /// The row whose key is `key` (the first one when grouped by shape or stack); throws tl::Error
  /// naming the available keys when there is none.
  const FunctionEventAvg& at(const std::string& key) const;

  /// Sum of the rows' self CPU times (the table's "Self CPU time total").
  int64_t self_cpu_time_total_ns() const;
  /// The table PyTorch's key_averages().table(...) prints. Throws tl::Error for invalid options
  /// (see TableOptions::validate).
  std::string table(const TableOptions& options = {}) const;
  const TableColumns& columns() const { return columns_; }

 private:
  std::vector<FunctionEventAvg> rows_;
  TableColumns columns_;
};

/// Groups `events`' function events (Module scopes are not rows) and the memory events that
/// happened outside every function event (rows named "[memory]"). As in PyTorch's tables, an event
/// that is its same-named parent's only child is folded into it (its self time, self memory and
/// flops count for the parent; EventList._remove_dup_nodes). ProfilerStep#N rows are keyed
/// "ProfilerStep*", as PyTorch does, so steps aggregate.
KeyAverages key_averages(const EventList& events, const KeyAveragesOptions& options = {});

/// The key a table shows for an event name: "ProfilerStep#7" -> "ProfilerStep*", others unchanged.
std::string table_key(const std::string& event_name);

}  // namespace tl::profiler
