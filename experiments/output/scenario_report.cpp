#include "experiments/output/scenario_report.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <variant>
#include <vector>

#include "experiments/cli/scenario_runner.hpp"  // validation_field
#include "models/version.hpp"

namespace experiments {

namespace {

// The page's drawing sizes, in CSS pixels.
constexpr double kChartWidth = 900;   // bars and timeline, label column included
constexpr double kLabelWidth = 260;   // candidate / lane names left of the plot
constexpr double kBarHeight = 22;
constexpr double kLaneHeight = 18;

// One palette for bars and timeline boxes (colour-blind-safe, Okabe-Ito).
const std::vector<std::string>& palette() {
  static const std::vector<std::string> p = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                             "#56B4E9", "#D55E00", "#F0E442", "#999999"};
  return p;
}

std::string cell_text(const search::ScenarioCell& c) {
  if (const auto* s = std::get_if<std::string>(&c)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&c)) return std::to_string(*i);
  return fmt::format("{:.4g}", std::get<double>(c));  // the text table's significant digits
}

std::optional<std::size_t> column(const search::ScenarioResult& r, const std::string& name) {
  const auto it = std::find(r.columns.begin(), r.columns.end(), name);
  if (it == r.columns.end()) return std::nullopt;
  return std::size_t(it - r.columns.begin());
}

std::optional<double> number(const search::ScenarioResult& r, std::size_t row, const std::string& name) {
  const auto k = column(r, name);
  if (!k || *k >= r.rows[row].size()) return std::nullopt;
  if (const auto* d = std::get_if<double>(&r.rows[row][*k])) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&r.rows[row][*k])) return double(*i);
  return std::nullopt;
}

// Ranked rows (a rank and a time between tokens) as horizontal bars with the band's range.
std::string ranking_svg(const search::ScenarioResult& r) {
  const auto rank = column(r, "rank"), label = column(r, "scheme"), params = column(r, "parameters");
  if (!rank || !label || !column(r, "tbt_ms")) return "";
  struct Bar {
    std::string name;
    double tbt, low, high;
  };
  std::vector<Bar> bars;
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    if (!std::holds_alternative<std::int64_t>(r.rows[i][*rank])) continue;
    const auto tbt = number(r, i, "tbt_ms");
    if (!tbt) continue;
    std::string name = cell_text(r.rows[i][*label]);
    if (params && !cell_text(r.rows[i][*params]).empty()) name += ": " + cell_text(r.rows[i][*params]);
    bars.push_back({name, *tbt, number(r, i, "tbt_low_ms").value_or(*tbt), number(r, i, "tbt_high_ms").value_or(*tbt)});
  }
  if (bars.empty()) return "";
  double top = 0;
  for (const auto& b : bars) top = std::max({top, b.tbt, b.high});
  const double plot = kChartWidth - kLabelWidth - 60, height = bars.size() * (kBarHeight + 6) + 30;
  std::ostringstream svg;
  svg << fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" role="img" )"
                     R"(aria-label="time between tokens per ranked candidate">)",
                     kChartWidth, height);
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const auto& b = bars[i];
    const double y = 6 + i * (kBarHeight + 6), w = plot * b.tbt / top;
    const std::string name = b.name.size() > 40 ? b.name.substr(0, 37) + "..." : b.name;
    svg << fmt::format(R"(<text x="{}" y="{}" text-anchor="end" font-size="12">{}. {}</text>)", kLabelWidth - 6,
                       y + kBarHeight * 0.7, i + 1, html_escape(name));
    svg << fmt::format(R"(<rect x="{}" y="{}" width="{:.2f}" height="{}" fill="{}"><title>{}: {:.4g} ms</title></rect>)",
                       kLabelWidth, y, w, kBarHeight, i == 0 ? palette()[0] : palette()[7], html_escape(b.name), b.tbt);
    if (b.high > b.low) {
      const double x0 = kLabelWidth + plot * b.low / top, x1 = kLabelWidth + plot * b.high / top, ym = y + kBarHeight / 2;
      svg << fmt::format(R"(<line x1="{0:.2f}" y1="{1}" x2="{2:.2f}" y2="{1}" stroke="black"/>)", x0, ym, x1);
      for (double x : {x0, x1})
        svg << fmt::format(R"(<line x1="{0:.2f}" y1="{1}" x2="{0:.2f}" y2="{2}" stroke="black"/>)", x, y + 4,
                           y + kBarHeight - 4);
    }
    svg << fmt::format(R"(<text x="{:.2f}" y="{}" font-size="12">{:.4g} ms</text>)", kLabelWidth + w + 4,
                       y + kBarHeight * 0.7, b.tbt);
  }
  svg << fmt::format(R"(<text x="{}" y="{}" font-size="12">time between tokens (ms); whiskers: the band over the acceptance</text>)",
                     kLabelWidth, height - 6);
  svg << "</svg>";
  return svg.str();
}

