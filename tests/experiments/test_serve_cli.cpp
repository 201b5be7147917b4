// `specdse serve`: the serving simulator's command prints percentiles and goodput with and without
// speculation per rate, names where speculation stops paying, gives the same bytes for the same
// seed, and refuses bad input with one line and exit 2.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/experiments/cli_run.hpp"

using cli_test::column;
using cli_test::csv;
using cli_test::run;

TEST_CASE("serve: no SD and EAGLE-3 per rate on one H100, Little's law on every row, same seed same bytes") {
  const std::string args = "serve --hw h100-sxm --model llama-3.1-8b-instruct --rate 1,16 --duration-s 30 --format csv";
  const auto r = run(args, false);
  REQUIRE(r.status == 0);
  CHECK(run(args, false).output == r.output);
  CHECK_THAT(r.output, Catch::Contains("# sd_stops_paying_at_per_s: ") && Catch::Contains("# workload: sharegpt-llama3.1-8b"));
  const auto t = csv(r.output);
  REQUIRE(t.size() == 5);
  const auto& h = t[0];
  for (std::size_t i = 1; i < t.size(); ++i) {
    CHECK(t[i][column(h, "status")] == "ok");
    CHECK(t[i][column(h, "finished")] == t[i][column(h, "requests")]);
    CHECK(std::stod(t[i][column(h, "littles_law_ratio")]) == Approx(1).epsilon(1e-6));
    CHECK(std::stod(t[i][column(h, "kv_peak_fraction")]) <= 1.0);
    CHECK(std::stod(t[i][column(h, "ttft_p50_ms")]) <= std::stod(t[i][column(h, "ttft_p99_ms")]));
  }
  // At one request a second a sequence mostly decodes alone: EAGLE-3 cuts its time per token.
  CHECK(std::stod(t[2][column(h, "tpot_p50_ms")]) < 0.8 * std::stod(t[1][column(h, "tpot_p50_ms")]));
  // The batch grows with the rate.
  CHECK(std::stod(t[3][column(h, "mean_batch")]) > 4 * std::stod(t[1][column(h, "mean_batch")]));
}

TEST_CASE("serve: at a vanishing rate plain decoding's time per token is the single-request step, on one GPU and on a system") {
  // Three requests 100 s apart, 1000-token prompts and 20 output tokens: every step runs one
  // sequence at context bucket 1024.
  const std::string trace = "serve_cli_alone.csv";
  {
    std::ofstream out(trace);
    out << "arrival_s,prompt_tokens,output_tokens\n0,1000,20\n100,1000,20\n200,1000,20\n";
  }
  auto tpot_ms = [&](const std::string& where) {
    const auto r = run("serve " + where + " --method none --arrivals " + trace + " --format csv", false);
    REQUIRE(r.status == 0);
    const auto t = csv(r.output);
    REQUIRE(t.size() == 2);
    CHECK(t[1][column(t[0], "tpot_p50_ms")] == t[1][column(t[0], "tpot_p99_ms")]);
    return std::stod(t[1][column(t[0], "tpot_p50_ms")]);
  };
  // One H100 under serve's default stack: `latency`'s one-token step at context 1024.
  const auto one = csv(run("latency --hw h100-sxm --model llama-3.1-8b-instruct --context 1024 --stack vllm-cuda-graph "
                           "--format csv", false).output);
  REQUIRE(one.size() == 2);
  CHECK(tpot_ms("--hw h100-sxm --model llama-3.1-8b-instruct") ==
        Approx(std::stod(one[1][column(one[0], "t_verify_s")]) * 1e3).epsilon(1e-8));
  // Eight tensor-parallel H100s: `system`'s whole step at that context.
  const auto sys = csv(run("system --system eagle-8xh100-nvlink --model llama-3.1-70b --context 1024 --format csv",
                           false).output);
  std::string step_s;
  for (const auto& row : sys)
    if (row[column(sys[0], "kind")] == "step") step_s = row[column(sys[0], "busy_s")];
  REQUIRE(!step_s.empty());
  CHECK(tpot_ms("--system eagle-8xh100-nvlink --model llama-3.1-70b") == Approx(std::stod(step_s) * 1e3).epsilon(1e-8));
  std::remove(trace.c_str());
}

TEST_CASE("serve: a rate beyond what the GPU drains is marked overloaded, with the rates in the footer's fields") {
  const auto r = run("serve --hw h100-sxm --model llama-3.1-8b-instruct --rate 2,64 --duration-s 30 --format csv", false);
  REQUIRE(r.status == 0);
  const auto t = csv(r.output);
  REQUIRE(t.size() == 5);
  CHECK(t[1][column(t[0], "status")] == "ok");
  CHECK_THAT(t[3][column(t[0], "status")], Catch::StartsWith("overloaded: median TTFT"));
  CHECK_THAT(r.output, Catch::Contains("# overloaded_at_per_s: 64\n"));
}

