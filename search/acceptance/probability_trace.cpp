#include "search/acceptance/probability_trace.hpp"
#include "models/input_file.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "models/config_error.hpp"
#include "search/acceptance/chain_trace.hpp"

namespace search {

using models::InputError;

const char* const kProbabilityTraceHeader = "# specdse probability-trace v1";

double ProbabilityTrace::acceptance_rate() const {
  if (positions.empty()) return 0;
  std::size_t a = 0;
  for (const auto& p : positions) a += p.accepted ? 1 : 0;
  return double(a) / double(positions.size());
}

bool is_probability_trace_text(const std::string& text) {
  const std::string h = kProbabilityTraceHeader;
  return text.compare(0, h.size(), h) == 0;
}

namespace {

[[noreturn]] void bad(const std::string& source, long long line, const std::string& what, const std::string& got) {
  throw InputError(fmt::format("{}: line {}: expected {}, got '{}'", source, line, what, got));
}

}  // namespace

ProbabilityTrace parse_probability_trace(const std::string& text, const std::string& source) {
  if (!is_probability_trace_text(text))
    throw InputError(fmt::format("{}: line 1: expected the header '{}'", source, kProbabilityTraceHeader));
  ProbabilityTrace t;
  t.source = source;
  std::istringstream in(text);
  std::string line;
  long long line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string s; words >> s;) w.push_back(s);
    if (w.empty()) continue;  // blank or comment-only lines are not positions
    if (w.size() < 4) bad(source, line_no, "ACCEPTED RANK P1 P2 [P3 ...]", line);
    ProbabilityPosition p;
    if (w[0] != "0" && w[0] != "1") bad(source, line_no, "ACCEPTED 0 or 1", w[0]);
    p.accepted = w[0] == "1";
    try {
      std::size_t used = 0;
      p.rank = std::stoi(w[1], &used);
      if (used != w[1].size() || p.rank < -1) throw std::invalid_argument("rank");
    } catch (const std::exception&) {
      bad(source, line_no, "RANK an integer >= -1", w[1]);
    }
    if (p.accepted && p.rank != 0) bad(source, line_no, "RANK 0 on an accepted position", w[1]);
    if (!p.accepted && p.rank == 0) bad(source, line_no, "RANK != 0 on a rejected position", w[1]);
    double sum = 0;
    for (std::size_t i = 2; i < w.size(); ++i) {
      double v = 0;
      try {
        std::size_t used = 0;
        v = std::stod(w[i], &used);
        if (used != w[i].size()) throw std::invalid_argument("p");
      } catch (const std::exception&) {
        bad(source, line_no, "a probability", w[i]);
      }
      if (!(v >= 0.0 && v <= 1.0)) bad(source, line_no, "a probability in [0, 1]", w[i]);
      if (!p.top_probs.empty() && v > p.top_probs.back() + 1e-9)
        bad(source, line_no, "non-increasing probabilities", w[i]);
      p.top_probs.push_back(v);
      sum += v;
    }
    // 1e-6: the writer's 6 significant digits may round a sum of 1 up by a few 1e-7.
    if (sum > 1.0 + 1e-6) bad(source, line_no, "probabilities summing to at most 1", fmt::format("{:.6g}", sum));
    if (p.rank >= int(p.top_probs.size()))
      bad(source, line_no, fmt::format("RANK < {} (the listed candidates) or -1", p.top_probs.size()), w[1]);
    t.positions.push_back(std::move(p));
  }
  if (t.positions.empty()) throw InputError(fmt::format("{}: expected at least one position, got none", source));
  return t;
}

ProbabilityTrace read_probability_trace(const std::string& path) {
  std::ifstream in = models::open_input_file(path, "probability trace");
  if (!in) throw InputError(fmt::format("{}: cannot open the probability trace", path));
  std::ostringstream s;
  s << in.rdbuf();
  return parse_probability_trace(s.str(), path);
}

std::string format_probability_trace(const ProbabilityTrace& trace, const std::string& comment) {
  std::string out = std::string(kProbabilityTraceHeader) + "\n";
  std::istringstream c(comment);
  for (std::string line; std::getline(c, line);) out += "# " + line + "\n";
  for (const auto& p : trace.positions) {
    out += fmt::format("{} {}", p.accepted ? 1 : 0, p.rank);
    for (double v : p.top_probs) out += fmt::format(" {:.6g}", v);
    out += "\n";
  }
  return out;
}

ProbabilityPosition draw_calibrated_position(double alpha, int top_k, SplitMix64& rng) {
  ProbabilityPosition p;
  // p1 = U^c with c = (1 - alpha) / alpha has mean 1 / (1 + c) = alpha (Beta(1/c, 1)).
  const double c = (1.0 - alpha) / alpha;
  const double p1 = std::pow(rng.uniform(), c);
  p.top_probs.push_back(p1);
  double rest = 1.0 - p1;
  for (int j = 1; j < top_k; ++j) {
    const double pj = std::min(p.top_probs.back(), rest * rng.uniform());
    p.top_probs.push_back(pj);
    rest -= pj;
  }
  // Calibrated acceptance: P(accept | p1) = p1.
  const double u = rng.uniform();
  if (u < p1) {
    p.accepted = true;
    p.rank = 0;
    return p;
  }
  // Rejected: the target's token is rank j with probability p_j / (1 - p1); u - p1 is uniform
  // on [0, 1 - p1) given the rejection, so it picks among the remaining mass directly.
  p.accepted = false;
  p.rank = -1;
  double acc = p1;
  for (int j = 1; j < top_k; ++j) {
    acc += p.top_probs[std::size_t(j)];
    if (u < acc) {
      p.rank = j;
      break;
    }
  }
  return p;
}

ProbabilityTrace generate_probability_trace(const ProbabilityGeneratorOptions& o) {
  if (!(o.alpha > 0.0 && o.alpha < 1.0))
    throw InputError(fmt::format("probability trace generator: expected alpha in (0, 1), got {}", o.alpha));
  if (o.top_k < 2) throw InputError(fmt::format("probability trace generator: expected top_k >= 2, got {}", o.top_k));
  if (o.positions < 1)
    throw InputError(fmt::format("probability trace generator: expected positions >= 1, got {}", o.positions));
  ProbabilityTrace t;
  t.source = "synthetic";
  SplitMix64 rng(o.seed);
  t.positions.reserve(std::size_t(o.positions));
  for (long long i = 0; i < o.positions; ++i) t.positions.push_back(draw_calibrated_position(o.alpha, o.top_k, rng));
  return t;
}

}  // namespace search
