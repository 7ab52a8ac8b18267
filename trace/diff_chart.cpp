// trace/diff_chart.cpp — grouped horizontal bar charts as SVG text. Layout is computed from
// estimated text widths (no font metrics available), so labels are cut to a character budget.
#include "trace/diff_chart.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>
#include <system_error>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/file_writer.h"

namespace tl::trace {
namespace {

constexpr const char* kFont = "DejaVu Sans, Helvetica, Arial, sans-serif";
constexpr std::array<const char*, 3> kColors = {"#4c72b0", "#dd8452", "#8172b3"};
constexpr double kCharWidth = 7.0;  // average advance of a 12 px sans-serif character, generous
constexpr double kBar = 12, kBarGap = 2, kGroupPad = 14;
constexpr double kGroup = 3 * kBar + 2 * kBarGap + kGroupPad;
constexpr double kPlotTop = 96, kRightMargin = 84, kAxisSpace = 58;

struct Series {
  std::string title, subtitle, axis_label;
  std::vector<std::string> labels;
  std::vector<std::array<double, 3>> values;  // control, test, diff (already scaled to the unit)
  bool counts = false;
};

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// Cuts to `chars` characters (UTF-8 aware) and appends an ellipsis when something was cut.
std::string ellipsize(const std::string& s, size_t chars) {
  size_t count = 0, i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xc0) == 0x80) continue;
    if (count == chars) return s.substr(0, i) + "\u2026";
    ++count;
  }
  return s;
}

size_t char_count(const std::string& s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; }));
}

std::string num(double v, const char* format = "%.1f") {
  char buf[48];
  std::snprintf(buf, sizeof(buf), format, v);
  return buf;
}

std::string value_text(double v, bool counts, bool signed_value) {
  if (v == 0) return "0";
  double a = std::abs(v);
  bool integral = std::abs(v - std::round(v)) < 1e-9;
  const char* f = (counts && integral) || a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : "%.2f";
  std::string text = signed_value && v > 0 ? "+" : "";
  return text + num(v, f);
}

struct Axis {
  double lo, hi, step;
};

// Ticks at 1, 2 or 5 times a power of ten, five to eight of them, covering [lo, hi] and zero.
Axis nice_axis(double lo, double hi) {
  lo = std::min(lo, 0.0);
  hi = std::max(hi, 0.0);
  if (hi - lo <= 0) hi = 1;
  double pad = (hi - lo) * 0.04;
  if (lo < 0) lo -= pad;
  if (hi > 0) hi += pad;
  double raw = (hi - lo) / 7;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * mag;
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  }
  return {std::floor(lo / step) * step, std::ceil(hi / step) * step, step};
}

std::string tick_text(double v, double step) {
  int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
  if (std::abs(v) < step * 1e-9) v = 0;
  return num(v, ("%." + std::to_string(decimals) + "f").c_str());
}

void write_legend(std::ostringstream& os, double x, double y) {
  const char* names[] = {"control", "test", "difference (test \u2212 control)"};
  for (int i = 0; i < 3; ++i) {
    os << "<rect x=\"" << num(x) << "\" y=\"" << num(y - 10) << "\" width=\"12\" height=\"12\" fill=\"" << kColors[i]
       << "\"/><text x=\"" << num(x + 17) << "\" y=\"" << num(y) << "\">" << xml_escape(names[i]) << "</text>\n";
    x += 17 + kCharWidth * static_cast<double>(char_count(names[i])) + 22;
  }
}

void write_axis(std::ostringstream& os, const Axis& axis, double left, double plot_w, double top, double bottom,
                const std::string& label) {
  auto scale = [&](double v) { return left + (v - axis.lo) / (axis.hi - axis.lo) * plot_w; };
  for (double v = axis.lo; v <= axis.hi + axis.step * 1e-6; v += axis.step) {
    double x = scale(v);
    bool zero = std::abs(v) < axis.step * 1e-6;
    os << "<line x1=\"" << num(x) << "\" y1=\"" << num(top) << "\" x2=\"" << num(x) << "\" y2=\"" << num(bottom + 5)
       << "\" stroke=\"" << (zero ? "#444" : "#dddddd") << "\" stroke-width=\"" << (zero ? 1.2 : 1) << "\"/>\n"
       << "<text x=\"" << num(x) << "\" y=\"" << num(bottom + 19) << "\" text-anchor=\"middle\" fill=\"#333\">"
       << tick_text(v, axis.step) << "</text>\n";
  }
  os << "<line x1=\"" << num(left) << "\" y1=\"" << num(bottom) << "\" x2=\"" << num(left + plot_w) << "\" y2=\""
     << num(bottom) << "\" stroke=\"#444\"/>\n"
     << "<text x=\"" << num(left + plot_w / 2) << "\" y=\"" << num(bottom + 42)
     << "\" text-anchor=\"middle\" font-size=\"13\" fill=\"#222\">" << xml_escape(label) << "</text>\n";
}