std::string meta_html(const search::ScenarioResult& r) {
  std::ostringstream out;
  out << "<dl>\n";
  for (const auto& [key, value] : r.meta) {
    out << "<dt>" << html_escape(key) << "</dt><dd>";
    if (const auto* s = std::get_if<std::string>(&value)) {
      out << (s->empty() ? "<em>none</em>" : html_escape(*s));
    } else if (!std::holds_alternative<std::vector<std::string>>(value)) {
      out << html_escape(Table::meta_text(value));  // a number or a yes/no fact
    } else {
      const auto& list = std::get<std::vector<std::string>>(value);
      if (list.empty()) out << "<em>none</em>";
      else {
        out << "<ul>";
        for (const auto& item : list) out << "<li>" << html_escape(item) << "</li>";
        out << "</ul>";
      }
    }
    out << "</dd>\n";
  }
  // The printed line's label is the term here.
  if (!r.validation.empty()) out << "<dt>validation</dt><dd>" << html_escape(validation_field(r.validation)) << "</dd>\n";
  out << "</dl>\n";
  return out.str();
}

// The columns the main table shows: the result's narrow ones when it has them, else all.
std::vector<std::size_t> main_columns(const search::ScenarioResult& r) {
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < r.columns.size(); ++k)
    if (r.narrow_columns.empty() ||
        std::find(r.narrow_columns.begin(), r.narrow_columns.end(), r.columns[k]) != r.narrow_columns.end())
      out.push_back(k);
  return out;
}

std::string cell_html(const search::ScenarioResult& r, const std::vector<search::ScenarioCell>& row, std::size_t k) {
  const std::string text = k < row.size() ? html_escape(cell_text(row[k])) : "";
  return r.columns[k] == "reproduce" && !text.empty() ? "<code>" + text + "</code>" : text;
}

std::string table_html(const search::ScenarioResult& r) {
  const auto shown = main_columns(r);
  std::ostringstream out;
  out << "<div class=\"wide\"><table>\n<thead><tr>";
  for (std::size_t k : shown) out << "<th>" << html_escape(r.columns[k]) << "</th>";
  out << "</tr></thead>\n<tbody>\n";
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const auto& row = r.rows[i];
    out << "<tr id=\"row" << i + 1 << "\">";
    for (std::size_t k : shown) {
      const bool num = k < row.size() && !std::holds_alternative<std::string>(row[k]);
      out << (num ? "<td class=\"n\">" : "<td>") << cell_html(r, row, k) << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</tbody></table></div>\n";
  if (shown.size() == r.columns.size()) return out.str();
  // The other columns per row (its band, why, acceptance, reproduce command), row by row.
  out << "<h2 id=\"details\">Each candidate</h2>\n";
  const auto first = column(r, "scheme");
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const auto& row = r.rows[i];
    out << "<h3>" << i + 1 << ". " << (first ? html_escape(cell_text(row[*first])) : std::string("row")) << "</h3>\n<dl class=\"row\">";
    for (std::size_t k = 0; k < r.columns.size(); ++k) {
      if (k >= row.size() || cell_text(row[k]).empty()) continue;
      if (std::find(shown.begin(), shown.end(), k) != shown.end() && r.columns[k] != "status") continue;
      out << "<dt>" << html_escape(r.columns[k]) << "</dt><dd>" << cell_html(r, row, k) << "</dd>";
    }
    out << "</dl>\n";
  }
  return out.str();
}

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string trace_timeline_svg(const std::string& trace_json, std::size_t max_events) {
  const auto doc = nlohmann::json::parse(trace_json, nullptr, false);
  if (doc.is_discarded()) return "";
  const auto& events = doc.is_object() && doc.contains("traceEvents") ? doc["traceEvents"] : doc;
  if (!events.is_array()) return "";
  // Lane names from the metadata events; boxes from the complete events, earliest first.
  std::map<std::pair<long long, long long>, std::string> lane_name;
  std::map<long long, std::string> process_name;
  struct Box {
    double ts, dur;
    long long pid, tid;
    std::string name;
  };
  std::vector<Box> boxes;
  for (const auto& e : events) {
    if (!e.is_object()) continue;
    const std::string ph = e.value("ph", "");
    const long long pid = e.value("pid", 0LL), tid = e.value("tid", 0LL);
    if (ph == "M" && e.contains("args") && e["args"].contains("name")) {
      const std::string n = e["args"]["name"].is_string() ? e["args"]["name"].get<std::string>() : "";
      if (e.value("name", "") == "thread_name") lane_name[{pid, tid}] = n;
      if (e.value("name", "") == "process_name") process_name[pid] = n;
    } else if (ph == "X" && e.contains("ts") && e.contains("dur") && e["ts"].is_number() && e["dur"].is_number()) {
      boxes.push_back({e["ts"].get<double>(), e["dur"].get<double>(), pid, tid, e.value("name", "")});
    }
  }
  if (boxes.empty()) return "";
  std::stable_sort(boxes.begin(), boxes.end(), [](const Box& a, const Box& b) { return a.ts < b.ts; });
  const double start = boxes.front().ts;
  double run_end = start;
  for (const auto& b : boxes) run_end = std::max(run_end, b.ts + b.dur);
  const std::size_t shown = std::min(max_events, boxes.size());
  boxes.resize(shown);
  double end = start;
  for (const auto& b : boxes) end = std::max(end, b.ts + b.dur);
  // Lanes in (pid, tid) order, named by thread, else by process.
  std::map<std::pair<long long, long long>, int> lane;
  for (const auto& b : boxes) lane.emplace(std::make_pair(b.pid, b.tid), 0);
  int next = 0;
  for (auto& [key, index] : lane) index = next++;
  std::map<std::string, int> colour;  // by event name's first word: same kind, same colour
  const double plot = kChartWidth - kLabelWidth - 10, span = std::max(end - start, 1e-9);
  const double height = lane.size() * (kLaneHeight + 4) + 34;
  std::ostringstream svg;
  svg << fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" role="img" aria-label="timeline">)",
                     kChartWidth, height);
  for (const auto& [key, index] : lane) {
    auto it = lane_name.find(key);
    std::string name = it != lane_name.end() ? it->second
                       : process_name.count(key.first) ? process_name[key.first]
                                                       : fmt::format("{}/{}", key.first, key.second);
    svg << fmt::format(R"(<text x="{}" y="{:.1f}" text-anchor="end" font-size="11">{}</text>)", kLabelWidth - 6,
                       4 + index * (kLaneHeight + 4) + kLaneHeight * 0.75, html_escape(name));
  }
  for (const auto& b : boxes) {
    const std::string kind = b.name.substr(0, b.name.find(' '));
    const int c = colour.emplace(kind, int(colour.size())).first->second;
    const double x = kLabelWidth + plot * (b.ts - start) / span, w = std::max(0.5, plot * b.dur / span);
    const double y = 4 + lane[{b.pid, b.tid}] * (kLaneHeight + 4);
    svg << fmt::format(R"(<rect x="{:.2f}" y="{:.1f}" width="{:.2f}" height="{}" fill="{}"><title>{} ({:.4g} ms)</title></rect>)",
                       x, y, w, kLaneHeight, palette()[std::size_t(c) % palette().size()], html_escape(b.name), b.dur / 1e3);
  }
  svg << fmt::format(R"(<text x="{}" y="{:.1f}" font-size="12">{:.4g} ms shown ({} of {} events; the run: {:.4g} ms); hover a box for its name</text>)",
                     kLabelWidth, height - 8, (end - start) / 1e3, shown, shown == max_events ? std::string("the first") : "all",
                     (run_end - start) / 1e3);
  svg << "</svg>";
  return svg.str();
}