TEST_CASE("serve: an arrival trace replaces the generated load, bursty arrivals keep the mean rate") {
  const std::string trace = "serve_cli_arrivals.csv";
  {
    std::ofstream out(trace);
    out << "arrival_s,prompt_tokens,output_tokens\n";
    for (int i = 0; i < 40; ++i) out << 0.25 * i << "," << 100 + i << "," << 50 << "\n";
  }
  const auto r = run("serve --hw h100-sxm --model llama-3.1-8b-instruct --arrivals " + trace + " --format csv", false);
  REQUIRE(r.status == 0);
  const auto t = csv(r.output);
  REQUIRE(t.size() == 3);
  CHECK(t[1][column(t[0], "requests")] == "40");
  CHECK(t[1][column(t[0], "finished")] == "40");
  CHECK(run("serve --hw h100-sxm --model llama-3.1-8b-instruct --arrivals " + trace + " --rate 4").status == 2);
  std::ofstream(trace) << "arrival_s,prompt_tokens,output_tokens\n1,100,-5\n";
  const auto bad = run("serve --hw h100-sxm --model llama-3.1-8b-instruct --arrivals " + trace);
  CHECK(bad.status == 2);
  CHECK_THAT(bad.output, Catch::Contains(trace + ": line 2: output_tokens"));
  std::remove(trace.c_str());
  // Gamma arrivals of CV 3 over a long window: about the same number of requests as Poisson.
  const auto poisson = csv(run("serve --hw h100-sxm --model llama-3.1-8b-instruct --method none --rate 2 "
                               "--duration-s 2000 --format csv", false).output);
  const auto bursty = csv(run("serve --hw h100-sxm --model llama-3.1-8b-instruct --method none --rate 2 "
                              "--duration-s 2000 --arrivals gamma:3 --format csv", false).output);
  REQUIRE(poisson.size() == 2);
  REQUIRE(bursty.size() == 2);
  const double n_p = std::stod(poisson[1][column(poisson[0], "requests")]);
  const double n_b = std::stod(bursty[1][column(bursty[0], "requests")]);
  CHECK(n_b == Approx(n_p).epsilon(0.25));
  // Bursts queue: the tail of the time to first token grows.
  CHECK(std::stod(bursty[1][column(bursty[0], "ttft_p99_ms")]) > std::stod(poisson[1][column(poisson[0], "ttft_p99_ms")]));
}

TEST_CASE("serve --plot: a plot script that fails is one line, before any table, and leaves no CSV behind") {
  const std::string png = "serve_cli_failed_plot.png", csv_path = "serve_cli_failed_plot.csv";
  // A "Python" that has matplotlib (its -c check passes) and whose script dies with a traceback.
  const std::string python = "serve_cli_fake_python.sh";
  std::ofstream(python) << "#!/bin/sh\ncase \"$1\" in -c) exit 0;; esac\n"
                           "echo 'Traceback (most recent call last):' >&2\necho '  File \"x.py\"' >&2\n"
                           "echo 'ValueError: no data' >&2\nexit 1\n";
  std::filesystem::permissions(python, std::filesystem::perms::owner_all);
  const std::string args =
      "serve --hw h100-sxm --model llama-3.1-8b-instruct --rate 1 --duration-s 5 --plot " + png + " --python ./" + python;
  const auto r = run(args);
  CHECK(r.status == 2);
  CHECK(r.output == "specdse: error: --plot: the plot script " SPECDSE_SOURCE_DIR
                    "/experiments/plots/serve_latency.py failed (exit 1): ValueError: no data\n");
  CHECK_FALSE(std::ifstream(csv_path).good());
  // A Python that cannot run is refused before the simulation, nothing written.
  const auto missing = run("serve --hw h100-sxm --model llama-3.1-8b-instruct --rate 1 --duration-s 5 --plot " + png +
                           " --python /bin/false");
  CHECK(missing.status == 2);
  CHECK(missing.output == "specdse: error: --plot: the Python '/bin/false' does not run or has no matplotlib\n");
  CHECK_FALSE(std::ifstream(csv_path).good());
  std::remove(csv_path.c_str());
  std::remove(python.c_str());
}

