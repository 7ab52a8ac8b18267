// fx/passes/subgraph_rewriter.h — torch.fx.subgraph_rewriter.replace_pattern: every non-overlapping
// match of a pattern graph in a GraphModule's graph replaced by a copy of a replacement graph. All or
// nothing: a rewrite that fails leaves the module's graph and compiled plan as they were.
#pragma once

#include <utility>
#include <vector>

#include "fx/graph_module.h"
#include "fx/passes/subgraph_matcher.h"

namespace tl::fx::subgraph_rewriter {

/// Where `pattern` was found (torch.fx.subgraph_rewriter.Match). Pointers refer to the pattern graph
/// and to gm's graph (the replaced nodes are erased but stay valid while that graph lives).
struct Match {
  /// The pattern node the match was found from.
  const Node* anchor = nullptr;
  /// Pattern node -> the graph value it matched (a node, or a constant for a placeholder).
  std::vector<std::pair<const Node*, Argument>> nodes_map;
};

/// Replaces each match of `pattern` in gm's graph (SubgraphMatcher's rules) by a copy of
/// `replacement`, inserted before the first user of the matched returned nodes: replacement's
/// placeholders take the values the pattern's placeholders matched, in order; what it returns takes
/// over the uses of what the pattern returned; the matched nodes are erased; then gm is recompiled.
/// Copies keep the replacement's node names, made unique (stack, stack_1). Returns the matches, in
/// the order they were found and replaced. Use symbolic_trace(module)->graph() for a pattern or
/// replacement written as a module; keep `pattern` alive while the returned matches are used.
/// Throws tl::Error, changing nothing, if `pattern` or `replacement` is gm's own graph (pass
/// graph().copy()), if `pattern` is refused by SubgraphMatcher, if `replacement`
/// has a different number of placeholders or returns a different number of nodes than `pattern`, if a
/// replacement returns a constant where a node is replaced, or if the result does not compile (e.g. a
/// module or attribute the replacement uses that gm lacks: it is not copied, as FX does from a
/// replacement module).
std::vector<Match> replace_pattern(GraphModule& gm, const Graph& pattern, const Graph& replacement);

}  // namespace tl::fx::subgraph_rewriter
