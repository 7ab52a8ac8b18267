// fx/codegen.cpp — FX's _gen_python_code for the node kinds torchless graphs contain.
#include "fx/codegen.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "fx/wrap.h"

namespace tl::fx {
namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// FX's _format_target: self.layer1.0.conv1 -> getattr(self.layer1, "0").conv1
std::string format_target(const std::string& base, const std::string& target) {
  std::string r = base;
  size_t start = 0;
  while (start <= target.size()) {
    const size_t dot = target.find('.', start);
    const std::string e = target.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    r = is_identifier(e) ? r + "." + e : "getattr(" + r + ", \"" + e + "\")";
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return r;
}

std::string format_args(const std::vector<Argument>& args, size_t first, const Kwargs& kwargs) {
  std::string s;
  for (size_t i = first; i < args.size(); ++i) s += (s.empty() ? "" : ", ") + repr_arg(args[i]);
  for (const auto& [k, v] : kwargs) s += (s.empty() ? "" : ", ") + k + " = " + repr_arg(v);
  return s;
}

// Python operators FX writes inline: {} stands for the operands in order.
const std::map<std::string, std::string>& magic_methods() {
  static const std::map<std::string, std::string> m = {
      {"add", "{} + {}"},   {"sub", "{} - {}"},   {"mul", "{} * {}"},       {"truediv", "{} / {}"},
      {"floordiv", "{} // {}"}, {"mod", "{} % {}"}, {"pow", "{} ** {}"},  {"matmul", "{} @ {}"},
      {"gt", "{} > {}"},    {"lt", "{} < {}"},    {"ge", "{} >= {}"},       {"le", "{} <= {}"},
      {"eq", "{} == {}"},   {"ne", "{} != {}"},   {"neg", "-{}"},           {"getitem", "{}[{}]"},
      {"and_", "{} & {}"},  {"or_", "{} | {}"},   {"xor", "{} ^ {}"},
      {"iadd", "{} += {}"}, {"isub", "{} -= {}"}, {"imul", "{} *= {}"},     {"itruediv", "{} /= {}"},
      {"ipow", "{} **= {}"}};
  return m;
}

std::string fill(const std::string& pattern, const std::vector<Argument>& args) {
  std::string out;
  size_t next = 0;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern.compare(i, 2, "{}") == 0) {
      out += repr_arg(args.at(next++));
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

std::string emit(const Node& n) {
  const std::string& name = n.name();
  switch (n.op()) {
    case Opcode::Placeholder: return n.target() == name ? "" : name + " = " + n.target();
    case Opcode::GetAttr: return name + " = " + format_target("self", n.target());
    case Opcode::CallModule: return name + " = " + format_target("self", n.target()) + "(" + format_args(n.args(), 0, n.kwargs()) + ")";
    case Opcode::CallMethod:
      TL_CHECK(!n.args().empty(), "code: call_method node '", name, "' has no self argument");
      return name + " = " + format_target(repr_arg(n.args().at(0)), n.target()) + "(" + format_args(n.args(), 1, n.kwargs()) + ")";
    case Opcode::Output:
      TL_CHECK(n.args().size() == 1, "code: the output node needs one argument, got ", n.args().size());
      return "return " + repr_arg(n.args()[0]);
    case Opcode::CallFunction: break;
  }
  const std::string& t = n.target();
  if (!n.op_kind() && find_wrapped(t)) return name + " = " + wrapped_global_name(t) + "(" + format_args(n.args(), 0, n.kwargs()) + ")";
  if (t.rfind("operator.", 0) == 0 && n.kwargs().empty()) {
    const std::string op = t.substr(9);
    auto it = magic_methods().find(op);
    const size_t operands = op == "neg" ? 1 : 2;
    if (it != magic_methods().end() && n.args().size() == operands) {
      if (op[0] == 'i' && op != "getitem")  // in-place: a += b;  add = a
        return fill(it->second, n.args()) + ";  " + name + " = " + repr_arg(n.args()[0]);
      return name + " = " + fill(it->second, n.args());
    }
  }
  return name + " = " + t + "(" + format_args(n.args(), 0, n.kwargs()) + ")";
}

}  // namespace

std::string python_code(const Graph& graph) {
  const std::vector<Node*> nodes = graph.node_list();
  // Each value is deleted after its last use, in the order FX finds them.
  const auto last_uses = graph.last_uses();

  // FX declares each wrapped function the code calls, in order of first use, before the function.
  std::vector<std::string> wrapped;
  for (const Node* n : nodes) {
    const std::string global = wrapped_global_name(n->target());
    if (n->op() == Opcode::CallFunction && !n->op_kind() && find_wrapped(n->target()) &&
        std::find(wrapped.begin(), wrapped.end(), global) == wrapped.end())
      wrapped.push_back(global);
  }
  std::string wrap_stmts;
  for (const std::string& w : wrapped) {
    if (!wrap_stmts.empty()) wrap_stmts += '\n';
    wrap_stmts += "torch.fx._symbolic_trace.wrap(\"";
    wrap_stmts += w;
    wrap_stmts += "\")";
  }

  std::string signature = "self";
  std::string return_type;
  std::string body;
  for (const Node* n : nodes) {
    if (n->op() == Opcode::Placeholder) {
      signature += ", " + n->target() + (n->type_expr().empty() ? "" : " : " + n->type_expr());
      const std::string line = emit(*n);
      if (!line.empty()) body += line + "\n";
      continue;
    }
    if (n->op() == Opcode::Output && !n->type_expr().empty()) return_type = " -> " + n->type_expr();
    body += emit(*n);
    auto it = last_uses.find(n);
    if (n->op() != Opcode::Output && it != last_uses.end()) {
      std::string dels;
      for (const Node* dead : it->second) dels += dead->name() + " = ";
      body += ";  " + dels + "None";
    }
    body += "\n";
  }
  // Indent every line of the body (an empty last line becomes four spaces, as in FX).
  std::string code;
  size_t start = 0;
  while (true) {
    const size_t nl = body.find('\n', start);
    code += "    " + body.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    if (nl == std::string::npos) break;
    code += "\n";
    start = nl + 1;
  }
  return "\n" + wrap_stmts + "\n\ndef forward(" + signature + ")" + return_type + ":\n" + code;
}

}  // namespace tl::fx
