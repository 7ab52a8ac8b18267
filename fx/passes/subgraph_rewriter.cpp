// fx/passes/subgraph_rewriter.cpp — replace_pattern as torch/fx/subgraph_rewriter.py does it, rehearsed
// on a copy of the module first: the real graph is edited only once the same edits and the recompile
// have succeeded on the copy.
#include "fx/passes/subgraph_rewriter.h"

#include <algorithm>
#include <unordered_map>

#include "core/error.h"

namespace tl::fx::subgraph_rewriter {
namespace {

using Values = std::unordered_map<const Node*, Argument>;

// `arg` with each replacement node swapped for its value in the rewritten graph.
Argument remap(const Argument& arg, const Values& values) {
  if (const Node* n = arg.node()) return values.at(n);
  if (!arg.is_list()) return arg;
  std::vector<Argument> items;
  for (const Argument& item : arg.as_list().items) items.push_back(remap(item, values));
  return Argument::list(std::move(items), arg.as_list().is_tuple);
}

std::vector<const Node*> nodes_of(const Graph& g, Opcode op) {
  std::vector<const Node*> out;
  for (const Node* n : g.nodes())
    if (n->op() == op) out.push_back(n);
  return out;
}

// Copies replacement's nodes (not its placeholders, whose values are given) before `position`;
// returns what its output returns, one entry per returned value.
std::vector<Argument> copy_replacement(Graph& graph, const Graph& replacement, Values values, Node* position) {
  auto guard = graph.inserting_before(position);
  for (const Node* rn : replacement.nodes()) {
    if (rn->op() == Opcode::Placeholder || rn->op() == Opcode::Output) continue;
    std::vector<Argument> args;
    for (const Argument& a : rn->args()) args.push_back(remap(a, values));
    Kwargs kwargs;
    for (const auto& [key, value] : rn->kwargs()) kwargs.emplace_back(key, remap(value, values));
    Node* copy = graph.create_node(rn->op(), rn->target(), std::move(args), std::move(kwargs), rn->name(), rn->op_kind());
    copy->set_type_expr(rn->type_expr());
    copy->meta() = rn->meta();
    values[rn] = Argument(copy);
  }
  const Argument result = remap(replacement.output_node()->args().at(0), values);
  return result.is_list() ? result.as_list().items : std::vector<Argument>{result};
}

// Finds and replaces every match in `graph`; returns the matches.
std::vector<InternalMatch> rewrite(Graph& graph, const SubgraphMatcher& matcher, const Graph& replacement) {
  const std::vector<const Node*> placeholders = nodes_of(replacement, Opcode::Placeholder);
  std::vector<InternalMatch> matches = matcher.match(graph);
  std::unordered_map<const Node*, Node*> changed;  // a replaced returned node -> its replacement
  const auto current = [&](const Argument& v) {
    const auto it = changed.find(v.node());
    return it == changed.end() ? v : Argument(it->second);
  };
  for (const InternalMatch& m : matches) {
    Values values;
    for (size_t i = 0; i < placeholders.size(); ++i) values[placeholders[i]] = current(m.placeholder_nodes[i]);
    Node* first_user = nullptr;
    for (Node* n : graph.nodes())
      for (const Node* r : m.returning_nodes)
        if (first_user == nullptr && std::find(r->users().begin(), r->users().end(), n) != r->users().end())
          first_user = n;
    TL_CHECK(first_user != nullptr, "replace_pattern: the matched node '", m.returning_nodes[0]->name(),
             "' has no users; eliminate dead code first");
    const std::vector<Argument> returned = copy_replacement(graph, replacement, std::move(values), first_user);
    for (size_t i = 0; i < returned.size(); ++i) {
      TL_CHECK(returned[i].is_node(), "replace_pattern: the replacement returns the constant ", format_arg(returned[i]),
               " in place of node '", m.returning_nodes[i]->name(), "'");
      m.returning_nodes[i]->replace_all_uses_with(returned[i].node());
      changed[m.returning_nodes[i]] = returned[i].node();
    }
    const std::vector<Node*> pattern_nodes = matcher.pattern().node_list();  // erased users first
    for (auto it = pattern_nodes.rbegin(); it != pattern_nodes.rend(); ++it)
      if ((*it)->op() != Opcode::Placeholder && (*it)->op() != Opcode::Output) graph.erase_node(m.find(*it)->node());
  }
  return matches;
}

}  // namespace

std::vector<Match> replace_pattern(GraphModule& gm, const Graph& pattern, const Graph& replacement) {
  // Rewriting a graph while matching against it or copying from it would follow nodes it is erasing.
  TL_CHECK(&pattern != &gm.graph(), "replace_pattern: the pattern is the module's own graph; pass a copy (graph().copy())");
  TL_CHECK(&replacement != &gm.graph(),
           "replace_pattern: the replacement is the module's own graph; pass a copy (graph().copy())");
  const SubgraphMatcher matcher(pattern);
  const size_t inputs = nodes_of(replacement, Opcode::Placeholder).size();
  TL_CHECK(inputs == matcher.placeholders().size(), "replace_pattern: the replacement takes ", inputs,
           " inputs but the pattern ", matcher.placeholders().size());
  const Node* output = replacement.output_node();
  TL_CHECK(output != nullptr, "replace_pattern: the replacement graph has no output node");
  const Argument& result = output->args().at(0);
  const size_t returns = result.is_list() ? result.as_list().items.size() : 1;
  TL_CHECK(returns == matcher.returning_nodes().size(), "replace_pattern: the replacement returns ", returns,
           " values but the pattern ", matcher.returning_nodes().size());
  {
    GraphModule rehearsal(gm);  // shares gm's modules and plan, copies its graph
    rewrite(rehearsal.graph(), matcher, replacement);
    rehearsal.recompile();
  }
  const std::vector<InternalMatch> matches = rewrite(gm.graph(), matcher, replacement);
  gm.recompile();
  std::vector<Match> out;
  for (const InternalMatch& m : matches) out.push_back({m.anchors.at(0), m.nodes_map});
  return out;
}

}  // namespace tl::fx::subgraph_rewriter
