#include "models/yaml_text.hpp"

#include <yaml-cpp/yaml.h>

namespace models {

std::string yaml_quoted(const std::string& text) {
  YAML::Emitter e;
  e << YAML::DoubleQuoted << text;
  return e.c_str();
}

std::string yaml_comment_text(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  return text;
}

}  // namespace models
