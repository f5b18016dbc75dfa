// The resolver on real programs: the programs report return addresses of known call sites and
// their own memory map; every answer must name the right function, file and line.
#include "symbols/address_resolver.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "probe_output.h"
#include "support/test_paths.h"
#include "symbol_view.h"

namespace rtrace::symbols {
namespace {

// Options with one setting changed from the defaults.
ResolveOptions symbol_table_method() {
  ResolveOptions options;
  options.method = ResolveMethod::SymbolTable;
  return options;
}
ResolveOptions with_full_path() {
  ResolveOptions options;
  options.full_path = true;
  return options;
}
ResolveOptions with_root(const std::string& root) {
  ResolveOptions options;
  options.root = root;
  return options;
}

using test::ProbeFrame;
using test::ProbeOutput;
using Where = test::SymbolView::Where;

std::unique_ptr<AddressResolver> resolver_for(const ProbeOutput& output,
                                              ResolveOptions options = {}) {
  auto resolver = std::make_unique<AddressResolver>(std::move(options));
  for (const Mapping& mapping : output.maps) {
    resolver->add_mapping(mapping);
  }
  return resolver;
}

void expect_source(AddressResolver& resolver, const ProbeFrame& frame) {
  const test::SymbolView info = test::view(resolver.resolve(frame.address));
  EXPECT_EQ(info.where, Where::Source) << frame.function;
  EXPECT_EQ(info.function, frame.function);
  EXPECT_EQ(info.location, frame.location) << frame.function;
  ASSERT_EQ(info.inlined_by.size(), frame.inlined_by.size()) << frame.function;
  for (std::size_t i = 0; i < frame.inlined_by.size(); ++i) {
    EXPECT_EQ(info.inlined_by[i].function, frame.inlined_by[i].function);
    EXPECT_EQ(info.inlined_by[i].location, frame.inlined_by[i].location);
  }
}

void expect_all_source(const std::string& program, const std::string& arguments = "") {
  SCOPED_TRACE(program);
  const ProbeOutput output = test::run_probe(program, arguments);
  const auto resolver = resolver_for(output);
  for (const ProbeFrame& frame : output.frames) {
    expect_source(*resolver, frame);
  }
}

TEST(AddressResolver, COptimisedNotAtAllWithoutPie) {
  expect_all_source(RESOLVE_C_O0);
}

TEST(AddressResolver, COptimisedWithPie) {
  expect_all_source(RESOLVE_C_O2);
}

TEST(AddressResolver, CompressedDebugSections) {
  const test::CommandResult sections =
      test::run_command(std::string("readelf -S ") + RESOLVE_C_GZ + " | grep -A1 debug_info");
  ASSERT_NE(sections.out.find(" C "), std::string::npos) << "not compressed:\n" << sections.out;
  expect_all_source(RESOLVE_C_GZ);
}

TEST(AddressResolver, CxxNotOptimised) {
  expect_all_source(RESOLVE_CXX_O0);
}

TEST(AddressResolver, CxxOptimisedWithInlinedCalls) {
  const ProbeOutput output = test::run_probe(RESOLVE_CXX_O2);
  EXPECT_EQ(test::frame_of(output, "innermost()").inlined_by.size(), 2U);
  const auto resolver = resolver_for(output);
  for (const ProbeFrame& frame : output.frames) {
    expect_source(*resolver, frame);
  }
}

TEST(AddressResolver, LibraryLoadedWithDlopen) {
  const ProbeOutput output = test::run_probe(RESOLVE_C_O2, RESOLVE_PLUGIN);
  const auto resolver = resolver_for(output);
  for (const ProbeFrame& frame : output.frames) {
    expect_source(*resolver, frame);
  }
  EXPECT_EQ(test::view(resolver->resolve(test::frame_of(output, "plugin_leaf()").address)).location,
            test::frame_of(output, "plugin_leaf()").location);
}

TEST(AddressResolver, StrippedProgramWithDebuglink) {
  expect_all_source(RESOLVE_C_STRIPPED);
}

// A trace from another system: the program and its debug file (named by build-id) under a
// sysroot, the trace naming the program by its path on that system.
TEST(AddressResolver, SysrootAndBuildIdDebugFile) {
  const test::CommandResult note = test::run_command(std::string("readelf -n ") + RESOLVE_C_NOLINK +
                                                     " | sed -n 's/.*Build ID: //p'");
  const std::string build_id = note.out.substr(0, note.out.find('\n'));
  ASSERT_GT(build_id.size(), 2U);

  const test::ScratchDir root;
  const std::filesystem::path debug_dir =
      root.path() / "usr/lib/debug/.build-id" / build_id.substr(0, 2);
  std::filesystem::create_directories(debug_dir);
  std::filesystem::create_directories(root.path() / "opt/app");
  std::filesystem::copy_file(RESOLVE_C_STRIPPED ".debug",
                             debug_dir / (build_id.substr(2) + ".debug"));
  std::filesystem::copy_file(RESOLVE_C_NOLINK, root.path() / "opt/app/prog");

  ProbeOutput output = test::run_probe(RESOLVE_C_NOLINK);
  for (Mapping& mapping : output.maps) {
    if (mapping.path == RESOLVE_C_NOLINK) {
      mapping.path = "/opt/app/prog";
    }
  }
  const auto resolver = resolver_for(output, with_root(root.path().string()));
  for (const ProbeFrame& frame : output.frames) {
    expect_source(*resolver, frame);
  }

  // Without the sysroot the file is not found: frames name the module and nothing else.
  const auto no_root = resolver_for(output);
  const test::SymbolView bare = test::view(no_root->resolve(output.frames.front().address));
  EXPECT_EQ(bare.where, Where::Module);
  EXPECT_EQ(bare.function, "");
  EXPECT_EQ(bare.location, "/opt/app/prog");
}

TEST(AddressResolver, StrippedProgramWithoutDebugInformationNamesNoFunction) {
  const ProbeOutput output = test::run_probe(RESOLVE_C_NOLINK);
  const auto resolver = resolver_for(output);
  const test::SymbolView info =
      test::view(resolver->resolve(test::frame_of(output, "leaf_static()").address));
  EXPECT_EQ(info.where, Where::Module);
  EXPECT_EQ(info.function, "");
  EXPECT_EQ(info.location, RESOLVE_C_NOLINK);
}

TEST(AddressResolver, SymbolTableMethodNamesFunctionAndModule) {
  const ProbeOutput output = test::run_probe(RESOLVE_CXX_O2);
  const auto resolver = resolver_for(output, symbol_table_method());
  const test::SymbolView grow =
      test::view(resolver->resolve(test::frame_of(output, "shapes::Widget::grow(int)").address));
  EXPECT_EQ(grow.where, Where::Module);
  EXPECT_EQ(grow.function, "shapes::Widget::grow(int)");
  EXPECT_EQ(grow.location, RESOLVE_CXX_O2);
  // The symbol table knows only the function the inlined code ended up in.
  const test::SymbolView inlined =
      test::view(resolver->resolve(test::frame_of(output, "innermost()").address));
  EXPECT_EQ(inlined.function, "outer()");
  EXPECT_TRUE(inlined.inlined_by.empty());
}

TEST(AddressResolver, FullPathOfSourceFiles) {
  const ProbeOutput output = test::run_probe(RESOLVE_C_O0);
  const auto resolver = resolver_for(output, with_full_path());
  const ProbeFrame& main_frame = test::frame_of(output, "main()");
  const std::string expected =
      (test::source_dir() / "tests/symbols/programs" / main_frame.location).string();
  EXPECT_EQ(test::view(resolver->resolve(main_frame.address)).location, expected);
}

TEST(AddressResolver, LibcFramesUseItsSeparateDebugFile) {
  const ProbeOutput output = test::run_probe(RESOLVE_C_O2);
  ASSERT_NE(output.libc_frame, 0U);
  const auto resolver = resolver_for(output);
  const test::SymbolView info = test::view(resolver->resolve(output.libc_frame));
  EXPECT_EQ(info.where, Where::Source);
  EXPECT_NE(info.function.find("msort"), std::string::npos) << info.function;
  EXPECT_TRUE(info.location.starts_with("msort.c:")) << info.location;

  const auto by_symbols = resolver_for(output, symbol_table_method());
  const test::SymbolView symbol = test::view(by_symbols->resolve(output.libc_frame));
  EXPECT_EQ(symbol.where, Where::Module);
  EXPECT_NE(symbol.function.find("msort"), std::string::npos) << symbol.function;
  EXPECT_TRUE(symbol.location.ends_with("/libc.so.6")) << symbol.location;
}

TEST(AddressResolver, AddressesOutsideEveryMappingAreUnknown) {
  const ProbeOutput output = test::run_probe(RESOLVE_C_O0);
  const auto resolver = resolver_for(output);
  EXPECT_EQ(test::view(resolver->resolve(0)).where, Where::Unknown);
  EXPECT_EQ(test::view(resolver->resolve(0x10)).where, Where::Unknown);
  const test::SymbolView high = test::view(resolver->resolve(0xffffffffffff0000));
  EXPECT_EQ(high.where, Where::Unknown);
  EXPECT_EQ(high.function, "");
  EXPECT_EQ(high.location, "");
}

TEST(AddressResolver, UnreadableModulesNameOnlyTheModule) {
  AddressResolver resolver(ResolveOptions{});
  resolver.add_mapping({0x1000, 0x2000, "/nonexistent/libgone.so"});
  resolver.add_mapping({0x3000, 0x4000, "[vdso]"});
  const test::SymbolView gone = test::view(resolver.resolve(0x1800));
  EXPECT_EQ(gone.where, Where::Module);
  EXPECT_EQ(gone.function, "");
  EXPECT_EQ(gone.location, "/nonexistent/libgone.so");
  EXPECT_EQ(test::view(resolver.resolve(0x3001)).location, "[vdso]");
  // Not regular files: never opened (a FIFO would block, a device never end).
  resolver.add_mapping({0x5000, 0x6000, "/dev/zero"});
  EXPECT_EQ(test::view(resolver.resolve(0x5001)).location, "/dev/zero");
  EXPECT_EQ(test::view(resolver.resolve(0x5001)).function, "");
  EXPECT_EQ(test::view(resolver.resolve(0x2800)).where, Where::Unknown);
}

TEST(AddressResolver, LaterMappingsReplaceEarlierOnes) {
  AddressResolver resolver(ResolveOptions{});
  resolver.add_mapping({0x10000, 0x20000, "/nonexistent/first.so"});
  EXPECT_EQ(test::view(resolver.resolve(0x18000)).location, "/nonexistent/first.so");
  resolver.add_mapping({0x14000, 0x16000, "/nonexistent/second.so"});
  EXPECT_EQ(test::view(resolver.resolve(0x15000)).location, "/nonexistent/second.so");
  EXPECT_EQ(test::view(resolver.resolve(0x13000)).location, "/nonexistent/first.so");
  EXPECT_EQ(test::view(resolver.resolve(0x17000)).location, "/nonexistent/first.so");
  resolver.add_mapping({0x0, 0x30000, "/nonexistent/third.so"});
  EXPECT_EQ(test::view(resolver.resolve(0x15000)).location, "/nonexistent/third.so");
  EXPECT_EQ(test::view(resolver.resolve(0x2f000)).location, "/nonexistent/third.so");
}

}  // namespace
}  // namespace rtrace::symbols
