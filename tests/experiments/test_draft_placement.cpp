// Drafts on any device: optimize, window, draft-select and sweep take a draft
// placement. T_d is the draft's passes on its own device plus both link transfers; the default
// placement is exactly the old single-engine T_d; a draft on a much faster device lowers T_d; a
// device the system lacks, a mismatched target or a half-given placement is one line, exit 2.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "experiments/cli/draft_placement_options.hpp"
#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/engine_registry.hpp"
#include "models/link_spec.hpp"
#include "search/draft_placement.hpp"
#include "search/window/chain_sd.hpp"
#include "tests/experiments/cli_run.hpp"
#include "tests/experiments/sweep_test_support.hpp"

namespace {

using cli_test::run;

int lines(const std::string& s) { return int(std::count(s.begin(), s.end(), '\n')); }

// The cells of column `name` in a CSV text (header row first).
std::vector<std::string> column(const std::string& csv, const std::string& name) {
  std::istringstream in(cli_test::without_comments(csv));
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  {
    std::istringstream h(line);
    std::string c;
    while (std::getline(h, c, ',')) header.push_back(c);
  }
  const auto at = std::size_t(std::find(header.begin(), header.end(), name) - header.begin());
  REQUIRE(at < header.size());
  std::vector<std::string> out;
  while (std::getline(in, line)) {
    std::istringstream r(line);
    std::string c;
    for (std::size_t i = 0; std::getline(r, c, ','); ++i)
      if (i == at) out.push_back(c);
  }
  return out;
}

models::Workload chain_workload(const models::ConfigRegistry& reg, const std::string& target, const std::string& draft) {
  models::Workload w;
  w.target = reg.model(target);
  w.algorithm = std::make_shared<models::AlgorithmSpec>(reg.algorithm(draft));
  return w;
}

}  // namespace

TEST_CASE("Draft placement: T_d is the draft's passes on its device plus both transfers, same device is unchanged") {
  const models::ConfigRegistry reg;
  const auto w = chain_workload(reg, "llama-2-7b", "llama-68m");
  const auto cpu = models::make_engine("roofline", reg.hardware("xeon-16c"));
  std::shared_ptr<const models::LatencyEngine> gpu = models::make_engine("roofline", reg.hardware("h100-sxm"));
  const models::LinkSpec link = models::load_link(reg.path("links", "pcie4-x16"));
  const auto same = search::DraftPlacement::same_device();
  const auto on_gpu = search::DraftPlacement::on_device(reg.hardware("xeon-16c"), reg.hardware("h100-sxm"), link, "roofline");
  CHECK(on_gpu.device() == "h100-sxm");
  CHECK(on_gpu.link() == "pcie4-x16");
  for (int x : {2, 5, 9}) {
    // Same device: exactly the single-engine T_d, no link.
    CHECK(same.t_draft(*cpu, w, x, 1024) == models::t_draft(*cpu, w, x, 1024));
    CHECK(same.link_s(w, x) == 0);
    // Elsewhere: passes on the draft's engine, x - 1 tokens with their 32000-entry FP32
    // distributions out, x + 1 token ids back (a standalone draft needs no hidden states).
    const double out_bytes = (x - 1) * (4.0 + 32000 * 4.0), back_bytes = (x + 1) * 4.0;
    CHECK(on_gpu.link_s(w, x) == Approx(link.transfer_s(out_bytes) + link.transfer_s(back_bytes)).epsilon(1e-12));
    CHECK(on_gpu.t_draft(*cpu, w, x, 1024) ==
          Approx(models::t_draft(*gpu, w, x, 1024) + on_gpu.link_s(w, x)).epsilon(1e-12));
  }
  // The target on the CPU with its draft moved to an H100: far less draft time per window.
  const auto here = search::ChainLatency::from_engine(*cpu, w, 1024, 8);
  const auto moved = search::ChainLatency::from_engine(*cpu, w, 1024, 8, on_gpu);
  for (int g = 1; g <= 8; ++g) {
    CHECK(moved.draft_s(g) < 0.5 * here.draft_s(g));
    CHECK(moved.verify_s(g) == here.verify_s(g));  // the target stays where it was
  }
  CHECK(here.draft_s(0) == 0);
  CHECK(moved.draft_s(0) == 0);  // AD sends nothing
}

