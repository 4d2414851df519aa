#pragma once
// The recipes `cluster -m` knows, by msprof-analyze's names.

#include <memory>
#include <string>
#include <vector>

#include "msprof_analyze/recipes/recipe.h"

namespace cs::recipes {

// The recipe of this name, or nullptr.
std::unique_ptr<Recipe> make_recipe(const std::string& name);
// Every recipe name, sorted (for help and error messages).
std::vector<std::string> recipe_names();

}  // namespace cs::recipes
