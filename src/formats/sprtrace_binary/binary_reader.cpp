#include "formats/sprtrace_binary/binary_reader.h"
