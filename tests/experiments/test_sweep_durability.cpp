// Sweep outputs under damage and odd paths: a journal row whose result changed is computed
// again on resume; worker processes die with a killed sweep, so its resume is not refused;
// an output reached through a symbolic link is locked and written as its target, the link
// kept; no lock file stays beside an output, and removing it lets no two runs in at once.
#include <catch2/catch.hpp>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "experiments/output/output_lock.hpp"
#include "sim/io/output_path.hpp"
#include "experiments/output/table.hpp"
#include "experiments/sweep/sweep_runner.hpp"
#include "models/config_error.hpp"
#include "tests/experiments/cli_run.hpp"
#include "tests/experiments/sweep_test_support.hpp"

using namespace sweep_test;

namespace {

// Six points on the roofline engine: milliseconds.
const char* const kSpec = R"(name: durability
axes:
  hardware: v80
  model: llama-3.1-8b-instruct
  algorithm: longspec-tree
  context: [128, 1024]
  memory.bandwidth_gbs: [100, 400, 1600]
)";

std::vector<std::string> rows_of(const std::string& output) {
  const std::string csv = sweep_test::body(output);
  std::vector<std::string> rows;
  for (std::size_t pos = csv.find('\n') + 1; pos < csv.size();) {
    const std::size_t end = csv.find('\n', pos);
    rows.push_back(csv.substr(pos, end - pos));
    pos = end + 1;
  }
  return rows;
}

// The journal a run killed after `n` rows leaves (led by the fingerprint of the output `full`).
std::string journal_of(const experiments::SweepSpec& spec, const std::string& full, const std::vector<std::string>& rows,
                       std::size_t n) {
  std::string j = sweep_test::fingerprint(full) + experiments::sweep_journal_header(spec) + "\n";
  for (std::size_t i = 0; i < n; ++i) j += experiments::sweep_journal_row(rows[i]) + "\n";
  return j;
}

// The names in folder `d` (hidden ones included).
std::set<std::string> entries(const fs::path& d) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(d)) names.insert(e.path().filename().string());
  return names;
}

// The processes whose parent is `parent` (from /proc).
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    std::ifstream in(e.path() / "stat");
    std::string stat;
    std::getline(in, stat);
    const auto close = stat.rfind(')');  // the command name may hold spaces and parentheses
    if (close == std::string::npos) continue;
    char state = 0;
    long ppid = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %ld", &state, &ppid) == 2 && ppid == parent)
      out.push_back(pid_t(std::stol(name)));
  }
  return out;
}

// Whether process `pid` is still running (not gone, not a zombie waiting to be reaped).
bool running(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return false;
  const auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z' && stat[close + 2] != 'X';
}

}  // namespace

TEST_CASE("journal rows carry a CRC-32 of the output row, zlib's", "[sweep][safe-output]") {
  // The check value of CRC-32/ISO-HDLC, as zlib.crc32(b"123456789") gives it.
  CHECK(experiments::sweep_journal_row("123456789") == "123456789,cbf43926");
  CHECK(experiments::sweep_journal_row("") == ",00000000");
}

