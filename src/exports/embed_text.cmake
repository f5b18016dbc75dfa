# Turns a source file (a .js or .css of an export) into a C++ string_view at build time, so the
# file stays a real source file that editors and linters see.
#   cmake -DINPUT=file.js -DOUTPUT=file.cpp -DSYMBOL=kName -P embed_text.cmake
file(READ "${INPUT}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
get_filename_component(name "${INPUT}" NAME)
file(WRITE "${OUTPUT}"
  "// Generated from ${name} at build time; edit ${name} instead.\n"
  "#include <string_view>\n\n"
  "namespace rtrace::exporters {\n"
  "namespace {\n"
  "constexpr char kBytes[] = {${bytes}};\n"
  "}  // namespace\n"
  "extern const std::string_view ${SYMBOL};\n"
  "const std::string_view ${SYMBOL}(kBytes, sizeof kBytes);\n"
  "}  // namespace rtrace::exporters\n")
