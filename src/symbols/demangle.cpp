#include "symbols/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace rtrace::symbols {
namespace {

struct FreeDeleter {
  void operator()(char* text) const { std::free(text); }  // NOLINT: __cxa_demangle mallocs
};

}  // namespace

std::string display_function_name(std::string_view linkage_name) {
  if (linkage_name.empty()) {
    return {};
  }
  // Copies the compiler made of a function (f.cold, f.isra.0, f.part.1, f.constprop.0) are
  // that function for whoever reads a backtrace: the suffix goes.
  const std::string name(linkage_name.substr(0, linkage_name.find('.')));
  if (name.starts_with("_Z")) {
    int status = 0;
    const std::unique_ptr<char, FreeDeleter> demangled(
        abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status));
    if (status == 0 && demangled) {
      std::string text(demangled.get());
      // Functions demangle with their parameter list; special names (vtables, guard variables)
      // have none and get the same "()" as C names.
      if (text.find('(') != std::string::npos) {
        return text;
      }
      return text + "()";
    }
  }
  return name + "()";
}

}  // namespace rtrace::symbols