TEST_CASE("serve: bad requests are one-line errors with exit 2") {
  for (const auto& [args, what] : std::vector<std::pair<std::string, std::string>>{
           {"serve --hw h100-sxm --model llama-3.1-8b-instruct --rate 0", "rate"},
           {"serve --hw h100-sxm --model llama-3.1-8b-instruct --workload nope", "available: gsm8k-llama3.1-8b"},
           {"serve --hw v80 --model llama-3.1-8b-instruct", "kind gpu"},
           {"serve --hw rtx3090 --model llama-3.1-70b", "infeasible"},
           {"serve --hw h100-sxm --model llama-3.1-8b-instruct --k 0", "k"},
           {"serve --hw h100-sxm --model llama-3.1-8b-instruct --arrivals gamma:x", "gamma:CV"},
           {"serve --hw h100-sxm --model llama-3.1-8b-instruct --arrivals /nonexistent.csv", "/nonexistent.csv"},
           {"serve --hw h100-sxm --model llama-3.1-8b-instruct --preemption swap", "--swap-link"},
           {"serve --hw h100-sxm --model llama-3.1-8b-instruct --swap-link pcie5-x16", "--preemption swap"},
           {"serve --hw h100-sxm --model llama-3.1-8b-instruct --preemption swap --swap-link nope", "nope"},
           {"serve --hw h100-sxm --model llama-3.1-8b-instruct --preemption swap --swap-link eth-10g", "host link is pcie"},
           {"serve --hw h100-sxm --model llama-3.1-8b-instruct --preemption swap --swap-link pcie5-x16 "
            "--chunked-prefill-tokens 2048", "recompute only"},
           {"serve --hw h100-sxm --model llama-3.1-8b-instruct --scheduler fifo", "scheduler 'fifo' is not registered"},
           {"serve --hw h100-sxm --model llama-3.1-8b-instruct --scheduler vllm-v1 --chunked-prefill-tokens 0",
            "not 0"},
           {"serve --hw h100-sxm --model llama-3.1-8b-instruct --scheduler vllm-v1 --max-num-seqs 4096",
            "default budget of 2048"},
           {"serve --hw h100-sxm --model llama-3.1-8b-instruct --scheduler vllm-v0 --chunked-prefill-tokens 512",
            "--scheduler vllm-v1"},
           {"serve --hw h100-sxm --model llama-3.1-8b-instruct --dispatch greedy", "'greedy' is not a registered"},
           {"serve --hw h200 --model llama-3.1-8b-instruct --workload mtbench-llama3.1-8b-eagle3-k3 --k 4",
            "--k at most 3"},
           {"serve --hw h200 --model llama-3.1-8b-instruct --workload mtbench-llama3.1-8b-eagle3-k3 --method eagle3-tree "
            "--k 30", "tree of depth"}}) {
    const auto r = run(args);
    INFO(args << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains(what));
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  }
}

TEST_CASE("serve: --chunked-prefill-tokens 0 is the option's off value, V0's scheduler") {
  const std::string base = "serve --hw h100-sxm --model llama-3.1-8b-instruct --rate 4 --duration-s 10 --format csv";
  const auto off = run(base + " --chunked-prefill-tokens 0", false);
  REQUIRE(off.status == 0);
  CHECK(off.output == run(base, false).output);
  CHECK_THAT(off.output, Catch::Contains("scheduler vllm-v0"));
}

TEST_CASE("serve --system: a tensor-parallel target that one GPU cannot hold is served, its KV cache over its devices") {
  // Llama-3.1-70B (about 141 GB of weights) does not fit one 80 GB H100.
  const auto one = run("serve --hw h100-sxm --model llama-3.1-70b --rate 1 --duration-s 10 --method none");
  CHECK(one.status == 2);
  CHECK_THAT(one.output, Catch::Contains("infeasible"));
  const auto tp = run("serve --system eagle-8xh100-nvlink --model llama-3.1-70b --rate 1,8 --duration-s 20 --format csv", false);
  REQUIRE(tp.status == 0);
  const auto rows = csv(tp.output);
  REQUIRE(rows.size() == 5);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    CHECK(rows[i][column(rows[0], "finished")] == rows[i][column(rows[0], "requests")]);
    CHECK(std::stod(rows[i][column(rows[0], "littles_law_ratio")]) == Approx(1).epsilon(1e-6));
  }
  // Each GPU holds 1/8 of every layer's KV heads: the cache holds more tokens than one GPU's share
  // of the weights would leave for a whole model's KV.
  const auto kv = tp.output.find("# kv_capacity_tokens: ");
  REQUIRE(kv != std::string::npos);
  CHECK(std::stoll(tp.output.substr(kv + 22)) > 1'000'000);
  // A pipeline of GPUs runs too (a step per stage in flight: serve --system: a pipeline ...), the same bytes again.
  const std::string pp = "serve --system specpipe-8x3090-pcie --model llama-3.1-70b --rate 0.5 --duration-s 20 --method none --format csv";
  const auto a = run(pp, false), b = run(pp, false);
  CHECK(a.status == 0);
  CHECK(a.output == b.output);
  // --hw and --system together, or --stack with a system (its file names each device's stack): errors.
  for (const std::string args : {"serve --hw h100-sxm --system eagle-8xh100-nvlink --model llama-3.1-70b",
                                 "serve --system eagle-8xh100-nvlink --stack vllm-cuda-graph --model llama-3.1-70b"}) {
    const auto r = run(args);
    INFO(args << "\n" << r.output);
    CHECK(r.status == 2);
  }
}

