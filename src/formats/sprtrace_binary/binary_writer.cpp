#include "formats/sprtrace_binary/binary_writer.h"