TEST_CASE("Draft placement: draft heads send the target's hidden states back with the verdict") {
  const models::ConfigRegistry reg;
  models::Workload w;
  w.target = reg.model("llama-3.1-8b-instruct");
  w.algorithm = std::make_shared<models::AlgorithmSpec>(reg.algorithm("longspec-tree"));
  const models::LinkSpec link = models::load_link(reg.path("links", "pcie4-x16"));
  const auto p = search::DraftPlacement::on_device(reg.hardware("v80"), reg.hardware("u280"), link, "roofline");
  const int x = 13;
  const double out_bytes = (x - 1) * (4.0 + w.target.vocab_size * 4.0);
  const double back_bytes = (x + 1) * 4.0 + double(x) * w.target.hidden_size * w.target.activation_bytes();
  CHECK(p.link_s(w, x) == Approx(link.transfer_s(out_bytes) + link.transfer_s(back_bytes)).epsilon(1e-12));
}

TEST_CASE("Draft placement from names: a system's device, a device it lacks, a mismatched target") {
  const models::ConfigRegistry reg;
  experiments::DraftPlacementNames n;
  CHECK(experiments::resolve_draft_placement(reg, n, "roofline", "a800").is_same_device());
  n.system = "duodecoding-a800-xeon";
  const auto p = experiments::resolve_draft_placement(reg, n, "roofline", "a800");  // placement.draft: cpu
  CHECK(p.device() == "cpu");
  CHECK(p.link() == "pcie4-x16");
  n.draft_device = "gpu";  // the target's own device
  CHECK(experiments::resolve_draft_placement(reg, n, "roofline", "a800").is_same_device());
  n.draft_device = "tpu0";
  CHECK_THROWS_WITH(experiments::resolve_draft_placement(reg, n, "roofline", "a800"),
                    Catch::Contains("no device 'tpu0'") && Catch::Contains("gpu, cpu"));
  n.draft_device = "cpu";
  CHECK_THROWS_WITH(experiments::resolve_draft_placement(reg, n, "roofline", "v80"),
                    Catch::Contains("target device 'gpu' is a800, not --hw v80"));
  experiments::DraftPlacementNames half;
  half.draft_device = "cpu";
  CHECK_THROWS_AS(experiments::resolve_draft_placement(reg, half, "roofline", "a800"), models::InputError);
  experiments::DraftPlacementNames link_only;
  link_only.draft_link = "nvlink4";
  CHECK_THROWS_AS(experiments::resolve_draft_placement(reg, link_only, "roofline", "a800"), models::InputError);
}

TEST_CASE("Draft placement on a system: a device joined to the target's only through a relay follows the route") {
  const models::ConfigRegistry reg;
  experiments::DraftPlacementNames n;
  n.system = "specpipe-2srv-3090-4090-eth";  // the target on a0; the 4090s on their own PCIe switch
  n.draft_device = "b1";                     // not on the 10 GbE switch: b1 -> b0 over PCIe, b0 -> a0 over Ethernet
  const auto p = experiments::resolve_draft_placement(reg, n, "roofline", "rtx3090");
  CHECK(p.device() == "b1");
  CHECK(p.link() == "pcie4-x16+eth-10g");
  models::Workload w;
  w.target = reg.model("llama-3.1-70b");
  w.algorithm = std::make_shared<models::AlgorithmSpec>(reg.algorithm("longspec-tree"));
  const models::LinkSpec pcie = models::load_link(reg.path("links", "pcie4-x16"));
  const models::LinkSpec eth = models::load_link(reg.path("links", "eth-10g"));
  const int x = 5;
  const double out_bytes = (x - 1) * (4.0 + w.target.vocab_size * 4.0);
  const double back_bytes = (x + 1) * 4.0 + double(x) * w.target.hidden_size * w.target.activation_bytes();
  // Store and forward: each message pays both hops.
  CHECK(p.link_s(w, x) == Approx(pcie.transfer_s(out_bytes) + eth.transfer_s(out_bytes) + eth.transfer_s(back_bytes) +
                                 pcie.transfer_s(back_bytes)).epsilon(1e-12));
  // A device on the Ethernet switch itself: one hop, the link's own name.
  n.draft_device = "draft";
  const auto direct = experiments::resolve_draft_placement(reg, n, "roofline", "rtx3090");
  CHECK(direct.link() == "eth-10g");
  CHECK(direct.link_s(w, x) == Approx(eth.transfer_s(out_bytes) + eth.transfer_s(back_bytes)).epsilon(1e-12));
}