TEST_CASE("serve --system: a pipeline keeps a step per stage in flight (vLLM's virtual engines) unless told one") {
  // Llama-3.1-70B over 8 RTX 3090s: at 2 requests/s one step at a time falls behind; eight virtual
  // engines, each with an eighth of the cache, keep up.
  const std::string pp = "serve --system specpipe-8x3090-pcie --model llama-3.1-70b --method none --rate 0.05,2 "
                         "--duration-s 120 --format csv";
  const auto piped = run(pp, false), one = run(pp + " --virtual-engines 1", false);
  REQUIRE(piped.status == 0);
  REQUIRE(one.status == 0);
  CHECK_THAT(piped.output, Catch::Contains("pipeline: 8 virtual engines (vLLM V0)"));
  CHECK_THAT(one.output, Catch::Contains("pipeline: one step at a time over its 8 stages (--virtual-engines 1)"));
  const auto p = csv(piped.output), o = csv(one.output);
  REQUIRE(p.size() == 3);
  REQUIRE(o.size() == 3);
  auto cell = [](const std::vector<std::vector<std::string>>& t, std::size_t row, const char* col) {
    return std::stod(t[row][column(t[0], col)]);
  };
  // At 2/s one step at a time queues requests for a minute and batches 25 of them; eight engines
  // admit each within a second and decode more than twice as fast.
  CHECK(cell(p, 2, "ttft_p50_ms") < 0.05 * cell(o, 2, "ttft_p50_ms"));
  CHECK(cell(p, 2, "tpot_p50_ms") < 0.5 * cell(o, 2, "tpot_p50_ms"));
  CHECK(cell(p, 2, "throughput_tokens_per_s") > 1.2 * cell(o, 2, "throughput_tokens_per_s"));
  // Nearly alone (0.05/s) a request's steps follow each other either way: within 5 %.
  CHECK(cell(p, 1, "tpot_p50_ms") == Approx(cell(o, 1, "tpot_p50_ms")).epsilon(0.05));
  CHECK(std::stod(p[1][column(p[0], "littles_law_ratio")]) == Approx(1).epsilon(1e-6));
  // More engines than stages, or any on one GPU: one line, exit 2.
  for (const std::string args : {pp + " --virtual-engines 9",
                                 std::string("serve --hw h100-sxm --model llama-3.1-8b-instruct --virtual-engines 2")}) {
    const auto r = run(args);
    INFO(args << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains("--virtual-engines") && Catch::Contains("at most one step per stage"));
  }
}