void write_group(std::ostringstream& os, const Series& s, size_t i, double y, double label_x,
                 const std::function<double(double)>& scale, size_t max_chars) {
  const char* what[] = {"control", "test", "difference"};
  const std::string& label = s.labels[i];
  os << "<text x=\"" << num(label_x) << "\" y=\"" << num(y + 1.5 * kBar + kBarGap) << "\" dy=\"0.35em\""
     << " text-anchor=\"end\" fill=\"#222\"><title>" << xml_escape(label) << "</title>"
     << xml_escape(ellipsize(label.empty() ? "(unnamed)" : label, max_chars)) << "</text>\n";
  for (int k = 0; k < 3; ++k) {
    double v = std::isfinite(s.values[i][k]) ? s.values[i][k] : 0;  // only hand-built tables hold inf/nan
    double by = y + k * (kBar + kBarGap);
    double x0 = scale(std::min(0.0, v)), x1 = scale(std::max(0.0, v));
    os << "<rect x=\"" << num(x0) << "\" y=\"" << num(by) << "\" width=\"" << num(std::max(x1 - x0, v != 0 ? 1.0 : 0.0), "%.2f")
       << "\" height=\"" << num(kBar) << "\" fill=\"" << kColors[k] << "\"><title>" << xml_escape(label) << " \u2014 "
       << what[k] << ": " << value_text(v, s.counts, k == 2) << "</title></rect>\n";
    bool left_side = v < 0;
    os << "<text x=\"" << num(left_side ? x0 - 4 : x1 + 4) << "\" y=\"" << num(by + kBar / 2) << "\" dy=\"0.35em\""
       << " font-size=\"10\" fill=\"#555\" text-anchor=\"" << (left_side ? "end" : "start") << "\">"
       << value_text(v, s.counts, k == 2) << "</text>\n";
  }
}

std::string render(const Series& s, const ChartOptions& o) {
  o.validate();
  size_t longest = 0;
  for (const std::string& l : s.labels) longest = std::max(longest, std::min(char_count(l), o.max_label_chars) + 1);
  double label_w = std::max(80.0, kCharWidth * static_cast<double>(longest) + 16);
  double width = std::max(static_cast<double>(o.width), label_w + 420);
  double left = label_w + 12, plot_w = width - left - kRightMargin;
  double bottom = kPlotTop + kGroup * static_cast<double>(std::max<size_t>(s.labels.size(), 1));
  double height = bottom + kAxisSpace;

  std::ostringstream os;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(width, "%.0f") << "\" height=\""
     << num(height, "%.0f") << "\" viewBox=\"0 0 " << num(width, "%.0f") << " " << num(height, "%.0f")
     << "\" font-family=\"" << kFont << "\" font-size=\"12\">\n"
     << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
     << "<text x=\"16\" y=\"30\" font-size=\"18\" font-weight=\"bold\" fill=\"#111\">" << xml_escape(s.title) << "</text>\n"
     << "<text x=\"16\" y=\"52\" fill=\"#555\">" << xml_escape(ellipsize(s.subtitle, static_cast<size_t>((width - 32) / 6.5)))
     << "</text>\n";
  write_legend(os, 16, 80);
  if (s.labels.empty()) {
    os << "<text x=\"" << num(width / 2) << "\" y=\"" << num(kPlotTop + kGroup / 2)
       << "\" text-anchor=\"middle\" fill=\"#555\">no ops to compare</text>\n</svg>\n";
    return os.str();
  }
  double lo = 0, hi = 0;
  for (const auto& v : s.values)
    for (double x : v)
      if (std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x);
  Axis axis = nice_axis(lo, hi);
  std::function<double(double)> scale = [&](double v) { return left + (v - axis.lo) / (axis.hi - axis.lo) * plot_w; };
  for (size_t i = 0; i < s.labels.size(); ++i) {
    double y = kPlotTop + kGroup * static_cast<double>(i);
    if (i % 2 == 1)
      os << "<rect x=\"0\" y=\"" << num(y - kGroupPad / 2) << "\" width=\"" << num(width) << "\" height=\"" << num(kGroup)
         << "\" fill=\"#f6f6f6\"/>\n";
  }
  write_axis(os, axis, left, plot_w, kPlotTop - kGroupPad / 2, bottom - kGroupPad / 2, s.axis_label);
  for (size_t i = 0; i < s.labels.size(); ++i)
    write_group(os, s, i, kPlotTop + kGroup * static_cast<double>(i), left - 10, scale, o.max_label_chars);
  os << "</svg>\n";
  return os.str();
}