TEST_CASE("optimize / window / draft-select: the default placement gives the same bytes, a faster draft device lowers T_d") {
  const std::string opt = "optimize --hw a800 --model llama-3.1-8b-instruct --algorithm longspec-tree --context 1024 "
                          "--format csv";
  // The system's own target device is the default placement: byte-identical output.
  const auto base = run(opt, false);
  REQUIRE(base.status == 0);
  const auto same = run(opt + " --system duodecoding-a800-xeon --draft-device gpu", false);
  REQUIRE(same.status == 0);
  CHECK(same.output == base.output);

  // A 7B target on the CPU with a 68M chain draft: moving the draft to an H100 cuts T_d.
  const std::string win = "window --hw xeon-16c --model llama-2-7b --draft llama-68m --context 1024 --alpha 0.7 "
                          "--gamma-max 6 --format csv";
  const auto here = run(win, false), moved = run(win + " --draft-hw h100-sxm", false);
  REQUIRE(here.status == 0);
  REQUIRE(moved.status == 0);
  const auto td_here = column(here.output, "t_draft_s"), td_moved = column(moved.output, "t_draft_s");
  REQUIRE(td_here.size() == 7);
  REQUIRE(td_moved.size() == 7);
  for (std::size_t g = 1; g < td_here.size(); ++g) CHECK(std::stod(td_moved[g]) < 0.5 * std::stod(td_here[g]));
  CHECK(column(moved.output, "draft_device").front() == "h100-sxm");
  CHECK(column(moved.output, "t_verify_s") == column(here.output, "t_verify_s"));

  const std::string sel = "draft-select --hw xeon-16c --model llama-2-7b --drafts llama-68m,llama-68m@q5_k_m --alpha 0.6,0.7 "
                          "--format csv";
  const auto s_here = run(sel, false), s_moved = run(sel + " --draft-hw h100-sxm --draft-link pcie5-x16", false);
  REQUIRE(s_here.status == 0);
  REQUIRE(s_moved.status == 0);
  const auto c_here = column(s_here.output, "cost_ratio"), c_moved = column(s_moved.output, "cost_ratio");
  for (std::size_t i = 0; i < c_here.size(); ++i) CHECK(std::stod(c_moved[i]) < std::stod(c_here[i]));
}

TEST_CASE("Draft placement errors: one line, exit 2") {
  auto one_line_2 = [](const cli_test::Result& r, const std::string& needle) {
    CHECK(r.status == 2);
    CHECK(lines(r.output) == 1);
    CHECK_THAT(r.output, Catch::Contains(needle));
  };
  const std::string opt = "optimize --hw a800 --model llama-3.1-8b-instruct --algorithm longspec-tree --context 1024";
  one_line_2(run(opt + " --system duodecoding-a800-xeon --draft-device tpu0"), "no device 'tpu0'");
  one_line_2(run(opt + " --system duodecoding-a800-xeon --draft-hw xeon-16c"), "not both");
  one_line_2(run(opt + " --draft-hw tpu-v9"), "tpu-v9");
  one_line_2(run(opt + " --draft-hw xeon-16c --draft-link carrier-pigeon"), "carrier-pigeon");
  one_line_2(run("window --hw v80 --model llama-2-7b --draft llama-68m --context 1024 --alpha 0.7 --system "
                 "duodecoding-a800-xeon"),
             "not --hw v80");
  one_line_2(run("draft-select --hw a800 --model llama-2-7b --drafts llama-68m --alpha 0.6 --draft-device cpu"),
             "with --system");
}

TEST_CASE("sweep: draft_hw / draft_link axes become columns and move T_d, a device the system lacks is exit 2") {
  const auto dir = sweep_test::temp_dir("draft_placement");
  const std::string base = R"(name: placed
x_max: 32
axes:
  hardware: v80
  model: llama-3.1-8b-instruct
  algorithm: longspec-tree
  source_table: t3-4
  context: 1024
)";
  const auto plain = sweep_test::write(dir / "plain.yaml", base);
  const auto placed = sweep_test::write(dir / "placed.yaml", base + "  draft_hw: [u280, xeon-16c]\n");
  const auto bad = sweep_test::write(dir / "bad.yaml", R"(name: bad
axes:
  hardware: a800
  model: llama-3.1-8b-instruct
  algorithm: longspec-tree
  context: 1024
  system: duodecoding-a800-xeon
  draft_device: tpu0
)");
  const auto a = run("sweep --spec " + plain + " --threads 1", false);
  const auto b = run("sweep --spec " + placed + " --threads 2", false);
  REQUIRE(a.status == 0);
  REQUIRE(b.status == 0);
  CHECK(a.output.find("draft_hw") == std::string::npos);  // no placement axis: the old columns
  const auto hw = column(b.output, "draft_hw");
  REQUIRE(hw == std::vector<std::string>{"u280", "xeon-16c"});
  const double td_same = std::stod(column(a.output, "t_draft_s").front());
  const auto td = column(b.output, "t_draft_s");
  // The draft head on the 16-core CPU is far slower than on the V80 itself.
  CHECK(std::stod(td[1]) > 2 * td_same);
  const auto e = run("sweep --spec " + bad + " --out " + (dir / "bad.csv").string());
  CHECK(e.status == 2);
  CHECK(lines(e.output) == 1);
  CHECK_THAT(e.output, Catch::Contains("no device 'tpu0'"));
  std::filesystem::remove_all(dir);
}