TEST_CASE("serve --method specpipe-db: alone a request decodes at the specpipe scenario's time between tokens, bad uses refused") {
  // Llama-3.1-70B over 8 RTX 3090s with the 1B draft on the L40, paper 002's w = 64, k = 16; about
  // 20 requests over 10^4 s, each decoding alone.
  const auto served = run("serve --system specpipe-8x3090-pcie --model llama-3.1-70b --method specpipe-db --draft "
                          "llama-3.2-1b --max-num-seqs 8 --rate 0.002 --duration-s 10000 --format csv", false);
  REQUIRE(served.status == 0);
  const auto t = csv(served.output);
  REQUIRE(t.size() == 3);
  const auto& h = t[0];
  CHECK(t[2][column(h, "method")] == "specpipe-db");
  CHECK(t[2][column(h, "finished")] == t[2][column(h, "requests")]);
  const double tpot_s = std::stod(t[2][column(h, "tpot_p50_ms")]) * 1e-3;
  // The scenario's own run of Algorithm 1 on the timeline at one request, context 1024.
  const auto scenario = run("specpipe --system specpipe-8x3090-pcie --model llama-3.1-70b --draft llama-3.2-1b --w 64 "
                            "--k 16 --batch 1 --format csv", false);
  REQUIRE(scenario.status == 0);
  const auto s = csv(scenario.output);
  REQUIRE(s.size() >= 2);
  REQUIRE(s[1][column(s[0], "method")] == "specpipe");
  CHECK(tpot_s == Approx(std::stod(s[1][column(s[0], "tbt_mean_s")])).epsilon(0.15));
  // Four times faster than plain decoding on the same pipeline, alone.
  CHECK(tpot_s < 0.3 * std::stod(t[1][column(h, "tpot_p50_ms")]) * 1e-3);
  CHECK_THAT(served.output, Catch::Contains("specpipe-db: SpecPipe with dynamic batching (paper 002), w = 64, k = 16"));
  // Four 1000-token requests started together (context about 1024, as the scenario holds it): the
  // scenario's SpecPipe-DB at batch 4, within 15 % (the packing's ragged-batch overhead included).
  const std::string four = "serve_cli_four.csv";
  {
    std::ofstream out(four);
    out << "arrival_s,prompt_tokens,output_tokens\n";
    for (int i = 0; i < 4; ++i) out << "0,1000,1000\n";
  }
  const auto batched = csv(run("serve --system specpipe-8x3090-pcie --model llama-3.1-70b --method specpipe-db --draft "
                               "llama-3.2-1b --max-num-seqs 8 --arrivals " + four + " --format csv", false).output);
  std::remove(four.c_str());
  REQUIRE(batched.size() == 3);
  const auto db4 = csv(run("specpipe --system specpipe-8x3090-pcie --model llama-3.1-70b --draft llama-3.2-1b --w 64 "
                           "--k 16 --batch 4 --format csv", false).output);
  std::string db4_tbt;
  for (const auto& row : db4)
    if (row[column(db4[0], "method")] == "specpipe-db") db4_tbt = row[column(db4[0], "tbt_mean_s")];
  REQUIRE(!db4_tbt.empty());
  CHECK(std::stod(batched[2][column(batched[0], "tpot_p50_ms")]) * 1e-3 == Approx(std::stod(db4_tbt)).epsilon(0.15));
  // At 0.1 requests/s for an hour its 64-wide trees fill every stage: its queue grows where plain
  // decoding's eight virtual engines keep up, so it does not pay.
  const auto loaded = run("serve --system specpipe-8x3090-pcie --model llama-3.1-70b --method specpipe-db --draft "
                          "llama-3.2-1b --max-num-seqs 8 --rate 0.1 --duration-s 3600 --format csv", false);
  REQUIRE(loaded.status == 0);
  const auto l = csv(loaded.output);
  REQUIRE(l.size() == 3);
  CHECK_THAT(l[2][column(l[0], "status")], Catch::StartsWith("overloaded"));
  CHECK(l[1][column(l[0], "status")] == "ok");
  CHECK_THAT(loaded.output, Catch::Contains("# sd_not_paying_at_per_s: 0.1\n"));
  // Refused: one GPU, no draft, --w for another method; a batch limit whose steps do not fit says what to lower.
  for (const std::string args : {std::string("serve --hw h100-sxm --model llama-3.1-8b-instruct --method specpipe-db "
                                             "--draft llama-3.2-1b"),
                                 std::string("serve --system specpipe-8x3090-pcie --model llama-3.1-70b --method "
                                             "specpipe-db"),
                                 std::string("serve --hw h100-sxm --model llama-3.1-8b-instruct --w 32"),
                                 std::string("serve --system specpipe-8x3090-pcie --model llama-3.1-70b --method "
                                             "specpipe-db --draft llama-3.2-1b")}) {
    const auto r = run(args);
    INFO(args << "\n" << r.output);
    CHECK(r.status == 2);
  }
  CHECK_THAT(run("serve --system specpipe-8x3090-pcie --model llama-3.1-70b --method specpipe-db --draft llama-3.2-1b").output,
             Catch::Contains("infeasible") && Catch::Contains("a smaller --max-num-seqs"));
}

TEST_CASE("serve --dispatch per-batch: never worse than plain decoding or a static k of 7 where those differ") {
  const std::string base = "serve --hw h100-sxm --model llama-3.1-8b-instruct --rate 1,16 --duration-s 30 --k 7 --format csv";
  const auto by_batch = csv(run(base + " --dispatch per-batch", false).output);
  const auto fixed = csv(run(base, false).output);
  REQUIRE(by_batch.size() == 5);
  REQUIRE(fixed.size() == 5);
  const std::size_t tpot = column(fixed[0], "tpot_p50_ms");
  // Rows: (1, no SD), (1, eagle3-chain), (16, no SD), (16, eagle3-chain).
  for (std::size_t i : {2u, 4u}) {
    INFO(fixed[i][0] << " requests/s");
    const double dispatched = std::stod(by_batch[i][tpot]);
    CHECK(dispatched <= 1.01 * std::stod(fixed[i][tpot]));           // static k = 7
    CHECK(dispatched <= 1.01 * std::stod(fixed[i - 1][tpot]));       // no speculation
  }
  CHECK(run(base + " --dispatch per-batch", false).output.find("mean k drafted") != std::string::npos);
}

