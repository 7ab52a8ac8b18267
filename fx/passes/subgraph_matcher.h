// fx/passes/subgraph_matcher.h — finds a pattern graph in a larger graph by use-def structure, as FX's
// SubgraphMatcher(pattern, match_output=False, match_placeholder=False, remove_overlapping_matches=True)
// of PyTorch 1.13 does. Matching never changes either graph.
#pragma once

#include <utility>
#include <vector>

#include "fx/graph.h"

namespace tl::fx {

/// One place where the pattern was found. Pointers refer to the pattern graph and to the searched
/// graph, valid while they live (an erased node stays valid until its graph is destroyed).
struct InternalMatch {
  /// The pattern's anchors: the nodes the pattern returns whose only user is its output node.
  std::vector<const Node*> anchors;
  /// Pattern node -> the graph value it matched, in the order matching visited them: a graph node for
  /// every node of the pattern but its output, or an argument's constant for a placeholder.
  std::vector<std::pair<const Node*, Argument>> nodes_map;
  /// The graph values the pattern's placeholders matched, in the pattern's placeholder order.
  std::vector<Argument> placeholder_nodes;
  /// The graph nodes the pattern's returned nodes matched, in the order the pattern returns them.
  std::vector<Node*> returning_nodes;

  /// The graph value `pattern_node` matched; nullptr when it is not in nodes_map.
  const Argument* find(const Node* pattern_node) const;
};

/// FX's matching rules: a placeholder matches any node or constant (the same one wherever it recurs),
/// any other node a node of the same opcode and target whose args, flattened through lists and tuples,
/// and kwargs (same keys) match in turn; the pattern's output node is ignored, so a match need not
/// reach the graph's output. A match is kept when its nodes other than placeholders and returned ones
/// have no users outside it, when fusing it would form no cycle, and when it shares no node with an
/// earlier match (matches are found anchor by anchor, candidates in graph order).
class SubgraphMatcher {
 public:
  /// Throws tl::Error unless `pattern` has an output node, returns at least one node, and every other
  /// node has a user (FX refuses a pattern with dead code).
  explicit SubgraphMatcher(const Graph& pattern);

  std::vector<InternalMatch> match(const Graph& graph) const;

  const Graph& pattern() const { return pattern_; }
  const std::vector<const Node*>& placeholders() const { return placeholders_; }
  const std::vector<const Node*>& returning_nodes() const { return returning_; }

 private:
  const Graph& pattern_;
  std::vector<const Node*> placeholders_;
  std::vector<const Node*> returning_;
  std::vector<const Node*> anchors_;
};

}  // namespace tl::fx
