// What `rtrace` says about a subcommand it does not know: the closest one, when one is close.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace rtrace::cli {

// Edits (insert, delete, replace one character, or swap two neighbours) that turn `a` into `b`.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The name in `names` fewest edits away from `typed`, when it is close enough to be what was
// meant (at most 2 edits, and fewer than half of the typed characters); the first of equals.
std::optional<std::string_view> closest_name(std::string_view typed,
                                             std::span<const std::string_view> names);

// "unknown command 'recrod'; did you mean 'record'?", or the list of `names` when none is close.
std::string unknown_command_message(std::string_view typed,
                                    std::span<const std::string_view> names);

}  // namespace rtrace::cli