TEST_CASE("serve --method draft-model: a draft beside the target at the user's acceptance, bad pairs refused") {
  const std::string base = "serve --hw h100-sxm --model llama-3.1-8b-instruct --method draft-model --draft llama-3.2-1b "
                           "--rate 1 --duration-s 30 --k 4 --format csv";
  // A draft whose tokens are almost never accepted costs its forwards for nothing; a good one pays.
  const auto poor = run(base + " --alpha 0.05", false), good = run(base + " --alpha 0.9", false);
  REQUIRE(poor.status == 0);
  REQUIRE(good.status == 0);
  CHECK(poor.output.find("# sd_not_paying_at_per_s: 1") != std::string::npos);
  CHECK(good.output.find("# sd_not_paying_at_per_s: \n") != std::string::npos);
  // The draft's weights and its own KV per token take room from the cache plain decoding keeps.
  auto field = [](const std::string& out, const std::string& key) {
    const auto at = out.find("# " + key + ": ");
    REQUIRE(at != std::string::npos);
    return std::stoll(out.substr(at + key.size() + 4));
  };
  CHECK(field(good.output, "kv_capacity_tokens") < field(good.output, "kv_capacity_tokens_plain"));
  for (const auto& [args, what] : std::vector<std::pair<std::string, std::string>>{
           {"serve --hw h100-sxm --model llama-3.1-8b-instruct --method draft-model --draft llama-3.2-1b", "--alpha"},
           {"serve --hw h100-sxm --model llama-3.1-8b-instruct --method draft-model --draft llama-2-7b --alpha 0.8",
            "vocabulary"},
           {"serve --hw h100-sxm --model llama-3.1-8b-instruct --method draft-model --draft llama-3.1-8b-instruct "
            "--alpha 0.8", "the target itself"},
           {"serve --system eagle-8xh100-nvlink --model llama-3.1-70b --method draft-model --draft llama-3.2-1b "
            "--alpha 0.8 --draft-device tpu0", "no device 'tpu0'"},
           {"serve --hw h100-sxm --model llama-3.1-8b-instruct --method draft-model --draft llama-3.2-1b --alpha 0.8 "
            "--draft-device gpu0", "--draft-device places"},
           {"serve --hw h100-sxm --model llama-3.1-8b-instruct --alpha 0.8", "--method draft-model"}}) {
    const auto r = run(args);
    INFO(args << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains(what));
  }
}

TEST_CASE("serve --method mtp: the target's own modules at their published acceptance, other targets and chains refused") {
  const std::string base = "serve --hw h100-sxm --model mimo-7b --method mtp --rate 1 --duration-s 30 --format csv";
  const auto r = run(base + " --k 1", false);
  INFO(r.output);
  REQUIRE(r.status == 0);
  const auto t = csv(r.output);
  REQUIRE(t.size() == 3);
  const auto& h = t[0];
  // One module pass drafts a token accepted about 90 % of the time (MiMo's README): with the
  // bonus a step yields 1.9 tokens on average; at one request a second that cuts the time per token.
  CHECK(std::stod(t[2][column(h, "tokens_per_step")]) == Approx(1.9).epsilon(0.02));
  CHECK(std::stod(t[2][column(h, "tpot_p50_ms")]) < 0.7 * std::stod(t[1][column(h, "tpot_p50_ms")]));
  CHECK_THAT(r.output, Catch::Contains("mimo-7b-mtp (2 modules") && Catch::Contains("XiaomiMiMo/MiMo"));
  CHECK(r.output.find("# borrowed: \n") != std::string::npos);  // its acceptance is its own, not the preset's
  // Past the published position a chain needs the user's acceptance, which then holds at every position.
  const auto assumed = run(base + " --k 3 --alpha 0.8", false);
  REQUIRE(assumed.status == 0);
  const auto a = csv(assumed.output);
  CHECK(std::stod(a[2][column(a[0], "tokens_per_step")]) == Approx(1 + 0.8 + 0.64 + 0.512).epsilon(0.02));
  for (const auto& [args, what] : std::vector<std::pair<std::string, std::string>>{
           {"serve --hw h100-sxm --model mimo-7b --method mtp --k 2", "published for 1 draft position"},
           {"serve --hw h100-sxm --model llama-3.1-8b-instruct --method mtp --k 1", "none for llama-3.1-8b-instruct"},
           {"serve --hw h100-sxm --model mimo-7b --method mtp --k 1 --draft llama-3.2-1b", "own modules"}}) {
    const auto e = run(args);
    INFO(args << "\n" << e.output);
    CHECK(e.status == 2);
    CHECK_THAT(e.output, Catch::Contains(what));
  }
}

