#pragma once
// A scenario's typed seam: its parameters as a struct and its rows as a struct, both generated
// from one declaration, so a caller in C++ (`plan`'s schemes) sets fields and reads fields
// instead of writing "gamma=1-16" and looking columns up by name.
//
// A scenario that offers this declares, in its header, `Params` and `Row` structs and, in its
// .cpp, one TypedScenario<Params, Row> that binds each parameter declaration (scenario.hpp's
// ScenarioParam) to a member of Params and each result column to a member (or a function) of Row.
// From those bindings come: the registered scenario (its ScenarioInfo::params and run, so the
// command line, Python, sweeps and manifests see the very same declarations), the typed Params
// a run reads (validated values, defaults filled in), the KEY=VALUE settings that reproduce a
// Params on a command line, and the table (columns and cells) generated from the typed rows.
//
// A typed call goes through the one runner (scenario_runner.hpp): the Params become settings,
// the runner validates them against the declarations exactly as it does a user's, and the
// scenario reads them back; so a row `plan` prints and the command it prints for it run the same
// code on the same values.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "models/config_registry.hpp"
#include "search/scenarios/scenario.hpp"
#include "search/scenarios/scenario_runner.hpp"

namespace search {

// A row's status: timed, or why not. The text form is the `status` column.
struct RowStatus {
  // unchecked: timed, but its memory fit was not checked (a device states no capacity).
  enum class Kind { ok, unchecked, infeasible, not_applicable };
  Kind kind = Kind::ok;
  // infeasible: what does not fit, with the numbers ("infeasible: needs 151 GiB of 80 GiB on
  // gpu0"); not applicable: why the scenario does not apply to the row.
  std::string reason;

