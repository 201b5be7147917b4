#pragma once
// "Did you mean" hints: the known name closest to a misspelt one, for every error that names an
// unknown key, option, parameter or config.
#include <string>
#include <vector>

namespace models {

// Levenshtein distance between two names.
std::size_t edit_distance(const std::string& a, const std::string& b);

// " (did you mean 'NAME'?)" for the known name within 3 edits of `name` (the first of the
// closest), else "".
std::string did_you_mean(const std::string& name, const std::vector<std::string>& known);

}  // namespace models
