#include "models/shell_word.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace models {

std::string shell_word(const std::string& w) {
  const bool plain = !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_-./@:=,+%").find(c) != std::string_view::npos;
  });
  if (plain) return w;
  std::string q = "'";
  for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace models
