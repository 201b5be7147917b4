#pragma once
// A system (configs/systems/<name>.yaml): devices (hardware configs x count, each with the
// software stack that runs it), links joining them, and a placement: the target's pipeline
// stages (each a tensor-parallel group of devices with a layer range) and the draft's device.
// Parse -> validated spec (here) -> construct (sim/system). Layer ranges are checked against
// the target model when it is known (validate_placement), because the same system file serves
// any model with the `layers: even` shorthand.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/hardware_spec.hpp"
#include "models/link_spec.hpp"
#include "models/model_spec.hpp"
#include "models/software_stack.hpp"

namespace models {

class ConfigRegistry;

struct SystemDevice {
  std::string name;       // instance name: group name, plus the index when count > 1 (gpu0, gpu1, ...)
  std::string group;      // the devices: entry it came from
  HardwareSpec hardware;  // with .stack set to the device's software stack
};

// A directed connection between two devices over a link type. A `switch` topology gives each
// device one egress port shared by all its sends; `chain` and `ring` give each neighbour pair
// its own pair of directed lanes.
// The most directed links a system may have: a switch of 1024 devices (1024 x 1023 pairs).
constexpr std::size_t kMaxSystemLinks = std::size_t(1024) * 1023;

struct SystemLink {
  std::string name;       // e.g. "pcie4-x16:gpu0->gpu1" or "eth-10g:port:gpu3"
  LinkSpec spec;
  int from = -1, to = -1; // device indices
  int lane = -1;          // index into SystemSpec::lanes: the resource a send occupies
};

struct PipelineStage {
  std::vector<int> devices;   // tensor-parallel group (one device: no TP)
  int first_layer = 0;        // inclusive
  int last_layer = -1;        // inclusive; -1 before the model is known (even split)
};

struct MemoryOptions {
  long long kv_tokens = 0;  // KV cache reserved per sequence; 0: context + x of the query
  // How decoder-layer parameters are counted: "exact" (from the model's shapes, GQA included)
  // or "dense-attention" (4 d^2 + 3 d f, the approximation paper 002 §4.5 states for Table 1).
  std::string parameter_rule = "exact";
};

// The methods a system's `method_stacks:` may name: those that run under a stack of their own
// (paper 002's EAGLE-3 in the pipeline, as EAGLE's public code runs it).
constexpr const char* kPipelineEagle3Method = "pp+eagle3";
constexpr const char* kMethodsWithOwnStack[] = {kPipelineEagle3Method};
// The pipeline scenario's own methods (its rows' `method`): a baseline may not take one of these
// names, or its row would read as that method's (tests/search check the list against the rows).
constexpr const char* kPipelineOwnMethods[] = {"specpipe", "specpipe-db", "pp", "pp+specinfer-tree",
                                               kPipelineEagle3Method};

struct SystemSpec {
  std::string name;
  std::string source_file;
  std::string description;
  std::vector<SystemDevice> devices;
  std::vector<std::string> lanes;            // link resources (directed lane or egress port)
  std::vector<SystemLink> links;             // directed device pairs and the lane they use
  // (from, to) -> index into links, kept by the loader: link_between is a lookup, not a scan (a
  // switch of N devices has N^2 links, and loading checked each new one against all before it).
  std::map<std::pair<int, int>, std::size_t> link_index;
  std::vector<PipelineStage> stages;         // target placement, in pipeline order
  bool even_layers = false;                  // stage layer ranges split evenly when the model is known
  int draft_device = -1;                     // -1: no draft placed
  MemoryOptions memory;
  // Baselines that run the same placement under another software stack (`baseline_stacks:` of
  // method name -> stack config), e.g. paper 002's PP-vLLM: the target's devices with vLLM's
  // CUDA-graph engine instead of the system's own stack.
  std::map<std::string, SoftwareStack> baseline_stacks;
  // Baselines that regroup the target's devices: one pipeline stage per device group of the
  // `devices:` list, tensor parallel within it (`baseline_tp_stacks:` of method name -> stack),
  // e.g. paper 002's TP/PP-vLLM: tensor parallel inside each server, pipelined across servers.
  std::map<std::string, SoftwareStack> baseline_tp_stacks;
  // A scenario's own methods that ran under another stack than the devices' (`method_stacks:` of
  // method name -> stack), e.g. paper 002's PP+EAGLE-3 from EAGLE's public code, which spreads
  // the model over the GPUs with accelerate's hooks. Keys: kMethodsWithOwnStack (a load error
  // otherwise, whichever command loads the system).
  std::map<std::string, SoftwareStack> method_stacks;

  int device_index(const std::string& name) const;  // -1 if absent
  // Where a draft runs when nothing else names its device: placement.draft, else the target's
  // first device (the first stage's lead rank).
  int draft_or_lead_device() const;
  // Whether `device` holds target layers (is a rank of some stage).
  bool holds_target(int device) const;
  // The devices a draft head placed on `device` runs on: the first stage's tensor-parallel group
  // when `device` is one of its ranks (1/tp of the head on each, as vLLM runs an EAGLE head with
  // the target's first layers), else `device` alone.
  std::vector<int> head_ranks(int device) const;
  // The link from device a to device b, or null.
  const SystemLink* link_between(int a, int b) const;
  // Every config file the system was built from, first seen first, no repeats: the system's own,
  // each device's hardware and software stack (with the collectives it names), each link's and
  // each baseline or method stack's. What a reproduction's manifest lists as its inputs.
  std::vector<std::string> config_files() const;
  // Fills even layer ranges for `target` and checks that the stages cover its layers 0..n-1
  // exactly once, in order; InputError naming the system file otherwise.
  void validate_placement(const ModelSpec& target);
  // Whether validate_placement(target) would leave this placement as it is (and pass): callers
  // that only read the placement then use the system itself instead of a placed copy (a copy of
  // the whole spec per memory check or system step was a fifth of an EAGLE heat map's time).
  bool placed_for(const ModelSpec& target) const;
  // The system as validate_placement(target) leaves it: itself where that changes nothing, else a
  // placed copy, kept in `copy` (InputError as validate_placement's).
  const SystemSpec& placed(const ModelSpec& target, std::optional<SystemSpec>& copy) const;
};

SystemSpec load_system(const std::string& path, const ConfigRegistry& registry);
// A system of one device (named after its hardware) that holds the target whole and may hold a
// draft beside it: what `--hw H` means to a command that takes a system. The hardware keeps its
// software stack.
SystemSpec single_device_system(const HardwareSpec& hardware);
// Two devices joined by `link` both ways, each direction its own lane: the target whole on
// device 0 (named "target"), a draft placed on device 1 (named after its hardware): what
// `--draft-hw H --draft-link L` means.
SystemSpec target_and_draft_system(const HardwareSpec& target, const HardwareSpec& draft, const LinkSpec& link);

// The system with every device of the target's stages running `stack` (the draft's device keeps
// its own).
SystemSpec with_target_stack(SystemSpec system, const SoftwareStack& stack);

// The system with the target's devices regrouped: one stage per device group (in the order the
// current stages reach them), tensor parallel within it, layers split evenly; InputError naming
// the system when a group's devices have no ring of links.
SystemSpec with_group_tensor_parallel(SystemSpec system);

}  // namespace models
