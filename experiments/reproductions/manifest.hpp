#pragma once
// manifest.txt of a reproduction (<out>/<name>/manifest.txt): a YAML map naming what produced
// the results — reproduction, title, command, specdse version, git commit, engine, config folder
// and every input file with its FNV-1a 64-bit content hash. It holds no wall time and no absolute
// path, so regenerating results from the same sources rewrites the same bytes; and a manifest
// that differs from the one on disk only by the commit is left as it is (manifest_unchanged), so
// `specdse reproduce all` on a clone at a later commit leaves `git status` clean when no result
// moved.
#include <string>
#include <vector>

#include "models/portable_path.hpp"

namespace experiments {

struct ManifestInfo {
  std::string reproduction, title, engine;
  std::string config_dir;                // the registry's folder
  std::vector<std::string> inputs;       // "PATH" or "PATH (note)"; a repeat is listed once (the first)
  std::vector<std::string> outputs;      // file names inside the output folder
};

std::string manifest_yaml(const ManifestInfo& m);

// Whether the manifest `fresh` says what `existing` says except, at most, the git commit it was
// made at (the results it describes are the same: every input hash, the engine, the outputs).
bool manifest_unchanged(const std::string& existing, const std::string& fresh);

// A YAML double-quoted scalar, written by yaml-cpp's emitter (as every scalar of the manifest).
std::string yaml_quote(const std::string& s);

using models::portable_path;  // models/portable_path.hpp

}  // namespace experiments
