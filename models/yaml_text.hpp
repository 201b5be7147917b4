#pragma once
// Text specdse writes into the YAML files it produces (fitted bands, imported models, caches):
// names, sources and comments taken from user input may hold YAML's special characters (':',
// '#', quotes, a leading '-' or '&') or line breaks, so they go through these helpers and every
// file written reads back with the same values.
#include <string>

namespace models {

// `text` as one YAML double-quoted scalar (yaml-cpp's emitter: quotes, backslashes and control
// characters escaped), for any value.
std::string yaml_quoted(const std::string& text);

// `text` made safe inside a `# ...` comment: line breaks become spaces.
std::string yaml_comment_text(std::string text);

}  // namespace models
