#pragma once
// "Did you mean" hints: the known name closest to a misspelt one, for every error that names an
// unknown key, option, parameter, command or config.
#include <string>
#include <vector>

namespace models {

// `s` in lower case (ASCII): names compare without case.
std::string lower_case(std::string s);

// Levenshtein distance between two names.
std::size_t edit_distance(const std::string& a, const std::string& b);

// The known name a misspelt `name` most likely meant, or "" when none is close. Compared without
// case, in this order:
//   1. one name starting with the other, the shorter at least 3 characters: a name cut short
//      ("h100" for "h100-sxm" rather than "h200", "llama-3.1-8b" for "llama-3.1-8b-instruct")
//      or with something added ("batchsize" for "batch", "contexts" for "context");
//   2. within 3 edits (a dropped or doubled letter, a plural, a swapped pair), and fewer edits
//      than the shorter name has letters ("xml" is no misspelt "csv");
//   3. an abbreviation: a name of 2-4 characters whose letters appear in order in the other,
//      starting with the same letter ("hw" for "hardware").
// Within a rule the fewest edits win, then the first known name.
std::string closest_name(const std::string& name, const std::vector<std::string>& known);

// " (did you mean 'NAME'?)" for closest_name(name, known), else "".
std::string did_you_mean(const std::string& name, const std::vector<std::string>& known);

}  // namespace models