TEST_CASE("a journal row whose result was changed or holds a NUL byte is computed again on resume",
          "[sweep][safe-output]") {
  const auto d = temp_dir("journal_crc");
  const auto spec = experiments::load_sweep_spec(write(d / "s.yaml", kSpec));
  const models::ConfigRegistry reg;
  experiments::SweepRunOptions o;
  o.threads = 1;
  o.out_path = (d / "full.csv").string();
  experiments::run_sweep(spec, reg, o);
  const std::string full = read(o.out_path);
  const auto rows = rows_of(full);
  REQUIRE(rows.size() == spec.size());
  CHECK(full.find("row_crc32") == std::string::npos);  // the checksums are the journal's only

  o.out_path = (d / "out.csv").string();
  const std::string journal_path = experiments::sweep_journal_path(o.out_path);
  const std::string intact = journal_of(spec, full, rows, 4);
  // Row 2's result cells follow its 8 point cells (7 and the bandwidth axis); damage the first.
  const std::size_t header = sweep_test::fingerprint(intact).size();
  const std::size_t row2 = intact.find('\n', intact.find('\n', header) + 1) + 1;
  std::size_t result = row2;
  for (int comma = 0; comma < 8; ++comma) result = intact.find(',', result) + 1;
  REQUIRE(result < intact.find('\n', row2));
  REQUIRE(std::isdigit(static_cast<unsigned char>(intact[result])));
  struct Damage {
    const char* what;
    std::string journal;
  };
  std::string changed = intact, nul = intact;
  changed[result] = changed[result] == '7' ? '3' : '7';
  nul[result] = '\0';
  for (const auto& [what, journal] : {Damage{"a changed value", changed}, Damage{"a NUL byte", nul}}) {
    INFO(what);
    write(journal_path, journal);
    const auto stats = experiments::run_sweep(spec, reg, o);
    CHECK(stats.reused == 1);
    CHECK(stats.computed == spec.size() - 1);
    CHECK(stats.dropped.find("row 2: its checksum does not match") != std::string::npos);
    CHECK(read(o.out_path) == full);
    CHECK_FALSE(fs::exists(journal_path));
    fs::remove(o.out_path);
  }

  // An intact journal is resumed whole, without a word.
  write(journal_path, intact);
  auto stats = experiments::run_sweep(spec, reg, o);
  CHECK(stats.reused == 4);
  CHECK(stats.dropped.empty());
  CHECK(read(o.out_path) == full);
  fs::remove(o.out_path);

  // A journal without checksums (an older specdse's) is not trusted.
  const std::string plain = sweep_test::body(full);
  write(journal_path, plain.substr(0, plain.find('\n') + 1) + rows[0] + "\n" + rows[1] + "\n");
  stats = experiments::run_sweep(spec, reg, o);
  CHECK(stats.reused == 0);
  CHECK(stats.dropped.find("without row checksums") != std::string::npos);
  CHECK(read(o.out_path) == full);
  fs::remove(o.out_path);

  // The command says so on stderr, in one line, and still exits 0 (--quiet keeps it).
  write(journal_path, changed);
  const auto r = cli_test::run("sweep --quiet --threads 1 --spec " + (d / "s.yaml").string() + " --out " + o.out_path);
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.rfind("specdse: warning: " + journal_path + ": row 2: its checksum does not match", 0) == 0);
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  CHECK(read(o.out_path) == full);

  // In an output (no checksums: its bytes are the result's), a NUL byte is damage too.
  std::string damaged = full;
  const std::size_t fp = sweep_test::fingerprint(full).size();
  damaged[full.find('\n', full.find('\n', fp) + 1) + 50] = '\0';
  write(o.out_path, damaged);
  stats = experiments::run_sweep(spec, reg, o);
  CHECK(stats.reused == 1);
  CHECK(stats.dropped.find("row 2: it holds a NUL byte") != std::string::npos);
  CHECK(read(o.out_path) == full);
  fs::remove_all(d);
}

