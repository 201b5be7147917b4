#pragma once
// Whether a standalone model can draft for a target: the one rule every command applies (the
// workload builder, plan's --draft list, serve's and chain-sd's --draft).
#include <string>

#include "models/model_spec.hpp"

namespace models {

// InputError (prefixed by `who`, e.g. "plan: --draft") unless `draft` can draft for `target`:
// the same vocabulary (its tokens are the target's to verify) and not the target itself, the
// same model file in the same weight format (nothing to speculate with; a quantised copy of the
// target is a self-speculative draft and is allowed).
void require_can_draft(const ModelSpec& draft, const ModelSpec& target, const std::string& who);

}  // namespace models
