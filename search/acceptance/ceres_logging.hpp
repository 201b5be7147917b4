#pragma once
// Ceres reports through glog, which writes to stderr (and warns that it was never initialised)
// before a fit's own error: a failed fit must end as one line naming its input, as every error
// does. Called before each solve; only the first call does anything.
namespace search {

void quiet_ceres_logging();

}  // namespace search