TEST_CASE("worker processes die with a sweep killed by SIGKILL, so its resume is not refused",
          "[sweep][safe-output]") {
  const auto d = temp_dir("worker_death");
  // sim-clocked points take minutes each: the workers are mid-point when the parent is killed.
  const std::string spec = write(d / "s.yaml", R"(name: slow
axes:
  hardware: v80
  model: llama-3.1-8b-instruct
  algorithm: longspec-tree
  context: [128, 1024]
)");
  const std::string out = (d / "out.csv").string();
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    ::execl(SPECDSE_SPECDSE_EXE, SPECDSE_SPECDSE_EXE, "sweep", "--quiet", "--engine", "sim-clocked", "--threads", "2",
            "--spec", spec.c_str(), "--out", out.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::vector<pid_t> workers;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (workers.size() < 2 && std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(child, &status, WNOHANG) == child) break;
    workers = children_of(child);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(child, SIGKILL);
  const auto killed = std::chrono::steady_clock::now();
  ::waitpid(child, nullptr, 0);
  REQUIRE(workers.size() == 2);

  // The resume takes the lock at once (well within the second allowed; it used to wait for the
  // workers' points: minutes here).
  std::optional<experiments::OutputLock> lock;
  double waited_s = 0;
  while (!lock) {
    try {
      lock.emplace(experiments::OutputLock::for_file(out), out);
    } catch (const models::InputError&) {
      waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
      if (waited_s > 5) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  INFO("lock free " << waited_s << " s after the kill");
  // The kernel delivers the death signal asynchronously: a worker may still show as running for a
  // moment after the lock is free. Allow it two seconds (a worker left behind computes for minutes).
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  bool workers_left = std::any_of(workers.begin(), workers.end(), running);
  while (workers_left && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    workers_left = std::any_of(workers.begin(), workers.end(), running);
  }
  for (pid_t w : workers)
    if (running(w)) ::kill(w, SIGKILL);  // never leave them computing, whatever the outcome
  CHECK(lock.has_value());
  CHECK(waited_s < 1.0);
  CHECK_FALSE(workers_left);
  lock.reset();
  fs::remove_all(d);
}

TEST_CASE("a sweep through a symbolic link locks and writes the link's target, and the link stays",
          "[sweep][safe-output]") {
  const auto d = temp_dir("symlink");
  const std::string spec = write(d / "s.yaml", kSpec);
  const auto plain = d / "plain.csv";
  REQUIRE(cli_test::run("sweep --quiet --spec " + spec + " --out " + plain.string()).status == 0);
  const std::string full = read(plain);
  fs::create_directories(d / "data");
  const auto target = d / "data" / "real.csv";
  const auto link = d / "link.csv";
  fs::create_symlink("data/real.csv", link);  // relative: to the link's folder
  CHECK(sim::resolve_output_path(link.string()) == target.string());
  CHECK(experiments::OutputLock::for_file(link.string()) == (d / "data" / ".real.csv.lock").string());
  CHECK(experiments::sweep_journal_path(link.string()) == target.string() + ".partial");

  // One lock for both spellings, whichever the running sweep used.
  for (const auto& [held, other] : {std::pair{target, link}, std::pair{link, target}}) {
    const experiments::OutputLock running(experiments::OutputLock::for_file(held.string()), held.string());
    const auto second = cli_test::run("sweep --quiet --spec " + spec + " --out " + other.string());
    INFO(second.output);
    CHECK(second.status == 2);
    CHECK(second.output.find("another specdse run is writing it") != std::string::npos);
  }

  // The target is written (it did not exist: a dangling link is followed too), the link kept.
  auto r = cli_test::run("sweep --quiet --spec " + spec + " --out " + link.string());
  REQUIRE(r.status == 0);
  CHECK(fs::is_symlink(link));
  CHECK(fs::is_regular_file(fs::symlink_status(target)));
  CHECK(read(target) == full);
  // Again: resumed whole from the finished target, and written back through the link.
  r = cli_test::run("sweep --spec " + spec + " --out " + link.string());
  CHECK(r.output.find("6 resumed") != std::string::npos);
  CHECK(fs::is_symlink(link));
  CHECK(read(target) == full);
  CHECK(entries(d / "data") == std::set<std::string>{"real.csv"});  // no journal, no lock file

  // write_file_atomic (every other output, and sweep merge) writes through a link the same way.
  experiments::write_file_atomic(link.string(), "a\n");
  CHECK(fs::is_symlink(link));
  CHECK(read(target) == "a\n");

  // A loop of links is a one-line error naming the path, exit 2.
  fs::create_symlink("loop_b.csv", d / "loop_a.csv");
  fs::create_symlink("loop_a.csv", d / "loop_b.csv");
  r = cli_test::run("sweep --quiet --spec " + spec + " --out " + (d / "loop_a.csv").string());
  INFO(r.output);
  CHECK(r.status == 2);
  CHECK(r.output.find((d / "loop_a.csv").string() + ": ") != std::string::npos);
  CHECK(r.output.find("oo many levels of symbolic links") != std::string::npos);
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  fs::remove_all(d);
}

TEST_CASE("no lock file stays beside a sweep output or in a reproduce folder after a run", "[sweep][safe-output]") {
  const auto d = temp_dir("lock_files");
  const std::string spec = write(d / "s.yaml", kSpec);
  REQUIRE(cli_test::run("sweep --quiet --spec " + spec + " --out " + (d / "out.csv").string()).status == 0);
  CHECK(entries(d) == std::set<std::string>{"s.yaml", "out.csv"});
  // A run that ends in an error lets go the same way.
  write(d / "other.csv", "index,something_else\n0,1\n");
  CHECK(cli_test::run("sweep --quiet --spec " + spec + " --out " + (d / "other.csv").string()).status == 2);
  CHECK_FALSE(fs::exists(d / ".other.csv.lock"));
  // The zero-byte lock file a killed run leaves is taken over and removed.
  write(d / ".again.csv.lock", "");
  REQUIRE(cli_test::run("sweep --quiet --spec " + spec + " --out " + (d / "again.csv").string()).status == 0);
  CHECK_FALSE(fs::exists(d / ".again.csv.lock"));
  const auto repro = d / "repro";
  REQUIRE(cli_test::run("reproduce table1 --no-plots --quiet --out " + repro.string()).status == 0);
  CHECK_FALSE(fs::exists(repro / ".specdse.lock"));

  // The lock itself: refused while held, its file gone with its holder, taken again after.
  const std::string lock_file = experiments::OutputLock::for_file((d / "x.csv").string());
  {
    const experiments::OutputLock held(lock_file, "x.csv");
    CHECK(fs::exists(lock_file));
    CHECK_THROWS_AS(experiments::OutputLock(lock_file, "x.csv"), models::InputError);
  }
  CHECK_FALSE(fs::exists(lock_file));
  {
    const experiments::OutputLock again(lock_file, "x.csv");
    CHECK(fs::exists(lock_file));
  }
  fs::remove_all(d);
}

TEST_CASE("output locks that remove their file still let one holder in at a time", "[sweep][safe-output]") {
  // Processes take and drop one lock as fast as they can; inside it each creates a marker file
  // that must not exist (O_EXCL) and removes it before letting go. Without the check that the
  // locked file is still the one under the name, a locker that opened the file just before its
  // holder removed it gets in beside the next one, and a marker collides.
  const auto d = temp_dir("lock_race");
  const std::string lock_file = (d / ".out.csv.lock").string();
  const std::string marker = (d / "inside").string();
  constexpr int kProcesses = 4;
  std::vector<pid_t> pids;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      int held = 0;
      const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(800);
      while (std::chrono::steady_clock::now() < end) {
        try {
          const experiments::OutputLock lock(lock_file, "out.csv");
          const int fd = ::open(marker.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644);
          if (fd < 0) ::_exit(3);  // someone else is inside
          ::close(fd);
          ::unlink(marker.c_str());
          ++held;
        } catch (const models::InputError&) {
        }
      }
      ::_exit(held > 0 ? 0 : 4);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    INFO("exit 3: two holders at once; 4: never got the lock");
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  CHECK_FALSE(fs::exists(lock_file));
  fs::remove_all(d);
}

TEST_CASE("a sweep output or journal computed under other settings or inputs is refused, not resumed",
          "[sweep][safe-output]") {
  const auto d = temp_dir("fingerprint");
  const std::string spec64 = write(d / "s64.yaml", std::string("x_max: 64\n") + kSpec);
  const std::string spec8 = write(d / "s8.yaml", std::string("x_max: 8\n") + kSpec);
  const std::string out = (d / "out.csv").string();
  REQUIRE(cli_test::run("sweep --quiet --threads 1 --spec " + spec64 + " --out " + out).status == 0);
  const std::string full = read(out);
  CHECK_THAT(full, Catch::StartsWith("# sweep_settings: x_max=64 x_search=every_x\n# sweep_build: specdse "));
  // Another x_max: its best x could not be this file's (x up to 64), so nothing is kept.
  const auto other_x = cli_test::run("sweep --quiet --threads 1 --spec " + spec8 + " --out " + out);
  CHECK(other_x.status == 2);
  CHECK_THAT(other_x.output, Catch::Contains("computed under other settings, inputs or build") &&
                                 Catch::Contains("'sweep_settings: x_max=64 x_search=every_x' there") &&
                                 Catch::Contains("'sweep_settings: x_max=8 x_search=every_x' now"));
  CHECK(read(out) == full);  // the file is left as it was
  // The same from a journal a killed run left.
  const auto rows = rows_of(full);
  write(experiments::sweep_journal_path(out), journal_of(experiments::load_sweep_spec(spec64), full, rows, 3));
  fs::remove(out);
  CHECK(cli_test::run("sweep --quiet --threads 1 --spec " + spec8 + " --out " + out).status == 2);
  fs::remove(experiments::sweep_journal_path(out));
  REQUIRE(cli_test::run("sweep --quiet --threads 1 --spec " + spec64 + " --out " + out).status == 0);
  // A config folder whose board differs: the rows were timed on the other board.
  const auto configs = d / "configs";
  fs::copy(SPECDSE_CONFIG_DIR, configs, fs::copy_options::recursive);
  {
    std::string board = read(configs / "hardware" / "v80.yaml");
    REQUIRE(board.find("capacity_gib: 63.3") != std::string::npos);
    board.replace(board.find("capacity_gib: 63.3"), 18, "capacity_gib: 48.0");  // another board, same name
    write(configs / "hardware" / "v80.yaml", board);
  }
  const auto other_board =
      cli_test::run("--config-dir " + configs.string() + " sweep --quiet --threads 1 --spec " + spec64 + " --out " + out);
  CHECK(other_board.status == 2);
  CHECK_THAT(other_board.output, Catch::Contains("input hardware/v80.yaml: "));
  CHECK(std::count(other_board.output.begin(), other_board.output.end(), '\n') == 1);
  // Under the same folder again it resumes every row, without a word.
  const auto same = cli_test::run("sweep --threads 1 --spec " + spec64 + " --out " + out);
  CHECK(same.status == 0);
  CHECK_THAT(same.output, Catch::Contains("(6 resumed, 0 computed)") || Catch::Contains("6 resumed"));
  fs::remove_all(d);
}