  static RowStatus ok() { return {}; }
  static RowStatus unchecked() { return {Kind::unchecked, {}}; }
  static RowStatus infeasible(std::string why) { return {Kind::infeasible, std::move(why)}; }
  static RowStatus not_applicable(std::string why) { return {Kind::not_applicable, std::move(why)}; }
  bool is_ok() const { return kind == Kind::ok; }
  // Whether the row carries times (ok or unchecked).
  bool timed() const { return kind == Kind::ok || kind == Kind::unchecked; }
  // "ok", "unchecked", the infeasible reason as it stands (it starts "infeasible: "), or "not
  // applicable: WHY".
  std::string text() const {
    switch (kind) {
      case Kind::ok: return "ok";
      case Kind::unchecked: return "unchecked";
      case Kind::infeasible: return reason;
      case Kind::not_applicable: return "not applicable: " + reason;
    }
    return reason;
  }
};

// A typed run's answer: the rows as structs beside the generated table (with its footer, fields,
// traces and validation line).
template <class Row>
struct TypedResult {
  std::vector<Row> rows;
  ScenarioResult table;
};

namespace typed_detail {

// Integer lists print with runs of three or more as ranges ("1-16"), as a user types them.
inline std::string integer_list_text(const std::vector<long long>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j >= i + 2 ? fmt::format("{}-{}", v[i], v[j]) : std::to_string(v[i]);
    if (j == i + 1) out += ',' + std::to_string(v[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace typed_detail

// The parameter declarations of a Params struct, each bound to its member.
template <class P>
class ParamBindings {
 public:
  // A member of a supported type: long long, int, double, std::optional<double>, std::string,
  // bool, std::vector<long long>, std::vector<double>; `decl`'s type must match it.
  template <class T>
  ParamBindings& add(ScenarioParam decl, T P::*member) {
    static_assert(std::is_same_v<T, long long> || std::is_same_v<T, int> || std::is_same_v<T, double> ||
                      std::is_same_v<T, std::optional<double>> || std::is_same_v<T, std::string> ||
                      std::is_same_v<T, bool> || std::is_same_v<T, std::vector<long long>> ||
                      std::is_same_v<T, std::vector<double>>,
                  "ParamBindings: unsupported member type");
    const std::string key = decl.key;
    Binding b;
    b.decl = std::move(decl);
    b.read = [member, key](P& p, const ScenarioContext& ctx) {
      if constexpr (std::is_same_v<T, long long>) p.*member = ctx.integer(key);
      else if constexpr (std::is_same_v<T, int>) p.*member = int(ctx.integer(key));
      else if constexpr (std::is_same_v<T, double>) p.*member = ctx.real(key);
      else if constexpr (std::is_same_v<T, std::optional<double>>)
        p.*member = ctx.text(key).empty() ? std::nullopt : std::optional<double>(ctx.real(key));
      else if constexpr (std::is_same_v<T, std::string>) p.*member = ctx.text(key);
      else if constexpr (std::is_same_v<T, bool>) p.*member = ctx.flag(key);
      else if constexpr (std::is_same_v<T, std::vector<long long>>) p.*member = ctx.integers(key);
      else p.*member = ctx.reals(key);
    };
    b.write = [member](const P& p) -> std::string {
      const T& v = p.*member;
      if constexpr (std::is_same_v<T, long long> || std::is_same_v<T, int>) return std::to_string(v);
      else if constexpr (std::is_same_v<T, double>) return fmt::format("{}", v);
      else if constexpr (std::is_same_v<T, std::optional<double>>) return v ? fmt::format("{}", *v) : std::string();
      else if constexpr (std::is_same_v<T, std::string>) return v;
      else if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
      else if constexpr (std::is_same_v<T, std::vector<long long>>) return typed_detail::integer_list_text(v);
      else {
        std::string out;
        for (double x : v) out += (out.empty() ? "" : ",") + fmt::format("{}", x);
        return out;
      }
    };
    bindings_.push_back(std::move(b));
    return *this;
  }

  std::vector<ScenarioParam> declarations() const {
    std::vector<ScenarioParam> d;
    for (const auto& b : bindings_) d.push_back(b.decl);
    return d;
  }
  // The Params of a context whose parameters were validated against these declarations.
  P read(const ScenarioContext& ctx) const {
    P p{};
    for (const auto& b : bindings_) b.read(p, ctx);
    return p;
  }
  // KEY=VALUE for every member whose value differs from `defaults`'s, and for the keys in
  // `always` that have a value, in declaration order.
  std::vector<std::string> settings(const P& p, const P& defaults, const std::vector<std::string>& always) const {
    std::vector<std::string> out;
    for (const auto& b : bindings_) {
      const std::string v = b.write(p);
      const bool named = std::find(always.begin(), always.end(), b.decl.key) != always.end() && !v.empty();
      if (named || v != b.write(defaults)) out.push_back(b.decl.key + "=" + v);
    }
    return out;
  }

 private:
  struct Binding {
    ScenarioParam decl;
    std::function<void(P&, const ScenarioContext&)> read;
    std::function<std::string(const P&)> write;
  };
  std::vector<Binding> bindings_;
};

// The columns of a Row struct, each bound to a member or a function of the row.
template <class R>
class ColumnBindings {
 public:
  // A member: an integer becomes an integer cell, a double a number, a string text, an optional
  // an empty cell when unset, a RowStatus its text.
  template <class T>
  ColumnBindings& add(std::string name, T R::*member) {
    return add(std::move(name), std::function<ScenarioCell(const R&)>([member](const R& r) { return cell(r.*member); }));
  }
  ColumnBindings& add(std::string name, std::function<ScenarioCell(const R&)> f) {
    names_.push_back(std::move(name));
    cells_.push_back(std::move(f));
    return *this;
  }
  const std::vector<std::string>& names() const { return names_; }
  std::vector<ScenarioCell> cells(const R& r) const {
    std::vector<ScenarioCell> out;
    out.reserve(cells_.size());
    for (const auto& f : cells_) out.push_back(f(r));
    return out;
  }

  static ScenarioCell cell(const std::string& v) { return v; }
  static ScenarioCell cell(double v) { return v; }
  static ScenarioCell cell(long long v) { return std::int64_t(v); }
  static ScenarioCell cell(int v) { return std::int64_t(v); }
  static ScenarioCell cell(const RowStatus& s) { return s.text(); }
  template <class T>
  static ScenarioCell cell(const std::optional<T>& v) {
    return v ? cell(*v) : ScenarioCell(std::string());
  }

 private:
  std::vector<std::string> names_;
  std::vector<std::function<ScenarioCell(const R&)>> cells_;
};

// One scenario with its typed seam (see the top of this file). Constructing it registers the
// scenario; keep it a static of the scenario's .cpp and hand it out through a function.
template <class P, class R>
class TypedScenario {
 public:
  // The scenario's answer from its typed Params: typed rows, and the rest of its result (footer,
  // fields, traces, further tables; `columns` and `rows` are generated from the rows). A view
  // whose table is not the typed rows (duodecoding's show = sequences) sets `table.columns` and
  // `table.rows` itself and returns no typed rows.
  using Core = std::function<TypedResult<R>(const ScenarioContext&, const P&)>;

  // `info` as for a ScenarioRegistration, without params and run (they come from the bindings).
  TypedScenario(ScenarioInfo info, ParamBindings<P> params, ColumnBindings<R> columns, Core core)
      : name_(info.name), params_(std::move(params)), columns_(std::move(columns)), core_(std::move(core)) {
    info.params = params_.declarations();
    info.run = [this](const ScenarioContext& ctx) { return evaluate(ctx).table; };
    registration_.emplace(std::move(info));
  }
  TypedScenario(const TypedScenario&) = delete;
  TypedScenario& operator=(const TypedScenario&) = delete;

  const std::string& name() const { return name_; }
  // The declared defaults as a Params.
  P defaults() const {
    ScenarioContext ctx;
    ctx.scenario = name_;
    ctx.declared = params_.declarations();
    ctx.params = scenario_params(scenario(name_), {});
    return params_.read(ctx);
  }
  // The settings that give `p` on a command line (`--param KEY=VALUE`): members that differ from
  // the defaults, and the keys in `always` (e.g. "system": a printed command that names its
  // system reads better and does not lean on a default).
  std::vector<std::string> settings(const P& p, const std::vector<std::string>& always = {}) const {
    return params_.settings(p, defaults(), always);
  }
  const std::vector<std::string>& columns() const { return columns_.names(); }

  // Runs the scenario with `p` (beside any settings already in `in.params`) through the runner.
  TypedResult<R> run(ScenarioInputs in, const P& p, const models::ConfigRegistry& configs) const {
    for (auto& s : settings(p)) in.params.push_back(std::move(s));
    TypedResult<R> out;
    ScenarioResult table = run_scenario(name_, in, configs, [&](const ScenarioContext& ctx) {
      out = evaluate(ctx);
      return out.table;
    });
    out.table = std::move(table);  // with the runner's validation line
    return out;
  }

 private:
  TypedResult<R> evaluate(const ScenarioContext& ctx) const {
    TypedResult<R> r = core_(ctx, params_.read(ctx));
    if (r.rows.empty() && !r.table.columns.empty()) return r;  // another view's own table
    r.table.columns = columns_.names();
    r.table.rows.clear();
    for (const auto& row : r.rows) r.table.rows.push_back(columns_.cells(row));
    return r;
  }

  std::string name_;
  ParamBindings<P> params_;
  ColumnBindings<R> columns_;
  Core core_;
  std::optional<ScenarioRegistration> registration_;
};

}  // namespace search
