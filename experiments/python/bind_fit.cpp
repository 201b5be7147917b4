// _specdse: the acceptance fits, as `specdse fit` computes them: AAT(x) = A + B ln(x - C) through
// given points or through the measured points the optimiser uses (search/acceptance/aat_fit),
// and the acceptance process fitted to a statistics file with its band of consistent fits.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/workload_setup.hpp"
#include "experiments/output/statistics_fit_table.hpp"
#include "experiments/python/columns.hpp"
#include "experiments/python/without_gil.hpp"
#include "models/config_error.hpp"
#include "search/acceptance/aat_fit.hpp"
#include "search/acceptance/acceptance_data.hpp"
#include "search/acceptance/acceptance_statistics.hpp"

namespace specdse_py {
namespace {

py::dict fit_dict(const search::AatFit& f) {
  using namespace pybind11::literals;
  return py::dict("a"_a = f.a, "b"_a = f.b, "c"_a = f.c, "r2"_a = f.r2, "rmse"_a = f.rmse, "n"_a = f.n);
}


}  // namespace

void bind_fit(py::module_& m) {
  m.def("fit_points", [](const std::vector<double>& x, const std::vector<double>& aat) {
    if (x.size() != aat.size())
      throw models::InputError(fmt::format("fit: expected as many AAT values as x, got {} and {}", aat.size(), x.size()));
    std::vector<search::AatPoint> pts;
    for (std::size_t k = 0; k < x.size(); ++k) pts.push_back({x[k], aat[k]});
    return fit_dict(without_gil([&] { return search::fit_aat(pts, "fit"); }));
  }, py::arg("x"), py::arg("aat"));

  // The fit the optimiser uses for (algorithm, model, task, context): measured points + AAT(1) = 1.
  m.def("fit_measured", [](const std::string& algorithm, const std::string& model, const std::string& task,
                           long long context, const std::string& source_table, const std::string& data_path,
                           const std::string& config_dir) {
    const search::AatSource src = without_gil([&] {
      const auto reg = registry(config_dir);
      const auto data = search::AcceptanceData::load(data_path.empty() ? reg.dir() + "/acceptance/aat_measurements.csv"
                                                                       : data_path);
      return experiments::aat_source(data, {algorithm, model, task, source_table}, context);
    });
    py::dict d = fit_dict(src.fit);
    std::vector<double> mx, ma;
    for (const auto& [x, a] : src.measured) {
      mx.push_back(x);
      ma.push_back(a);
    }
    d["measured_x"] = py::array_t<double>(py::ssize_t(mx.size()), mx.data());
    d["measured_aat"] = py::array_t<double>(py::ssize_t(ma.size()), ma.data());
    return d;
  }, py::arg("algorithm"), py::arg("model"), py::arg("task"), py::arg("context"), py::arg("source_table") = "",
     py::arg("data") = "", py::arg("config_dir") = "");

  // The acceptance process fitted to a statistics file (`specdse fit --statistics`): one row per
  // (fit, statistic) and the band of consistent fits; `out` writes the band as the CLI does.
  m.def("fit_statistics", [](const std::string& path, const std::string& out) {
    search::StatisticsFitReport rep;
    search::StatisticsFile file;
    std::optional<experiments::Table> table;
    without_gil([&] {
      file = search::read_statistics_file(path);
      rep = search::fit_statistics(file);
      table.emplace(experiments::statistics_fit_table(file, rep));
      if (!out.empty())
        experiments::write_file_atomic(out, search::format_process_band(
                                                rep.band, experiments::statistics_band_header(file, "specdse.fit(statistics=...)")));
    });
    py::dict d;
    d["table"] = table_columns(*table).to_python();
    d["summary"] = table->footer();
    d["left_open"] = rep.band.left_open;
    d["borrowed"] = rep.band.borrowed;
    d["consistent_fits"] = rep.band.members.size();
    return d;
  }, py::arg("path"), py::arg("out") = "");
}

}  // namespace specdse_py
