#include "models/draft_compatibility.hpp"

#include <fmt/format.h>

#include "models/config_error.hpp"

namespace models {

void require_can_draft(const ModelSpec& draft, const ModelSpec& target, const std::string& who) {
  const std::string lead = who.empty() ? "draft" : who;
  if (draft.vocab_size != target.vocab_size)
    throw InputError(fmt::format("{} {}: its vocabulary ({} tokens) is not the target {}'s ({}): its tokens cannot be "
                                 "verified", lead, draft.name, draft.vocab_size, target.name, target.vocab_size));
  if (draft.name == target.name && draft.source_file == target.source_file && draft.weight_format == target.weight_format)
    throw InputError(fmt::format("{} {} is the target itself: it has nothing to speculate with", lead, draft.name));
}

}  // namespace models
