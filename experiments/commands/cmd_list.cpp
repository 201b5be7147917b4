// specdse list [CATEGORY|NAME]: what there is to name on the command line (models, hardware,
// systems, links, stacks, algorithms, acceptance data, scenarios), each with a one-line
// description; with no argument the categories and how many each holds.
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
    "List models, hardware, systems, links, stacks, algorithms, acceptance data or scenarios, each with a description",
    [](CLI::App& sub, const GlobalOptions& g) -> CommandRunner {
      auto a = std::make_shared<ListArgs>();
      sub.add_option("what", a->what,
                     "models, hardware, systems, links, stacks, algorithms, acceptance or scenarios (none: the "
                     "categories with counts), or one name");
      add_format_option(sub, a->format);
      return [a, &g] {
        print_table(list_table(a->what, registry(g)), a->format);
        return 0;
      };
    },
    5};

}  // namespace
}  // namespace experiments
