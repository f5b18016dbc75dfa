// The original post-processor's fixture outputs, adjusted where NOTES.md says we differ on
// purpose. Each adjustment is one function, so a test names every deviation it applies.
#pragma once

#include <string>
#include <string_view>

namespace rtrace::test {

enum class TieOrder { SizeAscending, SizeDescending, CountAscending, CountDescending };

// Binary input has no origin: ours names rtrace where the original named itself.
std::string with_our_origin(std::string text);

// The original orders compress groups with equal keys by its hash table; ours by the group's
// first call index. Re-sorts the groups of `text` (stably) by the key, then the first index.
std::string with_ties_by_first_index(const std::string& text, TieOrder order);

// The original prints another type's numbers in the leak summary of the third and later
// resource types; ours prints the true ones.
std::string with_leak_summary(std::string text, std::string_view resource,
                              std::string_view numbers);

// The original loses context registry names when reading text (`@ 0 : (null)`, or nothing
// with -C); ours keeps them. Replaces the registry lines (or inserts `registry` after the
// header when the original printed none).
std::string with_context_registry(const std::string& text, std::string_view registry);

// The text of `environment_from` up to its first call, then the text of `body_from` from its
// first call on: the groups of a merged -b -c run come from re-compressing the original's
// output, its header from the run itself.
std::string with_body_of(const std::string& environment_from, const std::string& body_from);

}  // namespace rtrace::test
