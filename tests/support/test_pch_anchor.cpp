// The program that builds the test programs' shared precompiled header (see
// tests/support/CMakeLists.txt): a test program without tests of its own, so that it is compiled
// exactly as they are (position-independent executable, sanitizers). Never run.
