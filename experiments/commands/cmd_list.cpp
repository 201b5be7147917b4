// specdse list [CATEGORY|NAME]: what there is to name on the command line (models, hardware,
// systems, links, stacks, hosts, algorithms, acceptance data, scenarios, validation), each with a one-line
// description; with no argument the categories and how many each holds.
#include <fmt/format.h>

#include <memory>

#include "experiments/cli/cli_common.hpp"
#include "experiments/cli/config_listing.hpp"

namespace experiments {
namespace {

struct ListArgs {
  std::string what;
  std::string format = "table";
};

const RegisterCommand list_registration{
    "list",
    "List models, hardware, systems, links, stacks, hosts, algorithms, acceptance data, scenarios or validation, "
    "each with a description",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<ListArgs>();
      // The categories from the listing itself, so the help cannot miss one.
      sub.add_option("what", a->what,
                     fmt::format("{} (none: the categories with counts), or one name",
                                 fmt::join(list_categories(), ", ")));
      add_format_option(sub, a->format);
      return [a, &g] {
        print_table(list_table(a->what, registry(g)), a->format);
        return 0;
      };
    },
    5};

}  // namespace
}  // namespace experiments
