// Replays fuzz inputs through a target's LLVMFuzzerTestOneInput without libFuzzer, so every
// build (any compiler) runs the seed corpora as ordinary tests. Arguments: files or folders
// (every regular file in a folder, in name order). Exit 0 when every input was handled; an
// escaping exception or a crash fails the test and the last "replaying" line names the input.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg = argv[i];
    if (fs::is_directory(arg)) {
      std::vector<fs::path> files;
      for (const auto& entry : fs::directory_iterator(arg))
        if (entry.is_regular_file()) files.push_back(entry.path());
      std::sort(files.begin(), files.end());
      inputs.insert(inputs.end(), files.begin(), files.end());
    } else if (fs::is_regular_file(arg)) {
      inputs.push_back(arg);
    } else {
      std::cerr << arg.string() << ": not a file or folder\n";
      return 2;
    }
  }
  if (inputs.empty()) {
    std::cerr << "no inputs to replay\n";
    return 2;
  }
  for (const auto& path : inputs) {
    std::cerr << "replaying " << path.string() << '\n';
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::cout << inputs.size() << " inputs replayed\n";
  return 0;
}
