// A SystemC session's reports: on stderr, never on stdout, which carries the commands' CSV and JSON.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>

#include "sim/sc_session.hpp"

namespace {

// What `body` writes to file descriptor `fd` (stdout or stderr), both C and C++ streams flushed.
template <typename Body>
std::string captured(int fd, Body body) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  const int saved = ::dup(fd);
  ::dup2(::fileno(file), fd);
  body();
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  ::dup2(saved, fd);
  ::close(saved);
  std::rewind(file);
  std::string text;
  for (int c; (c = std::fgetc(file)) != EOF;) text += char(c);
  std::fclose(file);
  return text;
}

void warn_in_a_session() {
  sim::ScSession session;
  SC_REPORT_WARNING("specdse/test", "a warning from inside a SystemC session");
}

}  // namespace

TEST_CASE("sc session: SystemC's reports go to stderr, never to stdout") {
  CHECK(captured(STDOUT_FILENO, warn_in_a_session).empty());
  const std::string err = captured(STDERR_FILENO, warn_in_a_session);
  CHECK(err.find("a warning from inside a SystemC session") != std::string::npos);
}