std::string subtitle(const DiffTable& t) {
  auto side = [](const char* role, const std::string& label, int64_t iterations) {
    return std::string(role) + ": " + label + " (" + std::to_string(iterations) + (iterations == 1 ? " iteration)" : " iterations)");
  };
  return side("control", t.control_label, t.control_iterations) + "   \u00b7   " +
         side("test", t.test_label, t.test_iterations);
}

}  // namespace

void ChartOptions::validate() const {
  TL_CHECK(max_label_chars > 0, "chart: max_label_chars must be > 0, got ", max_label_chars);
  TL_CHECK(width > 0, "chart: width must be > 0, got ", width);
}

std::string visualize_counts_diff(const DiffTable& table, const ChartOptions& options) {
  Series s;
  s.title = options.title.empty() ? "Op count comparison" : options.title;
  s.subtitle = subtitle(table);
  s.axis_label = table.per_iteration ? "calls per iteration" : "calls";
  s.counts = true;
  for (const OpDiff& r : table.rows) {
    s.labels.push_back(r.label());
    s.values.push_back({r.control.counts, r.test.counts, r.diff.counts});
  }
  return render(s, options);
}

std::string visualize_duration_diff(const DiffTable& table, const ChartOptions& options) {
  auto pick = [&](const OpStats& st) { return options.self_duration ? st.self_duration : st.duration; };
  double largest = 0;
  for (const OpDiff& r : table.rows)
    largest = std::max({largest, std::abs(pick(r.control)), std::abs(pick(r.test)), std::abs(pick(r.diff))});
  auto [unit, scale] = largest >= 1e6 ? std::pair{"s", 1e6} : largest >= 1e3 ? std::pair{"ms", 1e3} : std::pair{"\u00b5s", 1.0};

  Series s;
  s.title = options.title.empty() ? (options.self_duration ? "Op self-time comparison" : "Op duration comparison")
                                  : options.title;
  s.subtitle = subtitle(table);
  s.axis_label = std::string(options.self_duration ? "self time" : "total time (inclusive)") +
                 (table.per_iteration ? " per iteration" : "") + " (" + unit + ")";
  for (const OpDiff& r : table.rows) {
    s.labels.push_back(r.label());
    s.values.push_back({pick(r.control) / scale, pick(r.test) / scale, pick(r.diff) / scale});
  }
  return render(s, options);
}

std::vector<std::filesystem::path> write_diff_charts(const DiffTable& table, const std::filesystem::path& dir,
                                                     size_t top, const std::string& what) {
  TL_CHECK(top > 0, what, ": the number of chart rows must be > 0, got ", top);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  TL_CHECK(!ec, what, ": ", dir.string(), ": cannot create the directory: ", ec.message());
  const std::string n = std::to_string(top);
  // "Top n by |diff|" would claim an order that is not there when no row differs (a batch-size change
  // keeps every count): the title says so instead, over the table's first rows.
  auto title = [&](const std::string& chart, const char* column, const char* what_differs, auto field) {
    const bool none = std::all_of(table.rows.begin(), table.rows.end(), [&](const OpDiff& r) { return field(r) == 0; });
    return none ? chart + ": no op's " + what_differs + " differs (the first " + n + " rows)"
                : chart + ": top " + n + " by |" + column + "|";
  };
  const std::vector<std::pair<std::string, std::string>> charts = {
      {"counts_diff.svg",
       visualize_counts_diff(table.sort_values("abs_diff_counts", false).head(top),
                             {.title = title("Op count comparison", "diff_counts", "count",
                                             [](const OpDiff& r) { return r.diff.counts; })})},
      {"duration_diff.svg",
       visualize_duration_diff(table.sort_values("abs_diff_duration", false).head(top),
                               {.title = title("Op duration comparison", "diff_duration", "duration",
                                               [](const OpDiff& r) { return r.diff.duration; })})},
      {"self_duration_diff.svg",
       visualize_duration_diff(table.sort_values("abs_diff_self_duration", false).head(top),
                               {.title = title("Op self-time comparison", "diff_self_duration", "self time",
                                               [](const OpDiff& r) { return r.diff.self_duration; }),
                                .self_duration = true})}};
  std::vector<std::filesystem::path> written;
  for (const auto& [name, svg] : charts) {
    written.push_back(dir / name);
    write_file(written.back().string(), svg, what);
  }
  return written;
}

}  // namespace tl::trace
