#pragma once
// Published values to print beside specdse's (configs/reference/*.csv). Used only for the
// paper_* and error columns; never as an input to a computation.
#include <map>
#include <string>
#include <vector>

namespace experiments {

// Rows of a reference CSV as column -> text maps ('#' lines are comments).
std::vector<std::map<std::string, std::string>> load_reference(const std::string& path);

}  // namespace experiments
