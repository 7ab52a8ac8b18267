// profiler/stacks.h — folded stacks ("frame;frame;frame value" lines, outermost frame first) for
// flamegraph.pl, speedscope or inferno, from a profile recorded with with_stack.
#pragma once

#include <iosfwd>
#include <string>

namespace tl::profiler {

class EventList;

/// Writes one line per distinct stack: the user's C++ frames and the enclosing events (module
/// scopes, RecordFunction scopes, ProfilerStep* and enclosing ops) interleaved as
/// EventList::stack_entries places them, outermost first, then the event itself, joined by ';', a
/// space and the summed metric in whole microseconds; lines whose value is 0 are left out. Spaces,
/// ';', tabs and newlines inside names become '_' (as PyTorch's export_stacks does), e.g.
///   main.cpp(9):_main;nn.Module:_MyModule_0;models/my_module.cpp(63):_tl::models::MyModule::forward;
///   LINEAR_PASS;nn.Module:_Linear_0;aten::linear;aten::addmm 450
/// (one line).
/// `metric` must be "self_cpu_time_total"; throws tl::Error otherwise or when the events were
/// recorded without with_stack.
void write_stacks(const EventList& events, std::ostream& out, const std::string& metric = "self_cpu_time_total");

}  // namespace tl::profiler
