#include "search/acceptance/ceres_logging.hpp"

#include <glog/logging.h>

#include <mutex>

namespace search {

void quiet_ceres_logging() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Only fatal messages (which end the process anyway) reach stderr; the solver's summaries
    // carry what the fits need, and a failed fit is reported by its caller in one line.
    FLAGS_minloglevel = google::GLOG_FATAL;
    FLAGS_stderrthreshold = google::GLOG_FATAL;
    FLAGS_logtostderr = false;
    if (!google::IsGoogleLoggingInitialized()) google::InitGoogleLogging("specdse");
  });
}

}  // namespace search