TEST_CASE("serve --system --method draft-model: the draft on the target's GPU is the one-GPU run, on a CPU of its own it pays its transfers") {
  const std::string draft = " --model llama-2-7b --method draft-model --draft llama-68m --alpha 0.7 --rate 1,4 "
                            "--duration-s 20 --format csv";
  const auto one_gpu = run("serve --hw a800 --stack huggingface-transformers" + draft, false);
  const auto on_gpu = run("serve --system duodecoding-a800-xeon --draft-device gpu" + draft, false);
  const auto on_cpu = run("serve --system duodecoding-a800-xeon" + draft, false);  // placement.draft: cpu
  REQUIRE(one_gpu.status == 0);
  REQUIRE(on_gpu.status == 0);
  REQUIRE(on_cpu.status == 0);
  // Cells of `col` (rows in order) of a command's CSV.
  auto cells = [](const std::string& out, const std::string& col) {
    const auto t = csv(out);
    REQUIRE(!t.empty());
    const std::size_t c = column(t[0], col);
    std::vector<std::string> v;
    for (std::size_t i = 1; i < t.size(); ++i) v.push_back(t[i][c]);
    return v;
  };
  // The system's one GPU with the draft beside the target is the one-GPU deployment: the same
  // steps (a system step and a forward sum the same kernels; equal to rounding).
  for (const char* col : {"tpot_p50_ms", "ttft_p50_ms", "throughput_tokens_per_s"}) {
    const auto a = cells(one_gpu.output, col), b = cells(on_gpu.output, col);
    REQUIRE(a.size() == 4);
    REQUIRE(b.size() == a.size());
    for (std::size_t i = 0; i < a.size(); ++i) CHECK(std::stod(b[i]) == Approx(std::stod(a[i])).epsilon(1e-6));
  }
  // On the CPU the draft's forwards run on its engine (llama.cpp's stack) and its tokens cross the
  // PCIe link; plain decoding is the same run either way.
  const auto plain_gpu = cells(on_gpu.output, "tpot_p50_ms"), plain_cpu = cells(on_cpu.output, "tpot_p50_ms");
  const auto method = cells(on_cpu.output, "method");
  REQUIRE(method.size() == 4);
  for (std::size_t i = 0; i < method.size(); ++i) {
    if (method[i] == "no SD") CHECK(plain_cpu[i] == plain_gpu[i]);
    else CHECK(plain_cpu[i] != plain_gpu[i]);
  }
}

TEST_CASE("serve --acceptance-trace: a published benchmark's replay, one prompt repeated B times, bad files refused") {
  // A SpecDecode-Bench-style record (written here: the project ships none): a 512-token prompt and
  // 201 generated tokens, each position's EAGLE-3 yield 4.
  const std::string trace = "serve_cli_acceptance.jsonl";
  {
    std::ofstream out(trace);
    out << "{\"id\": \"a\", \"prompt_token_ids\": [";
    for (int i = 0; i < 512; ++i) out << (i ? ", " : "") << i;
    out << "], \"acc_eagle\": {\"acc_len\": [";
    for (int i = 0; i < 201; ++i) out << (i ? ", " : "") << 4;
    out << "]}, \"acc_ngram\": {\"acc_len\": [";
    for (int i = 0; i < 201; ++i) out << (i ? ", " : "") << 1;
    out << "]}}\n";
  }
  const auto r = run("serve --hw h100-sxm --model llama-3.1-8b-instruct --acceptance-trace " + trace +
                     " --arrivals batch:8 --trace-record 0 --format csv", false);
  REQUIRE(r.status == 0);
  const auto t = csv(r.output);
  REQUIRE(t.size() == 3);
  const auto& h = t[0];
  CHECK(t[2][column(h, "method")] == "eagle3-chain");
  CHECK(t[2][column(h, "finished")] == "8");
  // k = 3 keeps min(4, 4) tokens a step, every request finishing together.
  CHECK(std::stod(t[2][column(h, "tokens_per_step")]) == Approx(4));
  CHECK(t[2][column(h, "tpot_p50_ms")] == t[2][column(h, "tpot_p99_ms")]);
  CHECK_THAT(r.output, Catch::Contains("acceptance replayed from " + trace + " (record 0 of 1)"));
  // n-gram's yields of 1 propose nothing where no match is found: never more than one token a step.
  const auto ngram = csv(run("serve --hw h100-sxm --model llama-3.1-8b-instruct --method ngram --acceptance-trace " +
                             trace + " --arrivals batch:4 --format csv", false).output);
  REQUIRE(ngram.size() == 3);
  CHECK(std::stod(ngram[2][column(ngram[0], "tokens_per_step")]) == Approx(1));
  // Refused, one line: a record past the file, a method without traced yields, a yield of 0.
  {
    std::ofstream out("serve_cli_bad_acceptance.jsonl");
    out << "{\"prompt_token_ids\": [1, 2], \"acc_eagle\": {\"acc_len\": [1, 0]}}\n";
  }
  for (const std::string args : {"--acceptance-trace " + trace + " --trace-record 1",
                                 "--acceptance-trace " + trace + " --method draft-model --draft llama-3.2-1b --alpha 0.8",
                                 std::string("--acceptance-trace serve_cli_bad_acceptance.jsonl")}) {
    const auto bad = run("serve --hw h100-sxm --model llama-3.1-8b-instruct " + args);
    INFO(args << "\n" << bad.output);
    CHECK(bad.status == 2);
    CHECK_THAT(bad.output, Catch::Contains("acceptance"));
  }
  CHECK_THAT(run("serve --hw h100-sxm --model llama-3.1-8b-instruct --acceptance-trace serve_cli_bad_acceptance.jsonl").output,
             Catch::Contains("line 1: acc_eagle.acc_len: expected integers >= 1, got 0"));
  std::remove(trace.c_str());
  std::remove("serve_cli_bad_acceptance.jsonl");
}

