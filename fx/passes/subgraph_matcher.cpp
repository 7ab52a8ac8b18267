// fx/passes/subgraph_matcher.cpp — FX's backtracking subgraph matcher: from each pattern anchor and
// each candidate graph node, both graphs are walked backwards (args before users) in step.
#include "fx/passes/subgraph_matcher.h"

#include <algorithm>
#include <functional>
#include <set>

#include "core/error.h"

namespace tl::fx {
namespace {

// pytree.tree_flatten of args: the leaves of lists and tuples, in order.
void flatten(const Argument& arg, std::vector<Argument>& out) {
  if (!arg.is_list()) {
    out.push_back(arg);
    return;
  }
  for (const Argument& item : arg.as_list().items) flatten(item, out);
}

bool nodes_are_equal(const Node* pn, const Node* gn) {
  if (pn->op() == Opcode::Placeholder) return true;  // a wildcard
  if (pn->op() != gn->op()) return false;
  return pn->op() == Opcode::Output || pn->target() == gn->target();
}

bool has_value(const InternalMatch& m, const Node* gn) {
  return std::any_of(m.nodes_map.begin(), m.nodes_map.end(),
                     [&](const auto& entry) { return entry.second.node() == gn; });
}

bool match_nodes(const Node* pn, Node* gn, InternalMatch& m);

// A pattern argument against a graph argument when at most one of them is a node.
bool match_args(const Argument& pa, const Argument& ga, InternalMatch& m) {
  if (const Node* pn = pa.node(); pn != nullptr) {
    if (pn->op() != Opcode::Placeholder) return false;
    if (const Argument* seen = m.find(pn)) return *seen == ga;
    m.nodes_map.emplace_back(pn, ga);
    return true;
  }
  return !ga.is_node() && pa == ga;
}

// Marks gn as pn's match before checking pn's inputs against gn's, as FX does; a failure here fails
// the whole candidate, so the caller discards `m`.
bool match_nodes(const Node* pn, Node* gn, InternalMatch& m) {
  if (const Argument* seen = m.find(pn)) return seen->node() == gn;
  if (has_value(m, gn) || !nodes_are_equal(pn, gn)) return false;
  m.nodes_map.emplace_back(pn, gn);
  if (pn->op() == Opcode::Placeholder) return true;
  std::vector<Argument> p_args, g_args;
  for (const Argument& a : pn->args()) flatten(a, p_args);
  for (const Argument& a : gn->args()) flatten(a, g_args);
  if (pn->kwargs().size() != gn->kwargs().size()) return false;
  for (const auto& kwarg : pn->kwargs()) {
    const auto it = std::find_if(gn->kwargs().begin(), gn->kwargs().end(),
                                 [&](const auto& entry) { return entry.first == kwarg.first; });
    if (it == gn->kwargs().end()) return false;
    p_args.push_back(kwarg.second);
    g_args.push_back(it->second);
  }
  if (p_args.size() != g_args.size()) return false;
  for (size_t i = 0; i < p_args.size(); ++i) {
    const bool matched = p_args[i].is_node() && g_args[i].is_node() ? match_nodes(p_args[i].node(), g_args[i].node(), m)
                                                                    : match_args(p_args[i], g_args[i], m);
    if (!matched) return false;
  }
  return true;
}

std::set<const Node*> compute_nodes(const InternalMatch& m) {
  std::set<const Node*> nodes;
  for (const auto& [pn, value] : m.nodes_map)
    if (pn->op() != Opcode::Placeholder && pn->op() != Opcode::Output) nodes.insert(value.node());
  return nodes;
}

// Every matched node but placeholders and returned ones is used inside the match only.
bool is_contained(const InternalMatch& m, const std::vector<const Node*>& pattern_returning) {
  std::set<const Node*> matched;
  for (const auto& entry : m.nodes_map)
    if (entry.second.is_node()) matched.insert(entry.second.node());
  for (const auto& [pn, value] : m.nodes_map) {
    if (pn->op() == Opcode::Placeholder || !value.is_node()) continue;
    if (std::find(pattern_returning.begin(), pattern_returning.end(), pn) != pattern_returning.end()) continue;
    for (const Node* user : value.node()->users())
      if (!matched.count(user)) return false;
  }
  return true;
}

// FX's validate_partition: no path leaves the matched nodes and comes back into them.
bool forms_no_cycle(const std::set<const Node*>& partition) {
  std::set<const Node*> visited;
  const std::function<bool(const Node*)> reaches_partition = [&](const Node* n) {
    if (partition.count(n)) return true;
    visited.insert(n);
    for (const Node* user : n->users())
      if (!visited.count(user) && reaches_partition(user)) return true;
    return false;
  };
  for (const Node* n : partition)
    for (const Node* user : n->users())
      if (!partition.count(user) && reaches_partition(user)) return false;
  return true;
}

}  // namespace

const Argument* InternalMatch::find(const Node* pattern_node) const {
  for (const auto& entry : nodes_map)
    if (entry.first == pattern_node) return &entry.second;
  return nullptr;
}

SubgraphMatcher::SubgraphMatcher(const Graph& pattern) : pattern_(pattern) {
  const Node* output = pattern.output_node();
  TL_CHECK(output != nullptr, "SubgraphMatcher: the pattern graph has no output node");
  for (const Node* n : pattern.nodes()) {
    TL_CHECK(n->op() == Opcode::Output || n->num_users() > 0, "SubgraphMatcher: the pattern has dead code: '",
             n->name(), "' has no users");
    if (n->op() == Opcode::Placeholder) placeholders_.push_back(n);
  }
  for (const Node* n : output->all_input_nodes()) {
    TL_CHECK(n->op() != Opcode::Placeholder, "SubgraphMatcher: the pattern returns its input '", n->name(),
             "'; it must return what it computes");
    returning_.push_back(n);
    if (n->num_users() == 1) anchors_.push_back(n);
  }
  TL_CHECK(!returning_.empty(), "SubgraphMatcher: the pattern returns no node");
}

std::vector<InternalMatch> SubgraphMatcher::match(const Graph& graph) const {
  // FX 1.13 skips an anchor without candidates and then fails with a KeyError; here it means no match.
  std::vector<std::vector<Node*>> candidates(anchors_.size());
  for (size_t i = 0; i < anchors_.size(); ++i)
    for (Node* n : graph.nodes())
      if (nodes_are_equal(anchors_[i], n)) candidates[i].push_back(n);

  std::vector<InternalMatch> found;
  // Each anchor in turn against each of its candidates; a match needs all anchors to agree.
  const std::function<void(size_t, const InternalMatch&)> backtrack = [&](size_t a, const InternalMatch& so_far) {
    if (a == anchors_.size()) {
      InternalMatch m = so_far;
      // Every pattern node leads to an anchor through its users, so the walk has visited them all.
      for (const Node* p : placeholders_) {
        const Argument* value = m.find(p);
        TL_INTERNAL_ASSERT(value != nullptr, "placeholder '", p->name(), "' was not matched");
        m.placeholder_nodes.push_back(*value);
      }
      for (const Node* r : returning_) {
        const Argument* value = m.find(r);
        TL_INTERNAL_ASSERT(value != nullptr && value->is_node(), "returned node '", r->name(), "' was not matched");
        m.returning_nodes.push_back(value->node());
      }
      found.push_back(std::move(m));
      return;
    }
    for (Node* candidate : candidates[a]) {
      InternalMatch m = so_far;
      if (match_nodes(anchors_[a], candidate, m)) backtrack(a + 1, m);
    }
  };
  backtrack(0, InternalMatch{anchors_, {}, {}, {}});

  std::vector<InternalMatch> kept;
  std::set<const Node*> taken;
  for (InternalMatch& m : found) {
    const std::set<const Node*> nodes = compute_nodes(m);
    if (!is_contained(m, returning_) || !forms_no_cycle(nodes)) continue;
    if (std::any_of(nodes.begin(), nodes.end(), [&](const Node* n) { return taken.count(n) > 0; })) continue;
    taken.insert(nodes.begin(), nodes.end());
    kept.push_back(std::move(m));
  }
  return kept;
}

}  // namespace tl::fx
