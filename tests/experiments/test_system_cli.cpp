// specdse system and the memory-fit check of single-device queries, through the CLI.
#include <catch2/catch.hpp>

#include "tests/experiments/cli_run.hpp"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using cli_test::run;

TEST_CASE("system CLI: a pipelined step prints devices, links and the step, and writes a trace") {
  const auto dir = std::filesystem::temp_directory_path() / ("specdse_system_cli_" + std::to_string(::getpid()));
  const std::string trace = (dir / "step.json").string();
  const auto r = run("system --system specpipe-8x3090-pcie --model llama-3.1-70b --draft llama-3.2-1b --x 8 "
                     "--format csv --trace " + trace);
  REQUIRE(r.status == 0);
  CHECK(cli_test::without_comments(r.output).rfind("kind,name,hardware,stack,host,role,busy_s,bytes,messages,memory_gib,capacity_gib,status", 0) == 0);
  CHECK_THAT(r.output, Catch::Contains("device,gpu0,rtx3090,huggingface-transformers") && Catch::Contains("link,eth-10g") &&
                           Catch::Contains("step,specpipe-8x3090-pcie"));
  std::ifstream in(trace);
  REQUIRE(in.good());
  const std::string json((std::istreambuf_iterator<char>(in)), {});
  CHECK_THAT(json, Catch::Contains("\"traceEvents\"") && Catch::Contains("draft llama-3.2-1b"));
  std::filesystem::remove_all(dir);
  // Same inputs, same bytes.
  const auto again = run("system --system specpipe-8x3090-pcie --model llama-3.1-70b --draft llama-3.2-1b --x 8 --format csv");
  CHECK(again.output == r.output);
}

TEST_CASE("system CLI: bad input exits 2 with one line") {
  auto r = run("system --system no-such-system --model llama-3.1-70b");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("unknown system 'no-such-system'"));
  r = run("system --system eagle-8xh100-nvlink --model llama-68m");  // 12 heads over 8 ranks
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("tensor_parallel") && Catch::Contains("12 attention heads"));
  r = run("system --system eagle-8xh100-nvlink --model llama-3.1-70b --x 0");
  CHECK(r.status == 2);
}

TEST_CASE("latency CLI: a model that does not fit the device is reported infeasible, not timed") {
  const auto r = run("latency --hw rtx3090 --model llama-2-70b --batch 64");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("infeasible") && Catch::Contains("rtx3090") && Catch::Contains("24.00 GiB"));
  CHECK(run("latency --hw rtx3090 --model llama-2-7b").status == 0);
}

TEST_CASE("system CLI: a baseline's collectives print the algorithm and the transport they used") {
  // TP/PP-vLLM on paper 002's two GeForce servers: NCCL's ring through the host on each server.
  const auto r = run("system --system specpipe-2srv-3090-4090-eth --model llama-3.1-70b --baseline tp-pp-vllm --format csv");
  REQUIRE(r.status == 0);
  CHECK(cli_test::without_comments(r.output).rfind("kind,name,hardware,stack,host,role,busy_s,bytes,messages,memory_gib,capacity_gib,status,algorithm,transport", 0) == 0);
  CHECK_THAT(r.output, Catch::Contains("collective,a0+a1+a2+a3,,vllm-cuda-graph,,all-reduce") &&
                           Catch::Contains("nccl ring LL,SHM"));
  // The footer of the table says why vLLM's own kernel did not run.
  const auto t = run("system --system specpipe-2srv-3090-4090-eth --model llama-3.1-70b --baseline tp-pp-vllm --wide");
  CHECK_THAT(t.output, Catch::Contains("not supported on more than two PCIe-only GPUs"));
  // NVLink: vLLM's one-stage kernel over peer-to-peer.
  CHECK_THAT(run("system --system eagle-8xh100-nvlink --model llama-3.1-70b --x 4 --format csv").output,
             Catch::Contains("vllm-custom one-stage,P2P/NVLink"));
  const auto bad = run("system --system specpipe-2srv-3090-4090-eth --model llama-3.1-70b --baseline nope");
  CHECK(bad.status == 2);
  CHECK_THAT(bad.output, Catch::Contains("--baseline") && Catch::Contains("pp-vllm, tp-pp-vllm"));
}