TEST_CASE("serve --arrivals batch:B refuses the flags of arrivals over time") {
  for (const std::string flag : {"--rate 4", "--requests 5", "--duration-s 10"}) {
    const auto r = run("serve --hw h100-sxm --model llama-3.1-8b-instruct --arrivals batch:8 " + flag);
    INFO(flag << "\n" << r.output);
    CHECK(r.status == 2);
    CHECK_THAT(r.output, Catch::Contains("a closed batch"));
  }
}

TEST_CASE("serve --preemption swap: a full cache copies requests to the CPU and back, the footer says over what") {
  // Llama-2-7B (multi-head attention: 0.5 MiB of KV a token) on an A800 fills its cache at 8/s.
  const std::string args = "serve --hw a800 --model llama-2-7b --method none --rate 8 --duration-s 60 --format csv";
  const auto recompute = run(args, false);
  const auto swap = run(args + " --preemption swap --swap-link pcie4-x16", false);
  REQUIRE(recompute.status == 0);
  REQUIRE(swap.status == 0);
  CHECK_THAT(swap.output, Catch::Contains("preemption by swap (vLLM V0): KV copied over pcie4-x16"));
  const auto a = csv(recompute.output), b = csv(swap.output);
  REQUIRE(a.size() == 2);
  REQUIRE(b.size() == 2);
  CHECK(std::stoll(a[1][column(a[0], "preemptions")]) > 0);
  CHECK(std::stoll(b[1][column(b[0], "preemptions")]) > 0);
  CHECK(b[1][column(b[0], "finished")] == b[1][column(b[0], "requests")]);  // 4 GiB holds what is swapped out
  CHECK(a[1] != b[1]);
}

TEST_CASE("serve --method eagle3-tree: EAGLE's tree at low load beats the chain, names its calibration, bounds --k") {
  const std::string common = "serve --hw h100-sxm --model llama-3.1-8b-instruct --rate 1 --duration-s 30 --format csv";
  const auto chain = run(common, false);
  const auto tree = run(common + " --method eagle3-tree --k 10", false);
  REQUIRE(chain.status == 0);
  REQUIRE(tree.status == 0);
  CHECK_THAT(tree.output, Catch::Contains("eagle3-tree of 10 draft nodes, depth 5") &&
                              Catch::Contains("paper 000's measured chain AAT"));
  const auto tc = csv(chain.output), tt = csv(tree.output);
  REQUIRE(tc.size() == 3);
  REQUIRE(tt.size() == 3);
  const auto& h = tt[0];
  // Plain decoding is the same run either way.
  CHECK(tt[1][column(h, "tpot_p50_ms")] == tc[1][column(h, "tpot_p50_ms")]);
  // Alone, a 10-node tree keeps more tokens a step and takes less time per token than a chain of 3.
  CHECK(std::stod(tt[2][column(h, "tokens_per_step")]) > std::stod(tc[2][column(h, "tokens_per_step")]) + 0.5);
  CHECK(std::stod(tt[2][column(h, "tpot_p50_ms")]) < std::stod(tc[2][column(h, "tpot_p50_ms")]));
  // A chain's --k stops at 15, a tree's at the table's largest.
  const auto long_chain = run("serve --hw h100-sxm --model llama-3.1-8b-instruct --k 20");
  CHECK(long_chain.status == 2);
  CHECK_THAT(long_chain.output, Catch::Contains("--k 20") && Catch::Contains("eagle3-tree"));
  CHECK(run("serve --hw h100-sxm --model llama-3.1-8b-instruct --method eagle3-tree --k 85", false).status == 2);
}