std::string scenario_report_html(const search::ScenarioResult& result, const std::string& command_line,
                                 const std::string& trace_file) {
  std::ostringstream html;
  html << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       << "<title>" << html_escape(command_line) << "</title>\n"
       << "<style>\n"
          "body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px;color:#222}\n"
          "h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.6em}\n"
          "dt{font-weight:bold;margin-top:.4em}dd{margin-left:1.5em}h3{font-size:1em;margin:1em 0 .2em}\n"
          "dl.row{display:grid;grid-template-columns:max-content 1fr;gap:0 1em;font-size:13px;margin:0}\n"
          "dl.row dt,dl.row dd{margin:0}\n"
          ".wide{overflow-x:auto}table{border-collapse:collapse;font-size:12px}\n"
          "th,td{border:1px solid #ccc;padding:2px 6px;vertical-align:top}td.n{text-align:right}\n"
          "pre{white-space:pre-wrap;background:#f6f6f6;padding:.6em}code{font-size:11px}\n"
          "</style>\n</head>\n<body>\n";
  html << "<h1>" << html_escape(command_line) << "</h1>\n";
  html << "<p>specdse " << html_escape(models::version()) << " (git commit " << html_escape(models::git_commit())
       << "); every number below is this command's, and each row's <code>reproduce</code> command gives it alone.</p>\n";
  html << "<h2 id=\"answer\">Answer</h2>\n" << meta_html(result);
  if (const std::string bars = ranking_svg(result); !bars.empty())
    html << "<h2 id=\"ranking\">Ranking</h2>\n<div class=\"wide\">" << bars << "</div>\n";
  html << "<h2 id=\"table\">Table</h2>\n" << table_html(result);
  if (result.write_trace) {
    std::ostringstream json;
    result.write_trace(json);
    const std::string svg = trace_timeline_svg(json.str());
    html << "<h2 id=\"timeline\">Timeline</h2>\n";
    if (!trace_file.empty())
      html << "<p>The whole run as Perfetto / chrome://tracing JSON: <a href=\"" << html_escape(trace_file) << "\">"
           << html_escape(trace_file) << "</a> (open it at ui.perfetto.dev).</p>\n";
    html << (svg.empty() ? "<p><em>the timeline holds no timed events</em></p>" : "<div class=\"wide\">" + svg + "</div>")
         << "\n";
  }
  html << "<h2 id=\"footer\">As printed</h2>\n<pre>" << html_escape(result.footer)
       << (result.validation.empty() ? "" : "\n" + html_escape(result.validation)) << "</pre>\n";
  html << "</body>\n</html>\n";
  return html.str();
}

}  // namespace experiments
