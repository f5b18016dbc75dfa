#include "formats/sprtrace_text/text_reader.h"
