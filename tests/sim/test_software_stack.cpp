// Software stacks (configs/stacks): the host costs both engines charge around the kernels, by
// the same rules (roofline/gpu_stream_schedule.hpp on a GPU, in series on a CPU).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "models/config_error.hpp"
#include "models/config_registry.hpp"
#include "models/drafts/draft_builder.hpp"
#include "models/engine_registry.hpp"
#include "models/software_stack.hpp"
#include "tests/test_workload.hpp"

using test_support::workload;

namespace {

// A minimal stack file with `key: value` beside the required keys, written to `dir/file`.
std::string stack_file_with(const std::filesystem::path& dir, const std::string& file, const std::string& key,
                            const std::string& value) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / file) << "name: s\nkernel_launch_host_us: 0\nper_layer_host_us: 0\nper_step_host_us: 100\n"
                               "cuda_graphs: false\nruntime_reserve_gib: 0\n"
                            << key << ": " << value << "\n";
  return (dir / file).string();
}

// The InputError loading `path` gives ("" when it loads).
std::string load_error(const std::string& path) {
  try {
    models::load_software_stack(path);
  } catch (const models::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("stack: llama.cpp's per-step, per-layer and per-op host work adds serially on a CPU") {
  const models::ConfigRegistry reg;
  models::HardwareSpec bare = reg.hardware("xeon-16c");
  models::HardwareSpec cpp = bare;
  cpp.stack = models::load_software_stack(reg.path("stacks", "llama-cpp"));
  const auto e_bare = models::make_engine("sim", bare);
  const auto e_cpp = models::make_engine("sim", cpp);
  const auto w = workload("llama-68m");
  const auto g = models::verify_graph(*e_bare, w, 4, 512);
  const double ops = double(g.layer_ops.size()) * g.layer_count + double(g.tail_ops.size());
  const double host_s =
      (cpp.stack.per_step_host_us + cpp.stack.per_layer_host_us * g.layer_count + cpp.stack.kernel_launch_host_us * ops) *
      1e-6;
  CHECK(host_s > 0);
  CHECK(e_cpp->step(g).seconds - e_bare->step(g).seconds == Approx(host_s).epsilon(1e-3));
  // The breakdown names the host row.
  const auto cost = e_cpp->step(g, true);
  CHECK(cost.ops.back().op == "(host: llama-cpp)");
  // The analytic engine adds the same host work.
  const auto r_bare = models::make_engine("roofline", bare);
  const auto r_cpp = models::make_engine("roofline", cpp);
  CHECK(r_cpp->step(g).seconds - r_bare->step(g).seconds == Approx(host_s).epsilon(1e-3));
  CHECK(r_cpp->step(g, true).ops.back().op == "(host: llama-cpp)");
}

TEST_CASE("stack: an eager stack costs a GPU step more than the bare kernels, a CUDA graph less than eager") {
  const models::ConfigRegistry reg;
  models::HardwareSpec bare = reg.hardware("h100-sxm");
  models::HardwareSpec eager = bare, graph = bare;
  eager.stack = models::load_software_stack(reg.path("stacks", "pytorch-eager"));
  graph.stack = models::load_software_stack(reg.path("stacks", "vllm-cuda-graph"));
  const auto w = workload("llama-3.2-1b");
  // Both engines charge the stack by the same rules (roofline/gpu_stream_schedule.hpp).
  for (const char* engine : {"sim", "roofline"}) {
    INFO("engine " << engine);
    const auto t = [&](const models::HardwareSpec& hw) {
      const auto e = models::make_engine(engine, hw);
      return models::t_verify(*e, w, 1, 1024);
    };
    CHECK(t(eager) > t(bare));
    CHECK(t(graph) < t(eager));
  }
}

TEST_CASE("stack: host work that overlaps the device costs a GPU step only where it outlasts the GPU's work") {
  const models::ConfigRegistry reg;
  models::HardwareSpec bare = reg.hardware("h100-sxm");
  models::HardwareSpec overlapped = bare, series = bare;
  overlapped.stack = models::load_software_stack(reg.path("stacks", "paper004-engine"));
  REQUIRE(overlapped.stack.host_overlaps_device);
  series.stack = overlapped.stack;
  series.stack.host_overlaps_device = false;
  const double per_step_s = overlapped.stack.per_step_host_us * 1e-6;
  const double launch_s = overlapped.stack.graph_launch_host_us * 1e-6;
  const auto t = [&](const models::HardwareSpec& hw, const char* model) {
    return models::t_verify(*models::make_engine("sim", hw), workload(model), 1, 1024);
  };
  // An 8B step (milliseconds of GPU work) hides the 300 us of bookkeeping: only the launch shows.
  CHECK(t(series, "llama-3.1-8b-instruct") - t(overlapped, "llama-3.1-8b-instruct") ==
        Approx(per_step_s).epsilon(0.01));
  CHECK(t(overlapped, "llama-3.1-8b-instruct") - t(bare, "llama-3.1-8b-instruct") == Approx(launch_s).epsilon(0.05));
  // A 68M step is shorter than the bookkeeping: the host's work ends it.
  REQUIRE(t(bare, "llama-68m") < per_step_s);
  CHECK(t(overlapped, "llama-68m") == Approx(launch_s + per_step_s).epsilon(0.01));
  CHECK(t(series, "llama-68m") > t(overlapped, "llama-68m"));
}

TEST_CASE("stack: both GPU engines charge a stack's host program alike (same launch plan, same host rules)") {
  const models::ConfigRegistry reg;
  for (const char* stack_name : {"huggingface-transformers", "pytorch-eager", "vllm-cuda-graph"})
    for (const char* model_name : {"llama-68m", "llama-2-7b"})
      for (int x : {1, 8}) {
        models::HardwareSpec hw = reg.hardware("a800");
        hw.stack = models::load_software_stack(reg.path("stacks", stack_name));
        models::HardwareSpec bare = hw;
        bare.stack = models::SoftwareStack{};
        const auto roofline = models::make_engine("roofline", hw);
        const auto sim = models::make_engine("sim", hw);
        const auto g = models::verify_graph(*roofline, workload(model_name), x, 1024);
        const double r = roofline->step(g).seconds, s = sim->step(g).seconds;
        const double r_bare = models::make_engine("roofline", bare)->step(g).seconds;
        INFO(stack_name << " " << model_name << " x " << x << ": roofline " << r << " s, sim " << s << " s, bare "
                        << r_bare << " s");
        // The stack never makes a step cheaper than its kernels alone.
        CHECK(r >= r_bare);
        // Same host program on both engines. With one stream the SystemC model times each distinct
        // kernel alone (sim/gpu/gpu_kernel_alone.hpp), which reproduces the closed form: the two
        // must agree to the cycle.
        CHECK(r == Approx(s).epsilon(1e-9));
      }
}

TEST_CASE("stack: a stack file outside any config tree takes the default tree's collectives") {
  // A copy being edited (specdse golden --stack /tmp/mine.yaml) has no collectives/ beside it.
  const models::ConfigRegistry reg;
  const auto dir = std::filesystem::temp_directory_path() / "specdse_test_stack_outside_tree";
  std::filesystem::create_directories(dir);
  const auto copy = dir / "mine.yaml";
  std::filesystem::copy_file(reg.path("stacks", "huggingface-transformers"), copy,
                             std::filesystem::copy_options::overwrite_existing);
  const auto in_tree = models::load_software_stack(reg.path("stacks", "huggingface-transformers"));
  const auto outside = models::load_software_stack(copy.string());
  REQUIRE(in_tree.collectives.has_value());
  REQUIRE(outside.collectives.has_value());
  CHECK(outside.collectives->name == in_tree.collectives->name);
  CHECK(outside.per_step_host_us == in_tree.per_step_host_us);
  std::filesystem::remove_all(dir);
}

TEST_CASE("stack: per-sequence host work grows with the batch, alike on both GPU engines and on a CPU") {
  const models::ConfigRegistry reg;
  for (const char* device : {"h100-sxm", "xeon-16c"}) {
    models::HardwareSpec base = reg.hardware(device);
    base.stack = models::load_software_stack(reg.path("stacks", "pytorch-eager"));
    models::HardwareSpec per_seq = base;
    per_seq.stack.per_sequence_host_us = 40;
    CHECK(per_seq.stack.step_host_us(8) == Approx(base.stack.per_step_host_us + 320));
    for (const char* engine : {"sim", "roofline"}) {
      for (int batch : {1, 16}) {
        INFO(device << " engine " << engine << " batch " << batch);
        const auto w = workload("llama-68m", batch);
        const double with = models::t_verify(*models::make_engine(engine, per_seq), w, 2, 512);
        const double without = models::t_verify(*models::make_engine(engine, base), w, 2, 512);
        // In series (the eager stack does not overlap): exactly the batch's per-sequence work more.
        CHECK(with - without == Approx(40e-6 * batch).epsilon(1e-3));
      }
    }
  }
}

TEST_CASE("stack: per_sequence_host_us is read from a stack file, absent means 0, negative is refused") {
  const models::ConfigRegistry reg;
  CHECK(models::load_software_stack(reg.path("stacks", "vllm-cuda-graph")).per_sequence_host_us == 0);
  const auto dir = std::filesystem::temp_directory_path() / "specdse_test_per_sequence_stack";
  const auto ok = models::load_software_stack(stack_file_with(dir, "ok.yaml", "per_sequence_host_us", "25"));
  CHECK(ok.step_host_us(4) == Approx(200));
  const std::string message = load_error(stack_file_with(dir, "bad.yaml", "per_sequence_host_us", "-1"));
  CHECK_THAT(message, Catch::Contains("bad.yaml") && Catch::Contains("per_sequence_host_us"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("stack: a drafter's pass pays per_draft_pass_host_us once, in series, alike on both GPU engines and on a CPU") {
  const models::ConfigRegistry reg;
  const models::ModelSpec target = reg.model("llama-3.1-8b-instruct");
  models::AlgorithmSpec head = reg.algorithm("eagle3-chain");
  head.draft = models::draft_builder(head.draft.kind, head.name).reshaped_for(head.draft, target);
  const models::StepGraph pass = models::build_draft_pass_graph(head, target, 1, 1024, 4);
  CHECK(pass.draft_pass);
  const auto w = workload("llama-68m", 4);
  for (const char* device : {"h100-sxm", "xeon-16c"}) {
    models::HardwareSpec base = reg.hardware(device);
    base.stack = models::load_software_stack(reg.path("stacks", device == std::string("h100-sxm") ? "vllm-cuda-graph"
                                                                                                   : "llama-cpp"));
    REQUIRE(base.stack.per_draft_pass_host_us == 0);
    models::HardwareSpec proposer = base;
    proposer.stack.per_draft_pass_host_us = 250;
    for (const char* engine : {"sim", "roofline"}) {
      INFO(device << " engine " << engine);
      const auto with = models::make_engine(engine, proposer), without = models::make_engine(engine, base);
      CHECK(with->step(pass).seconds - without->step(pass).seconds == Approx(250e-6).epsilon(1e-3));
      // A target's step is no drafter's pass: unchanged.
      const auto g = models::verify_graph(*without, w, 2, 512);
      CHECK_FALSE(g.draft_pass);
      CHECK(with->step(g).seconds == without->step(g).seconds);
    }
  }
}

TEST_CASE("stack: a head's passes in t_draft pay the proposer's work, not the step's own host work") {
  const models::ConfigRegistry reg;
  models::HardwareSpec hw = reg.hardware("h100-sxm");
  hw.stack = models::load_software_stack(reg.path("stacks", "vllm-v1-inprocess"));
  models::HardwareSpec bare = hw;
  bare.stack = models::SoftwareStack{};
  models::Workload w = workload("llama-3.1-8b-instruct");
  models::AlgorithmSpec head = reg.algorithm("eagle3-chain");
  head.draft = models::draft_builder(head.draft.kind, head.name).reshaped_for(head.draft, w.target);
  w.algorithm = std::make_shared<const models::AlgorithmSpec>(head);
  const std::vector<int> widths = {4, 1, 1};
  for (const char* engine : {"sim", "roofline"}) {
    INFO("engine " << engine);
    const double with = models::t_draft_passes(*models::make_engine(engine, hw), w, widths, 1024);
    const double kernels = models::t_draft_passes(*models::make_engine(engine, bare), w, widths, 1024);
    // Per pass: the proposer's work and the captured pass's launch, never per_step_host_us.
    CHECK(with - kernels ==
          Approx(3 * (hw.stack.per_draft_pass_host_us + hw.stack.graph_launch_host_us) * 1e-6).epsilon(1e-3));
  }
}

TEST_CASE("stack: per_draft_pass_host_us is read from a stack file, absent means 0, negative is refused") {
  const models::ConfigRegistry reg;
  CHECK(models::load_software_stack(reg.path("stacks", "vllm-cuda-graph")).per_draft_pass_host_us == 0);
  CHECK(models::load_software_stack(reg.path("stacks", "vllm-v1-inprocess")).per_draft_pass_host_us > 0);
  const auto dir = std::filesystem::temp_directory_path() / "specdse_test_draft_pass_stack";
  CHECK(models::load_software_stack(stack_file_with(dir, "ok.yaml", "per_draft_pass_host_us", "30")).per_draft_pass_host_us ==
        30);
  const std::string message = load_error(stack_file_with(dir, "bad.yaml", "per_draft_pass_host_us", "-5"));
  CHECK_THAT(message, Catch::Contains("bad.yaml") && Catch::Contains("per_draft_pass_host_us") && Catch::Contains("-5"));
  std::filesystem::remove_all(dir);
}
