#pragma once
// A JSON string literal through nlohmann-json, for the project's JSON writers (Chrome traces,
// --format json). They keep their own number formatting (fixed digits, so outputs stay
// byte-stable), so only strings go through the library: quotes, backslashes and control
// characters escaped as JSON requires. In sim, the lowest library that writes JSON.
#include <string>

namespace sim {

// `s` as a quoted JSON string. Bytes that are not UTF-8 become U+FFFD (JSON text is UTF-8).
std::string json_string(const std::string& s);

}  // namespace sim
