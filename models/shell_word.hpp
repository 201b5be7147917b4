#pragma once
// A word as a POSIX shell reads it back, for the commands specdse prints for the user to run
// (a plan row's `reproduce`, a sweep's journal, a report's command line).
#include <string>

namespace models {

// As it is when it has only characters the shell leaves alone, else in single quotes (an
// embedded quote closed, escaped and reopened).
std::string shell_word(const std::string& w);

}  // namespace models
