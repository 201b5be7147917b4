#pragma once
// `--report FILE.html` of a scenario command (`specdse plan --report plan.html`): one
// self-contained HTML page that needs no network and no script. It holds, from the scenario's
// result alone:
//   - the command that produced it and the footer's fields (winner, runner-up, engine, caveats,
//     validation status, ...), lists as lists;
//   - for a ranked table with a time between tokens (plan), the ranked candidates as bars with
//     the band over the acceptance as error bars, in inline SVG;
//   - the whole table, every column (each candidate's why, acceptance and reproduce command);
//   - the timeline trace, where the scenario keeps one, drawn as an inline SVG (one lane per
//     device and link; a long run's first events, with how much is shown), its Perfetto JSON
//     written beside the page (FILE.trace.json) and linked;
//   - the footer as the text table prints it.
#include <string>

#include "search/scenarios/scenario.hpp"

namespace experiments {

// The page for `result`, run as `command_line`; `trace_file` is the name (relative to the page)
// of the timeline's Perfetto JSON, empty when the result keeps no timeline.
std::string scenario_report_html(const search::ScenarioResult& result, const std::string& command_line,
                                 const std::string& trace_file);

// The timeline of a Chrome trace-event JSON (as ScenarioResult::write_trace writes it) as inline
// SVG: one lane per (process, thread) named by its metadata events, a box per complete ("X")
// event, at most `max_events` of them from the start (the caption says how much of the run that
// is). Empty when the JSON has no complete events.
std::string trace_timeline_svg(const std::string& trace_json, std::size_t max_events = 3000);

// `text` with &, <, >, " and ' as HTML character references.
std::string html_escape(const std::string& text);

}  // namespace experiments
