#pragma once
// What there is to name: the configs of each category (models, hardware, systems, links,
// stacks, algorithms), the acceptance data and the registered scenarios, each with a one-line
// description (the config's `description:` where it has one, else facts derived from it). Used
// by `specdse list` and Python's specdse.catalogue().
#include <string>
#include <vector>

#include "experiments/output/table.hpp"
#include "models/config_registry.hpp"

namespace experiments {

// The categories, in the order `specdse list` shows them.
const std::vector<std::string>& list_categories();

// The category a word names ("models", or its singular "model"; "hw" for hardware), or "".
std::string list_category(const std::string& word);

// One row per category: category, count, what it holds.
Table categories_table(const models::ConfigRegistry& reg);

// One row per entry of `category` (a name list_category accepts): name, description and the
// category's own facts. An entry that does not load is still listed, its description saying why.
Table category_table(const std::string& category, const models::ConfigRegistry& reg);

// Every (category, name) there is, for finding a name and guessing a misspelt one.
std::vector<std::pair<std::string, std::string>> all_listed_names(const models::ConfigRegistry& reg);

// The table `specdse list WHAT` prints: no word, every category; a category, its entries; a
// name of some category, that category's table with that one row. InputError naming the closest
// category or name otherwise.
Table list_table(const std::string& what, const models::ConfigRegistry& reg);

}  // namespace experiments
